#pragma once
// Splitting a render's frames across machines: shard I of N is the I-th of N
// contiguous chunks of the frame list (sizes differ by at most one frame). The
// shard comes from --shard, or from a cluster's environment: a Slurm array
// job (SLURM_ARRAY_TASK_ID with _MIN and _MAX, or _COUNT for a stepped
// array), or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, 0-based, with
// --shard-count).
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fxsim {

constexpr int kMaxShards = 1000000;  // the most shards --shard I/N splits the frames into

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
  std::string source;  // how it was chosen, for the log: "--shard 2/4", "SLURM_ARRAY_TASK_ID=3 (…)"
};

// "I/N" with 1 <= I <= N; nullopt when malformed.
std::optional<Shard> parse_shard(const std::string& text);

// The shard from the environment (`getenv` reads it; tests pass their own),
// nullopt when neither Slurm's nor Kubernetes' variables are there. Throws
// FxError(usage) for variables that contradict each other, and for
// JOB_COMPLETION_INDEX without `shard_count`.
using EnvironmentLookup = std::function<const char*(const char*)>;
std::optional<Shard> shard_from_environment(const EnvironmentLookup& getenv, std::optional<int> shard_count);

// The frames of shard `shard` of `frames` (in order): chunk I holds
// frames [floor((I-1)·n/N), floor(I·n/N)). Empty when N exceeds the frames.
std::vector<int> shard_frames(const std::vector<int>& frames, const Shard& shard);

}  // namespace fxsim
