#include "core/shards.h"

#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/number_text.h"

namespace fxsim {

namespace {
// A variable's value (null where it is not set) as a whole number.
std::optional<long long> integer(const char* text) {
  return text ? number_of_text<long long>(text) : std::nullopt;
}
}  // namespace

std::optional<Shard> parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string_view whole(text);
  const auto i = number_of_text<long long>(whole.substr(0, slash)), n = number_of_text<long long>(whole.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n || *n > kMaxShards) return std::nullopt;
  return Shard{int(*i), int(*n), "--shard " + text};
}

namespace {
// A Slurm array task's shard (SLURM_ARRAY_TASK_ID set). The variables are
// checked before any arithmetic: values past Slurm's own (a step of 0, a MAX
// of 2^32) divided by zero or read past the frames.
Shard slurm_shard(const EnvironmentLookup& getenv, std::optional<int> shard_count) {
  const auto text = [&](const char* name) { return getenv(name) ? std::string(getenv(name)) : std::string("none"); };
  const char* id_text = getenv("SLURM_ARRAY_TASK_ID");
  const auto id = integer(id_text), lo = integer(getenv("SLURM_ARRAY_TASK_MIN")),
             hi = integer(getenv("SLURM_ARRAY_TASK_MAX")), count = integer(getenv("SLURM_ARRAY_TASK_COUNT")),
             given_step = integer(getenv("SLURM_ARRAY_TASK_STEP"));
  if (!id)
    throw FxError(ExitCode::usage, fmt::format("SLURM_ARRAY_TASK_ID={}: expected a whole number", id_text));
  // Slurm's indices are 0 up to its MaxArraySize (4 000 001 at most).
  constexpr long long kMostIndex = 1LL << 31;
  if (!lo || !hi || *lo < 0 || *hi > kMostIndex || *hi < *lo || *id < *lo || *id > *hi)
    throw FxError(ExitCode::usage, fmt::format("SLURM_ARRAY_TASK_ID={} needs SLURM_ARRAY_TASK_MIN and _MAX around it, "
                                               "in 0..{} (got {} and {})", id_text, kMostIndex,
                                               text("SLURM_ARRAY_TASK_MIN"), text("SLURM_ARRAY_TASK_MAX")));
  for (const auto& [name, value] : {std::pair{"SLURM_ARRAY_TASK_COUNT", count}, {"SLURM_ARRAY_TASK_STEP", given_step}})
    if (getenv(name) && (!value || *value < 1 || *value > kMostIndex))
      throw FxError(ExitCode::usage, fmt::format("{}={}: expected a whole number in 1..{}", name, text(name), kMostIndex));
  // The step: _STEP's, or that of _COUNT tasks from MIN to MAX, or 1.
  const long long span = *hi - *lo;
  long long step = given_step.value_or(1);
  if (!given_step && count && *count > 1) {
    if (span % (*count - 1) != 0 || span / (*count - 1) < 1)
      throw FxError(ExitCode::usage, fmt::format("SLURM_ARRAY_TASK_COUNT={} does not fit an array from {} to {}",
                                                 *count, *lo, *hi));
    step = span / (*count - 1);
  }
  const long long n = span / step + 1;
  if (span % step != 0 || (*id - *lo) % step != 0 || (count && *count != n))
    throw FxError(ExitCode::usage,
                  fmt::format("SLURM_ARRAY_TASK_ID={} of {}-{}: SLURM_ARRAY_TASK_COUNT={} and _STEP={} do not fit "
                              "it", *id, *lo, *hi, text("SLURM_ARRAY_TASK_COUNT"), text("SLURM_ARRAY_TASK_STEP")));
  if (n > kMaxShards)
    throw FxError(ExitCode::usage, fmt::format("a Slurm array of {} tasks: fxsim splits the frames into at most {} "
                                               "shards", n, kMaxShards));
  std::string how = fmt::format("SLURM_ARRAY_TASK_ID={} of {}-{}", *id, *lo, *hi);
  if (step > 1) how += fmt::format(" step {}", step);
  if (shard_count && *shard_count != n)
    throw FxError(ExitCode::usage, fmt::format("--shard-count {} contradicts the Slurm array's {} tasks", *shard_count, n));
  return Shard{int((*id - *lo) / step + 1), int(n), how};
}

// A Kubernetes Indexed Job's shard (JOB_COMPLETION_INDEX set).
Shard indexed_job_shard(const EnvironmentLookup& getenv, std::optional<int> shard_count) {
  const char* index_text = getenv("JOB_COMPLETION_INDEX");
  const auto index = integer(index_text);
  if (!shard_count)
    throw FxError(ExitCode::usage, fmt::format("JOB_COMPLETION_INDEX={} (a Kubernetes Indexed Job) needs --shard-count "
                                               "N, the job's completions", index_text));
  if (!index || *index < 0 || *index >= *shard_count)
    throw FxError(ExitCode::usage, fmt::format("JOB_COMPLETION_INDEX={} is not in 0..{}", index_text, *shard_count - 1));
  return Shard{int(*index) + 1, *shard_count, fmt::format("JOB_COMPLETION_INDEX={} with --shard-count {}", *index, *shard_count)};
}
}  // namespace

std::optional<Shard> shard_from_environment(const EnvironmentLookup& getenv, std::optional<int> shard_count) {
  std::optional<Shard> slurm, job;
  if (getenv("SLURM_ARRAY_TASK_ID")) slurm = slurm_shard(getenv, shard_count);
  if (getenv("JOB_COMPLETION_INDEX")) job = indexed_job_shard(getenv, shard_count);
  // Both set (a Slurm job started by a Kubernetes one, say): they must agree.
  if (slurm && job && (slurm->index != job->index || slurm->count != job->count))
    throw FxError(ExitCode::usage, fmt::format("{} (shard {}/{}) and {} (shard {}/{}) contradict each other: unset "
                                               "one, or give --shard I/N",
                                               slurm->source, slurm->index, slurm->count, job->source, job->index,
                                               job->count));
  return slurm ? slurm : job;
}

std::vector<int> shard_frames(const std::vector<int>& frames, const Shard& shard) {
  const size_t n = frames.size(), count = size_t(shard.count), i = size_t(shard.index);
  const size_t begin = (i - 1) * n / count, end = i * n / count;
  return std::vector<int>(frames.begin() + std::ptrdiff_t(begin), frames.begin() + std::ptrdiff_t(end));
}

}  // namespace fxsim
