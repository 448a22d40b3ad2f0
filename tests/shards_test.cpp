// Shards of a frame list, from --shard or a cluster's environment.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "core/exit_codes.h"
#include "core/shards.h"

using namespace fxsim;

namespace {
EnvironmentLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST(Shards, ParsesIOfN) {
  EXPECT_EQ(parse_shard("2/4")->index, 2);
  EXPECT_EQ(parse_shard("2/4")->count, 4);
  for (const char* bad : {"0/4", "5/4", "2", "a/4", "2/0", "2/4x", "-1/4", "/4"}) EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(Shards, ContiguousChunksCoverEveryFrameOnce) {
  std::vector<int> frames(100);
  std::iota(frames.begin(), frames.end(), 1);
  for (const int n : {1, 3, 4, 7, 100}) {
    std::vector<int> joined;
    size_t smallest = frames.size(), largest = 0;
    for (int i = 1; i <= n; ++i) {
      const std::vector<int> part = shard_frames(frames, {i, n, ""});
      joined.insert(joined.end(), part.begin(), part.end());
      smallest = std::min(smallest, part.size());
      largest = std::max(largest, part.size());
    }
    EXPECT_EQ(joined, frames) << n;   // in order, each once
    EXPECT_LE(largest - smallest, 1u) << n;
  }
  EXPECT_EQ(shard_frames({5, 9}, {1, 4, ""}).size(), 0u);  // more shards than frames: some are empty
  EXPECT_EQ(shard_frames({5, 9}, {4, 4, ""}), std::vector<int>{9});
}

TEST(Shards, ASlurmArrayGivesTheShard) {
  const auto s = shard_from_environment(
      environment({{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_MAX", "8"}}), std::nullopt);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 4);
  EXPECT_NE(s->source.find("SLURM_ARRAY_TASK_ID=7"), std::string::npos);
  // A stepped array, 1-7:2 (tasks 1, 3, 5, 7): task 5 is the third of four.
  const auto stepped = shard_from_environment(environment({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                                           {"SLURM_ARRAY_TASK_MAX", "7"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                                              std::nullopt);
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->index, 3);
  EXPECT_EQ(stepped->count, 4);
  // Without the array's bounds, or with a contradicting --shard-count: refused.
  for (const auto& vars : std::vector<std::map<std::string, std::string>>{
           {{"SLURM_ARRAY_TASK_ID", "3"}},
           {{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"}}}) {
    try {
      shard_from_environment(environment(vars), std::nullopt);
      ADD_FAILURE() << "accepted";
    } catch (const FxError& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
    }
  }
  EXPECT_THROW(shard_from_environment(environment({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                                   {"SLURM_ARRAY_TASK_MAX", "4"}}),
                                      3),
               FxError);
}

TEST(Shards, SlurmVariablesPastSlurmsOwnAreRefused) {
  // A COUNT over an array of one index made a step of 0 (SIGFPE); a MAX of
  // 2^32 made a shard count of 0 (SIGFPE), of 2^32 + 1 one of 1 (frames read
  // past the list's end), of 2^31 a negative one ("no frames", exit 0); a
  // COUNT that is no number was ignored.
  using Vars = std::map<std::string, std::string>;
  for (const Vars& vars : {Vars{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_MAX", "5"},
                                {"SLURM_ARRAY_TASK_COUNT", "2"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4294967296"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4294967297"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "2147483648"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "-1"}, {"SLURM_ARRAY_TASK_MAX", "3"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                                {"SLURM_ARRAY_TASK_COUNT", "xyz"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                                {"SLURM_ARRAY_TASK_STEP", "0"}},
                           Vars{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                                {"SLURM_ARRAY_TASK_STEP", "2"}},  // task 2 is not in 1-7:2
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                                {"SLURM_ARRAY_TASK_STEP", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}},  // 1-7:2 is 4 tasks
                           Vars{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "1000001"}}}) {
    try {
      const auto s = shard_from_environment(environment(vars), std::nullopt);
      ADD_FAILURE() << "accepted as " << (s ? std::to_string(s->index) + "/" + std::to_string(s->count) : "none") << ": "
                    << vars.at("SLURM_ARRAY_TASK_MAX");
    } catch (const FxError& e) {
      EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    }
  }
  // A stepped array by its _STEP alone (a launcher that passes no _COUNT): task 5 of 1-7:2 is 3/4.
  const auto stepped = shard_from_environment(environment({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                                           {"SLURM_ARRAY_TASK_MAX", "7"}, {"SLURM_ARRAY_TASK_STEP", "2"}}),
                                              std::nullopt);
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->index, 3);
  EXPECT_EQ(stepped->count, 4);
  // Slurm sets both for a plain array: step 1.
  const auto plain = shard_from_environment(environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                                         {"SLURM_ARRAY_TASK_MAX", "4"}, {"SLURM_ARRAY_TASK_STEP", "1"},
                                                         {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                                            std::nullopt);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->index, 2);
  EXPECT_EQ(plain->count, 4);
}

TEST(Shards, AKubernetesIndexedJobNeedsTheShardCount) {
  const auto s = shard_from_environment(environment({{"JOB_COMPLETION_INDEX", "0"}}), 4);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 1);
  EXPECT_EQ(s->count, 4);
  EXPECT_THROW(shard_from_environment(environment({{"JOB_COMPLETION_INDEX", "0"}}), std::nullopt), FxError);
  EXPECT_THROW(shard_from_environment(environment({{"JOB_COMPLETION_INDEX", "4"}}), 4), FxError);
  EXPECT_FALSE(shard_from_environment(environment({}), std::nullopt));  // not on a cluster: every frame
}

TEST(Shards, SlurmAndKubernetesVariablesMustAgree) {
  const auto both = [](const char* job_index) {
    return environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"},
                        {"JOB_COMPLETION_INDEX", job_index}});
  };
  const auto same = shard_from_environment(both("1"), 4);  // task 2 of 1-4 and index 1 of 4: shard 2/4 either way
  ASSERT_TRUE(same);
  EXPECT_EQ(same->index, 2);
  EXPECT_EQ(same->count, 4);
  try {
    shard_from_environment(both("0"), 4);
    ADD_FAILURE() << "shards 2/4 and 1/4 were not refused";
  } catch (const FxError& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("contradict each other"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shard_from_environment(both("1"), std::nullopt), FxError);  // the job's index needs its count
}
