#pragma once
// Checkpoint files: the complete simulation state at a frame, so a render can
// start there instead of at time 0 (docs/farms.md describes the format).
//
//   "FXSIMCKP"                     8 bytes
//   format version                 u32, little-endian (1)
//   header length H, header        u32, then H bytes of JSON: scene_hash,
//                                  fxsim_version, backend, frame, step, time,
//                                  state_bytes
//   chunk count K                  u32
//   K × (raw size, packed size)    u64 each
//   K packed chunks                zlib (level 1) of consecutive 16 MiB pieces
//                                  of the state (Simulation::save_state),
//                                  compressed and uncompressed in parallel
//   SHA-256 of everything above    32 bytes
//
// A checkpoint is used only by a render of the same scene (the scene's
// simulation key), fxsim version and backend (the GPU backend's device class
// included: its arithmetic is the device's).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fxsim {

struct CheckpointKey {
  std::string scene_hash;  // Scene::simulation_key
  std::string version;     // fxsim's
  std::string backend;     // "cpu", or "gpu on <device class>"
  bool operator==(const CheckpointKey&) const = default;
};

struct CheckpointInfo {
  std::filesystem::path path;
  CheckpointKey key;
  int frame = 0;
  int64_t step = 0;
  double time = 0;
  uint64_t state_bytes = 0;
};

constexpr uint32_t kCheckpointFormat = 1;

// "checkpoint_000240.fxck"
std::string checkpoint_file_name(int frame);

// Writes the checkpoint of `frame` into `folder` (made if missing) atomically:
// a killed run leaves the previous file or the new one, whole. Compresses on
// `threads` threads. Returns its path.
std::filesystem::path write_checkpoint(const std::filesystem::path& folder, const CheckpointKey& key, int frame,
                                       int64_t step, double time, const std::vector<uint8_t>& state, int threads = 0);

// The newest whole checkpoint in `folder` for `key` at a frame in [1, at_most]
// and its state, if any; checkpoints of another scene, version or backend,
// damaged ones, and those whose header claims a state over
// `most_state_bytes` (most_state_bytes(scene): the claim is checked before
// the state is allocated) are passed over with a line in `warnings` saying why.
struct LoadedCheckpoint {
  CheckpointInfo info;
  std::vector<uint8_t> state;
};
std::optional<LoadedCheckpoint> load_checkpoint(const std::filesystem::path& folder, const CheckpointKey& key,
                                                int at_most, uint64_t most_state_bytes,
                                                std::vector<std::string>& warnings, int threads = 0);

// The header of a checkpoint file (its digest not checked); throws
// FxError(input_missing) saying what is wrong with it (not a checkpoint,
// another format, truncated).
CheckpointInfo read_checkpoint_info(const std::filesystem::path& path);

// The state stored in a checkpoint, its digest checked; throws
// FxError(input_missing) for a damaged file.
std::vector<uint8_t> read_checkpoint_state(const std::filesystem::path& path, int threads = 0);

// Whether the checkpoint at `path` is whole: its SHA-256 matches its bytes.
bool checkpoint_intact(const std::filesystem::path& path);

}  // namespace fxsim
