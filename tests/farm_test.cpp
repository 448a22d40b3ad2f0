// Render farms: checkpoints give the unbroken render's bytes, stale ones are
// ignored with a warning; shards (from --shard or a cluster's environment)
// together make the whole render; a killed run is completed by
// --skip-existing; `verify` finds missing, truncated and corrupt frames;
// --devices runs one shard per device.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

#include "cli_runner.h"
#include "core/png_writer.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kSleet = FXSIM_SOURCE_DIR "/scenes/sleet.json";  // rain with splashes and snow
const std::string kFarmSize = " --width 96 --height 54 -q ";

std::string q(const fs::path& p) { return fmt::format("'{}'", p.string()); }

std::string frame_name(int f) { return fmt::format("f_{:04}.png", f); }

// Lines "frame hash" of a --state-hashes file for frames in [from, to].
std::string hash_lines(const fs::path& file, int from, int to) {
  std::string out;
  std::istringstream in(read_text_file(file));
  for (std::string line; std::getline(in, line);) {
    const int frame = std::stoi(line.substr(0, line.find(' ')));
    if (frame >= from && frame <= to) out += line + "\n";
  }
  return out;
}

void expect_same_frames(const fs::path& a, const fs::path& b, int from, int to) {
  for (int f = from; f <= to; ++f) {
    ASSERT_TRUE(fs::exists(b / frame_name(f))) << frame_name(f);
    EXPECT_EQ(read_text_file(a / frame_name(f)), read_text_file(b / frame_name(f))) << frame_name(f);
  }
}
}  // namespace

TEST(Farm, RendersFromACheckpointAreTheUnbrokenRenderOnBothBackends) {
  for (const char* backend : {"cpu", "gpu"}) {
    TempDir dir(fmt::format("ck-{}", backend));
    const std::string common = fmt::format("render {} --width 96 --height 54 --backend {} ", kSleet, backend);
    ASSERT_EQ(run_fxsim(common + "-q --frames 1-12 -o " + q(dir / "full/f_####.png") + " --state-hashes " +
                        q(dir / "full.txt")).exit_code, 0);
    const CliResult sim = run_fxsim(fmt::format("render {} --backend {} --frames 8 --simulate-only --checkpoint-every 4 "
                                                "--checkpoints {}", kSleet, backend, q(dir / "ck")));
    ASSERT_EQ(sim.exit_code, 0) << sim.err;
    EXPECT_NE(sim.err.find("checkpoint of frame 8 written"), std::string::npos) << sim.err;
    // From the checkpoint of frame 8, drawing frame 8 itself; then with the
    // motion layer, which needs the frame before: from frame 4's.
    const CliResult part = run_fxsim(common + "--frames 8-12 --progress none -o " + q(dir / "part/f_####.png") +
                                     " --checkpoints " + q(dir / "ck") + " --state-hashes " + q(dir / "part.txt"));
    ASSERT_EQ(part.exit_code, 0) << part.err;
    EXPECT_NE(part.err.find("(frame 8, read in"), std::string::npos) << part.err;
    expect_same_frames(dir / "full", dir / "part", 8, 12);
    // The manifest's state hashes (captured without --state-hashes) are the ones --state-hashes writes.
    ASSERT_EQ(run_fxsim(common + "-q --frames 10-12 -o " + q(dir / "m2/f_####.png")).exit_code, 0);
    std::string manifest_hashes;
    std::istringstream lines(read_text_file(dir / "m2/fxsim-manifest.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j["type"] == "frame") manifest_hashes += fmt::format("{} {}\n", j["frame"].get<int>(), j["state_hash"].get<std::string>());
    }
    EXPECT_EQ(manifest_hashes, hash_lines(dir / "full.txt", 10, 12)) << backend;
    EXPECT_EQ(hash_lines(dir / "part.txt", 8, 12), hash_lines(dir / "full.txt", 8, 12)) << backend;
    EXPECT_EQ(hash_lines(dir / "part.txt", 1, 7), "");  // frames before the checkpoint were not simulated
    const CliResult motion = run_fxsim(common + "--frames 8 -o " + q(dir / "m/f_####.exr") + " --checkpoints " +
                                       q(dir / "ck") + " --set '/output/layers=[\"motion\"]' --progress none");
    ASSERT_EQ(motion.exit_code, 0) << motion.err;
    // (Another override of the output keeps the simulation's key: the checkpoints still fit.)
    EXPECT_NE(motion.err.find("(frame 4, read in"), std::string::npos) << motion.err;
  }
}

TEST(Farm, AStaleCheckpointIsIgnoredWithAWarning) {
  TempDir dir("stale");
  ASSERT_EQ(run_fxsim(fmt::format("render {} --seed 5 --frames 6 --simulate-only --checkpoint-every 3 --checkpoints {} -q",
                                  kSleet, q(dir / "ck"))).exit_code, 0);
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--seed 6 --frames 5-6 -o " + q(dir / "full/f_####.png")).exit_code, 0);
  const CliResult r = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --seed 6 --frames 5-6 -o " +
                                q(dir / "part/f_####.png") + " --checkpoints " + q(dir / "ck"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: ignoring checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("another scene"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("starting from checkpoint"), std::string::npos) << r.err;
  // Only the checkpoint that could have served (frame 3, before frame 5): frame 6's was never a candidate.
  EXPECT_NE(r.err.find("checkpoint_000003.fxck"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("checkpoint_000006.fxck"), std::string::npos) << r.err;
  expect_same_frames(dir / "full", dir / "part", 5, 6);
}

TEST(Farm, ShardsTogetherAreTheWholeRenderAndVerifyPasses) {
  TempDir dir("shards");
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1-10 -o " + q(dir / "full/f_####.png")).exit_code, 0);
  for (const int i : {1, 3, 2}) {
    const CliResult r = run_fxsim(fmt::format("render {} --width 96 --height 54 --progress none --frames 1-10 --shard {}/3 -o {}",
                                              kSleet, i, q(dir / "sharded/f_####.png")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(fmt::format("shard {}/3 (--shard {}/3)", i, i)), std::string::npos) << r.err;
    if (i != 3) continue;
    // Shard 2 has not run: it wrote no run line, and the folder passed without its frames.
    const CliResult gap = run_fxsim("verify " + q(dir / "sharded"));
    EXPECT_EQ(gap.exit_code, 1) << gap.out << gap.err;
    for (int f = 1; f <= 10; ++f)
      EXPECT_EQ(gap.out.find(fmt::format("missing: {}: frame {} has no record: no run was to write it, yet it is one of "
                                         "the frames 1-10 that run ", frame_name(f), f)) != std::string::npos,
                f >= 4 && f <= 6)
          << f << "\n" << gap.out;
    EXPECT_NE(gap.out.find("(a shard that never ran?)"), std::string::npos) << gap.out;
    EXPECT_NE(gap.out.find("10 frames of 2 runs, 7 files checked: 3 missing, 0 corrupt, 0 mismatched"), std::string::npos)
        << gap.out;
  }
  expect_same_frames(dir / "full", dir / "sharded", 1, 10);
  const CliResult v = run_fxsim("verify " + q(dir / "sharded"));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("10 frames of 3 runs, 10 files checked: all present and whole"), std::string::npos) << v.out;
}

TEST(Farm, AShardOfAVideoIsRefused) {
  // Each shard wrote the whole video with its own frames, and the last to
  // end won: a video of a quarter of the frames, exit 0.
  TempDir dir("shard-video");
  for (const std::string& output : {"-o " + q(dir / "v.mp4"), "-o " + q(dir / "f_#.png") + " --video " + q(dir / "v.mp4")}) {
    const CliResult r = run_fxsim("render " + kSleet + " --frames 1-8 --shard 1/2 " + output);
    EXPECT_EQ(r.exit_code, 64) << output << r.err;
    EXPECT_NE(r.err.find("a video is one file of every frame, which no shard has"), std::string::npos) << r.err;
    const CliResult slurm = run_fxsim("render " + kSleet + " --frames 1-8 " + output,
                                      "env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4");
    EXPECT_EQ(slurm.exit_code, 64) << output << slurm.err;
  }
  EXPECT_FALSE(fs::exists(dir / "v.mp4"));
  EXPECT_FALSE(fs::exists(dir / "f_1.png"));
}

TEST(Farm, TheShardComesFromSlurmOrKubernetesWhenNotGiven) {
  TempDir dir("env");
  const CliResult slurm = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --frames 1-9 -o " +
                                        q(dir / "s/f_####.png"),
                                    "env SLURM_ARRAY_TASK_ID=12 SLURM_ARRAY_TASK_MIN=11 SLURM_ARRAY_TASK_MAX=13");
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  EXPECT_NE(slurm.err.find("shard 2/3 (SLURM_ARRAY_TASK_ID=12 of 11-13): frames 4-6 (3)"), std::string::npos) << slurm.err;
  for (int f = 1; f <= 9; ++f) EXPECT_EQ(fs::exists(dir / "s" / frame_name(f)), f >= 4 && f <= 6) << f;
  const CliResult k8s = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --frames 1-9 --shard-count 3 -o " +
                                      q(dir / "k/f_####.png"),
                                  "env JOB_COMPLETION_INDEX=2");
  ASSERT_EQ(k8s.exit_code, 0) << k8s.err;
  EXPECT_NE(k8s.err.find("shard 3/3 (JOB_COMPLETION_INDEX=2 with --shard-count 3)"), std::string::npos) << k8s.err;
  EXPECT_TRUE(fs::exists(dir / "k" / frame_name(9)));
  EXPECT_FALSE(fs::exists(dir / "k" / frame_name(6)));
  const CliResult no_count = run_fxsim("render " + kSleet + " -o " + q(dir / "x/f_####.png"), "env JOB_COMPLETION_INDEX=0");
  EXPECT_EQ(no_count.exit_code, 64);
  EXPECT_NE(no_count.err.find("needs --shard-count"), std::string::npos) << no_count.err;
  EXPECT_FALSE(fs::exists(dir / "x"));
  // --shard-count with no index to count (a Job left NonIndexed rendered
  // every frame in every pod), or beside --shard, which has its count.
  const CliResult no_index = run_fxsim("render " + kSleet + " --shard-count 4 -o " + q(dir / "x/f_####.png"));
  EXPECT_EQ(no_index.exit_code, 64) << no_index.err;
  EXPECT_NE(no_index.err.find("--shard-count 4: JOB_COMPLETION_INDEX is not set"), std::string::npos) << no_index.err;
  const CliResult both = run_fxsim("render " + kSleet + " --shard 1/2 --shard-count 4 -o " + q(dir / "x/f_####.png"));
  EXPECT_EQ(both.exit_code, 64) << both.err;
  EXPECT_NE(both.err.find("--shard 1/2 gives its count itself"), std::string::npos) << both.err;
  EXPECT_FALSE(fs::exists(dir / "x"));
}

TEST(Farm, AKilledRunIsCompletedBySkipExisting) {
  TempDir dir("killed");
  const std::string scene = FXSIM_SOURCE_DIR "/scenes/snow-heavy-wind.json";  // 120 000 flakes: slow enough to stop
  constexpr int kFrames = 12;
  const std::string frames = fmt::format(" --frames 1-{} ", kFrames);
  ASSERT_EQ(run_fxsim("render " + scene + kFarmSize + frames + "-o " + q(dir / "full/f_####.png")).exit_code, 0);
  // Stopped (SIGTERM) once three frames are written.
  const std::string script = fmt::format(
      "'{}' render '{}' --width 96 --height 54 -q{}--threads 1 -o {} & pid=$!; "
      "while [ $(ls {} 2>/dev/null | grep -c '^f_.*png$') -lt 3 ]; do sleep 0.02; done; kill -TERM $pid; wait $pid",
      FXSIM_EXE, scene, frames, q(dir / "run/f_####.png"), q(dir / "run"));
  const int status = std::system(fmt::format("bash -c {}", q(script)).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + 15) << "the render finished before it was stopped";
  int written = 0;
  struct stat before[kFrames + 1] = {};
  for (int f = 1; f <= kFrames; ++f)
    if (stat((dir / "run" / frame_name(f)).c_str(), &before[f]) == 0) ++written;
  ASSERT_GE(written, 3);
  ASSERT_LT(written, kFrames);
  const CliResult resume = run_fxsim("render " + scene + " --width 96 --height 54 --progress none" + frames +
                                     "--skip-existing -o " + q(dir / "run/f_####.png"));
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_NE(resume.err.find(fmt::format("{} of {} frames are already written", written, kFrames)), std::string::npos) << resume.err;
  expect_same_frames(dir / "full", dir / "run", 1, kFrames);
  for (int f = 1; f <= kFrames; ++f) {
    struct stat after {};
    if (before[f].st_ino == 0) continue;
    ASSERT_EQ(stat((dir / "run" / frame_name(f)).c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before[f].st_ino) << "frame " << f << " was written again";
  }
  const CliResult v = run_fxsim("verify " + q(dir / "run"));
  EXPECT_EQ(v.exit_code, 0) << v.out;
  // A frame written whose manifest line was lost (a run killed with SIGKILL
  // between the two): --skip-existing keeps it and records it from its file.
  std::string kept_lines;
  std::istringstream manifest(read_text_file(dir / "run/fxsim-manifest.jsonl"));
  for (std::string line; std::getline(manifest, line);)
    if (line.find("\"frame\":2,") == std::string::npos) kept_lines += line + "\n";
  write_text_file(dir / "run/fxsim-manifest.jsonl", kept_lines);
  const CliResult unrecorded = run_fxsim("verify " + q(dir / "run"));
  EXPECT_EQ(unrecorded.exit_code, 1);
  // Not "never written", with the file there.
  EXPECT_NE(unrecorded.out.find("frame 2 has no record: the file is there"), std::string::npos) << unrecorded.out;
  const CliResult adopt = run_fxsim("render " + scene + " --width 96 --height 54 --progress none" + frames +
                                    "--skip-existing -o " + q(dir / "run/f_####.png"));
  EXPECT_NE(adopt.err.find("1 of them had no line in the manifest"), std::string::npos) << adopt.err;
  EXPECT_EQ(run_fxsim("verify " + q(dir / "run")).exit_code, 0);
  // Everything there: nothing to do.
  const CliResult again = run_fxsim("render " + scene + " --width 96 --height 54 --progress none" + frames +
                                    "--skip-existing -o " + q(dir / "run/f_####.png"));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("nothing to render (every frame is written)"), std::string::npos) << again.err;
}

TEST(Farm, AFrameNoLineRecordsIsKeptOnlyWhereARunOfThisSceneWasToWriteIt) {
  // Its file says nothing of the seed or look that made it: a frame of seed
  // 5 without its line was kept by a resume with seed 99 and booked under it,
  // and verify passed the mixed folder; so was every frame of a folder whose
  // manifest was removed, resumed with another exposure.
  TempDir dir("unrecorded");
  const std::string render = "render " + kSleet + kFarmSize + "--frames 1-3 -o " + q(dir / "a/f_####.png");
  ASSERT_EQ(run_fxsim(render).exit_code, 0);
  const std::string seeded = read_text_file(dir / "a" / frame_name(3));
  std::string lines;
  std::istringstream manifest(read_text_file(dir / "a/fxsim-manifest.jsonl"));
  for (std::string line; std::getline(manifest, line);)
    if (line.find("\"frame\":3,") == std::string::npos) lines += line + "\n";
  write_text_file(dir / "a/fxsim-manifest.jsonl", lines);
  const CliResult reseeded = run_fxsim(render + " --seed 99 --skip-existing");
  ASSERT_EQ(reseeded.exit_code, 0) << reseeded.err;
  EXPECT_NE(read_text_file(dir / "a" / frame_name(3)), seeded) << "frame 3 of the first seed was kept";
  EXPECT_EQ(run_fxsim("verify " + q(dir / "a")).exit_code, 0);
  // No manifest: nothing says who wrote the frames, so all are drawn again.
  const std::string other = "render " + kSleet + kFarmSize + "--frames 1-2 -o " + q(dir / "b/f_####.png");
  ASSERT_EQ(run_fxsim(other).exit_code, 0);
  fs::remove(dir / "b/fxsim-manifest.jsonl");
  const std::string dimmer = read_text_file(dir / "b" / frame_name(2));
  const CliResult relit = run_fxsim(other + " --set /camera/exposure=2 --skip-existing");
  ASSERT_EQ(relit.exit_code, 0) << relit.err;
  EXPECT_NE(read_text_file(dir / "b" / frame_name(2)), dimmer) << "frame 2 of exposure 0 was kept";
  EXPECT_EQ(run_fxsim("verify " + q(dir / "b")).exit_code, 0);
  // verify names such a frame once: its layer's file is not also a stray.
  const std::string layered = "render " + kSleet + kFarmSize + "--frames 1-2 --set '/output/layers=[\"depth\"]' -o " +
                              q(dir / "c/f_####.png");
  ASSERT_EQ(run_fxsim(layered).exit_code, 0);
  std::string kept;
  std::istringstream c_manifest(read_text_file(dir / "c/fxsim-manifest.jsonl"));
  for (std::string line; std::getline(c_manifest, line);)
    if (line.find("\"frame\":2,") == std::string::npos) kept += line + "\n";
  write_text_file(dir / "c/fxsim-manifest.jsonl", kept);
  fs::copy_file(dir / "c/f_0001.depth.png", dir / "c/f_0009.depth.png");  // a frame no run was to write
  const CliResult once = run_fxsim("verify " + q(dir / "c"));
  EXPECT_EQ(once.exit_code, 1);
  EXPECT_NE(once.out.find("frame 2 has no record: the file is there"), std::string::npos) << once.out;
  EXPECT_EQ(once.out.find("f_0002.depth.png"), std::string::npos) << once.out;
  EXPECT_NE(once.out.find("f_0009.depth.png: a layer file beside the frames that no record lists"), std::string::npos)
      << once.out;
}

TEST(Farm, VerifyFindsMissingTruncatedAndCorruptFrames) {
  TempDir dir("verify");
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1-6 -o " + q(dir / "f_####.png")).exit_code, 0);
  ASSERT_EQ(run_fxsim("verify " + q(dir.path())).exit_code, 0);
  fs::remove(dir / frame_name(5));
  std::string third = read_text_file(dir / frame_name(3));
  write_text_file(dir / frame_name(3), third.substr(0, third.size() / 2));  // truncated
  std::string second = read_text_file(dir / frame_name(2));
  second[second.size() / 2] = char(second[second.size() / 2] ^ 1);  // one bit, same size
  write_text_file(dir / frame_name(2), second);
  // The same bytes, but through a link.
  TempDir elsewhere("verify-elsewhere");
  fs::rename(dir / frame_name(4), elsewhere / frame_name(4));
  fs::create_symlink(elsewhere / frame_name(4), dir / frame_name(4));
  const CliResult v = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("missing: f_0005.png: frame 5: the file is missing"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("corrupt: f_0003.png: frame 3: "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("(truncated?)"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("corrupt: f_0002.png: frame 2: its SHA-256 is not the one recorded"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("corrupt: f_0004.png: frame 4: a symbolic link stands there"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("1 missing, 3 corrupt, 0 mismatched"), std::string::npos) << v.out;
  // A folder of the pattern (v/####/f.png) linked elsewhere: the frame read as whole.
  TempDir nested("verify-nested");
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1-2 -o " + q(nested / "####/f.png")).exit_code, 0);
  fs::rename(nested / "0001", elsewhere / "0001");
  fs::create_symlink(elsewhere / "0001", nested / "0001");
  const CliResult linked = run_fxsim("verify " + q(nested.path()));
  EXPECT_EQ(linked.exit_code, 1) << linked.out;
  EXPECT_NE(linked.out.find("corrupt: 0001/f.png: frame 1: reached through"), std::string::npos) << linked.out;
  // --skip-existing does not count the link as written: the render comes to it, and will not replace it.
  const CliResult resume = run_fxsim("render " + kSleet + kFarmSize + "--frames 4 --skip-existing -o " + q(dir / "f_####.png"));
  EXPECT_EQ(resume.exit_code, 73) << resume.err;
  EXPECT_NE(resume.err.find("f_0004.png: exists and is a symbolic link"), std::string::npos) << resume.err;
  EXPECT_TRUE(fs::is_symlink(dir / frame_name(4)));
  // A frame a run was to write and never did (a run stopped before frame 8: its run line, no frame line).
  std::istringstream lines(read_text_file(dir / "fxsim-manifest.jsonl"));
  std::string first_line;
  std::getline(lines, first_line);
  auto run = nlohmann::json::parse(first_line);
  run["run"] = "stopped-run";
  run["frames"] = {8};
  write_text_file(dir / "fxsim-manifest.jsonl", read_text_file(dir / "fxsim-manifest.jsonl") + run.dump() + "\n");
  const CliResult v2 = run_fxsim("verify " + q(dir.path()));
  EXPECT_NE(v2.out.find("f_0008.png: frame 8 has no record (never written)"), std::string::npos) << v2.out;
  // A frame file of the pattern no run was to write (a video or a glob takes
  // it in), and a record edited to another frame: both passed.
  fs::copy_file(dir / frame_name(1), dir / frame_name(99));
  fs::copy_file(dir / frame_name(1), dir / "f_0099.plate.png");  // a layer's file beside them: not found
  write_text_file(dir / "f_0007.png.fxsim-partial-12345", "");     // a render's temporary file: not a layer
  std::string manifest_text = read_text_file(dir / "fxsim-manifest.jsonl");
  const size_t at = manifest_text.find("\"frame\":6,");
  ASSERT_NE(at, std::string::npos) << manifest_text;
  manifest_text.replace(at, 10, "\"frame\":3,");
  write_text_file(dir / "fxsim-manifest.jsonl", manifest_text);
  const CliResult edited = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(edited.exit_code, 1);
  EXPECT_NE(edited.out.find("mismatched: f_0099.png: a frame file no run of the manifest was to write"), std::string::npos)
      << edited.out;
  EXPECT_NE(edited.out.find("mismatched: f_0099.plate.png: a layer file beside the frames that no record lists"),
            std::string::npos) << edited.out;
  EXPECT_EQ(edited.out.find("fxsim-partial"), std::string::npos) << edited.out;
  EXPECT_NE(edited.out.find("corrupt: f_0003.png: frame 3: its record names f_0006.png as its image"), std::string::npos)
      << edited.out;
  // Records edited by hand are each named once, as corrupt, not also as a
  // frame without a record: one listing no files ("names no known run"
  // before), one naming a file outside the folder, and a run line edited to
  // fewer frames (which hid the frames it dropped).
  const std::string whole = read_text_file(dir / "fxsim-manifest.jsonl");
  const auto verify_edited = [&](const std::string& from, const std::string& to) {
    std::string text = whole;
    const size_t where = text.find(from);
    EXPECT_NE(where, std::string::npos) << from;
    if (where != std::string::npos) text.replace(where, from.size(), to);
    write_text_file(dir / "fxsim-manifest.jsonl", text);
    const CliResult r = run_fxsim("verify " + q(dir.path()));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    return r.out;
  };
  const std::string first_file = "[{\"bytes\":" + std::to_string(fs::file_size(dir / frame_name(1)));
  std::string said = verify_edited(first_file, "[],\"x\":" + first_file);
  EXPECT_NE(said.find("corrupt: f_0001.png: frame 1: its record lists no files"), std::string::npos) << said;
  EXPECT_EQ(said.find("frame 1 has no record"), std::string::npos) << said;
  said = verify_edited("\"file\":\"f_0001.png\"", "\"file\":\"../f_0001.png\"");
  EXPECT_NE(said.find("corrupt: f_0001.png: frame 1: its record names ../f_0001.png, outside the folder"),
            std::string::npos) << said;
  EXPECT_EQ(said.find("frame 1 has no record"), std::string::npos) << said;
  said = verify_edited("\"frames\":[1,2,3,4,5,6]", "\"frames\":[2,3,4,5,6]");
  EXPECT_NE(said.find("corrupt: f_0001.png: frame 1: its record's run "), std::string::npos) << said;
  EXPECT_NE(said.find("was not to write it"), std::string::npos) << said;
  EXPECT_EQ(said.find("f_0001.png: a frame file no run"), std::string::npos) << said;
  // Numbers out of range were read as wrapped ints: "the run's frames are -2147483648x…", a frame 2^63 as frame 0.
  said = verify_edited("\"width\":96", "\"width\":1e30");
  EXPECT_NE(said.find("line 1: \"width\" is 1e+30, not a whole number in 1..16384"), std::string::npos) << said;
  said = verify_edited("\"frames\":[1,", "\"frames\":[9223372036854775808,");
  EXPECT_NE(said.find("a frame is 9223372036854775808, not a whole number in 1..10000000"), std::string::npos) << said;
  said = verify_edited("\"width\":96", "\"width\":0");  // (JSON's 0 is unsigned: only the upper bound was checked)
  EXPECT_NE(said.find("\"width\" is 0, not a whole number in 1..16384"), std::string::npos) << said;
  said = verify_edited("\"frames\":[1,2,3,4,5,6]", "\"frames\":{\"a\":1}");  // an object's values were iterated
  EXPECT_NE(said.find("\"frames\" is {\"a\":1}, not a list of frames"), std::string::npos) << said;
  said = verify_edited("\"frames\":[1,2,3,4,5,6]", "\"selection\":\"1-0\",\"frames\":[1,2,3,4,5,6]");
  EXPECT_NE(said.find("line 1: \"selection\" is \"1-0\", not a selection of frames"), std::string::npos) << said;
  write_text_file(dir / "fxsim-manifest.jsonl", whole);
  TempDir empty("verify-empty");
  EXPECT_EQ(run_fxsim("verify " + q(empty.path())).exit_code, 66);
  // An empty manifest (cut short before its first line) vouches for nothing.
  write_text_file(empty / "fxsim-manifest.jsonl", "");
  const CliResult v3 = run_fxsim("verify " + q(empty.path()));
  EXPECT_EQ(v3.exit_code, 1) << v3.out;
  EXPECT_NE(v3.out.find("fxsim-manifest.jsonl: it records no run"), std::string::npos) << v3.out;
  // A damaged line is named without the JSON library's own prefix.
  write_text_file(empty / "fxsim-manifest.jsonl", "{\"type\": \"run\", bad\n");
  const CliResult v4 = run_fxsim("verify " + q(empty.path()));
  EXPECT_EQ(v4.exit_code, 1) << v4.out;
  EXPECT_NE(v4.out.find("fxsim-manifest.jsonl: line 1: parse error at line 1"), std::string::npos) << v4.out;
  EXPECT_EQ(v4.out.find("json.exception"), std::string::npos) << v4.out;
}

TEST(Farm, FramesOfAnotherSceneAreDrawnAgainAndOnlyTheFramesThereCount) {
  TempDir dir("reseed");
  const std::string render = "render " + kSleet + kFarmSize + "-o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render + " --frames 1-4").exit_code, 0);
  // --skip-existing kept frames 1-4 of the first seed beside 5-6 of the new
  // one, exit 0: a shot that flickers at frame 5.
  const CliResult resume = run_fxsim(render + " --frames 1-6 --seed 6 --skip-existing");
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  // Every frame there is now of one scene (verify said two for ever after, also
  // once every frame was drawn again).
  const CliResult v = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(v.exit_code, 0) << v.out;
  // Frames of two scenes side by side are still found.
  ASSERT_EQ(run_fxsim(render + " --frames 5-6 --seed 7").exit_code, 0);
  const CliResult mixed = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(mixed.exit_code, 1) << mixed.out;
  EXPECT_NE(mixed.out.find("the folder holds frames of 2 different scenes"), std::string::npos) << mixed.out;
  // Each scene named with its runs (one file, other seeds: the runs of one
  // name were listed together, "2 scenes" beside three runs).
  const size_t first = mixed.out.find("sleet.json (scene ");
  ASSERT_NE(first, std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("; ", first), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("sleet.json (scene ", first + 1), std::string::npos) << mixed.out;
  // The same simulation with another look (exposure, background, fog): kept
  // by --skip-existing and passed by verify, a shot that changes at frame 3.
  TempDir looks("relook");
  const std::string again = "render " + kSleet + kFarmSize + "-o " + q(looks / "f_####.png");
  ASSERT_EQ(run_fxsim(again + " --frames 1-2").exit_code, 0);
  const std::string brighter = " --set /camera/exposure=3 --set '/output/background=\"#ff0000\"'";
  ASSERT_EQ(run_fxsim(again + " --frames 3-4" + brighter).exit_code, 0);
  const CliResult two_looks = run_fxsim("verify " + q(looks.path()));
  EXPECT_EQ(two_looks.exit_code, 1) << two_looks.out;
  EXPECT_NE(two_looks.out.find("the folder holds frames of 2 different looks of one simulation"), std::string::npos)
      << two_looks.out;
  ASSERT_EQ(run_fxsim(again + " --frames 1-4 --skip-existing" + brighter).exit_code, 0);
  EXPECT_EQ(run_fxsim("verify " + q(looks.path())).exit_code, 0);
}

TEST(Farm, ADamagedCheckpointIsWrittenAgainAndAFifoNeverBlocks) {
  TempDir dir("checkpoint_repair");
  const std::string simulate = "render " + kSleet + kFarmSize + "--frames 8 --simulate-only --checkpoint-every 4 --checkpoints ";
  const CliResult first = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 8 --simulate-only "
                                    "--checkpoint-every 4 --checkpoints " + q(dir / "ck"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // A folder not filled yet is no news: the note said each checkpoint was "missing or damaged".
  EXPECT_EQ(first.err.find("missing or damaged"), std::string::npos) << first.err;
  const fs::path eighth = dir / "ck/checkpoint_000008.fxck";
  const std::string whole = read_text_file(eighth);
  // Cut short, header intact: it was kept as "made by an earlier run" for
  // ever, and every later render fell back past it.
  write_text_file(eighth, whole.substr(0, whole.size() / 2));
  ASSERT_EQ(run_fxsim(simulate + q(dir / "ck")).exit_code, 0);
  EXPECT_EQ(read_text_file(eighth), whole);
  // One before the last, damaged: the run said "nothing to simulate" from
  // the last one and left it so.
  const fs::path fourth = dir / "ck/checkpoint_000004.fxck";
  const std::string fourth_whole = read_text_file(fourth);
  std::string flipped = fourth_whole;
  flipped[flipped.size() - 100] = char(flipped[flipped.size() - 100] ^ 1);
  write_text_file(fourth, flipped);
  const CliResult repaired = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 8 --simulate-only "
                                       "--checkpoint-every 4 --checkpoints " + q(dir / "ck"));
  EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
  EXPECT_NE(repaired.err.find("the checkpoint of frame 4 is missing or damaged"), std::string::npos) << repaired.err;
  EXPECT_NE(repaired.out.find("simulated frames 1-4 "), std::string::npos) << repaired.out;  // not on to 8, which is there
  EXPECT_EQ(read_text_file(fourth), fourth_whole);
  EXPECT_EQ(read_text_file(eighth), whole);
  // A copy of another frame's under its name: kept as this frame's before.
  fs::copy_file(fourth, eighth, fs::copy_options::overwrite_existing);
  const CliResult copied = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 8 --simulate-only "
                                     "--checkpoint-every 4 --checkpoints " + q(dir / "ck"));
  EXPECT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_NE(copied.err.find("the checkpoint of frame 8 is missing or damaged (or of another frame)"), std::string::npos)
      << copied.err;
  EXPECT_EQ(read_text_file(eighth), whole);
  // All of them there: nothing to simulate (from frames 1-10 it simulated
  // from time 0 to frame 10 again, writing none); one missing in the middle
  // is simulated to from the one before it, not from time 0.
  const CliResult all_there = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 1-10 --simulate-only "
                                        "--checkpoint-every 4 --checkpoints " + q(dir / "ck"));
  EXPECT_EQ(all_there.exit_code, 0) << all_there.err;
  EXPECT_NE(all_there.out.find("nothing to simulate: the checkpoint of frame 8 is there already"), std::string::npos)
      << all_there.out;
  fs::remove(dir / "ck/checkpoint_000008.fxck");
  const CliResult gap = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 1-10 --simulate-only "
                                  "--checkpoint-every 4 --checkpoints " + q(dir / "ck"));
  EXPECT_EQ(gap.exit_code, 0) << gap.err;
  EXPECT_NE(gap.out.find("simulated frames 5-8 "), std::string::npos) << gap.out;
  EXPECT_EQ(read_text_file(eighth), whole);
  // Another scene's checkpoints are replaced, saying so.
  const CliResult other = run_fxsim("render " + kSleet + " --width 96 --height 54 --frames 8 --simulate-only "
                                    "--checkpoint-every 4 --seed 9 --checkpoints " + q(dir / "ck"));
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("replacing checkpoint " + eighth.string() + ", of another scene"), std::string::npos)
      << other.err;
  // A FIFO where a checkpoint or the manifest is read: refused, not waited on.
  fs::create_directories(dir / "fifo");
  ASSERT_EQ(mkfifo((dir / "fifo/checkpoint_000004.fxck").c_str(), 0600), 0);
  const CliResult fifo = run_fxsim(simulate + q(dir / "fifo"), "timeout 30");
  EXPECT_EQ(fifo.exit_code, 73) << fifo.err;
  EXPECT_NE(fifo.err.find("exists and is a FIFO"), std::string::npos) << fifo.err;
  ASSERT_EQ(mkfifo((dir / "fifo/fxsim-manifest.jsonl").c_str(), 0600), 0);
  const CliResult verify = run_fxsim("verify " + q(dir / "fifo"), "timeout 30");
  EXPECT_EQ(verify.exit_code, 66) << verify.err;
  EXPECT_NE(verify.err.find("fxsim-manifest.jsonl: not a regular file"), std::string::npos) << verify.err;
}

TEST(Farm, VerifyNamesAFifoInAFramesPlaceAndANegativeSize) {
  TempDir dir("verify_odd");
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1-3 -o " + q(dir / "f_####.png")).exit_code, 0);
  fs::remove(dir / frame_name(2));
  ASSERT_EQ(mkfifo((dir / frame_name(2)).c_str(), 0600), 0);  // "the file is missing", it said
  std::istringstream lines(read_text_file(dir / "fxsim-manifest.jsonl"));
  std::string manifest;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"frame\":3,") != std::string::npos) {
      auto record = nlohmann::json::parse(line);
      record["files"][0]["bytes"] = -5;  // was printed as 18446744073709551611
      line = record.dump();
    }
    manifest += line + "\n";
  }
  write_text_file(dir / "fxsim-manifest.jsonl", manifest);
  const CliResult v = run_fxsim("verify " + q(dir.path()), "timeout 30");
  EXPECT_EQ(v.exit_code, 1) << v.out;
  EXPECT_NE(v.out.find("corrupt: f_0002.png: frame 2: not a regular file stands there"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("a file's \"bytes\" is not a count of bytes"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("18446744073709"), std::string::npos) << v.out;
}

TEST(Farm, SimulateOnlyAndDevicesAreCheckedAndDevicesRunOneShardEach) {
  TempDir dir("devices");
  const CliResult no_every = run_fxsim("render " + kSleet + " --simulate-only -o " + q(dir / "x/f_####.png"));
  EXPECT_EQ(no_every.exit_code, 64);
  EXPECT_NE(no_every.err.find("--checkpoint-every"), std::string::npos) << no_every.err;
  // Nothing to save: it said "0 checkpoints written", exit 0.
  const CliResult none = run_fxsim("render " + kSleet + " --frames 1-4 --simulate-only --checkpoint-every 7 --checkpoints " +
                                   q(dir / "ck"));
  EXPECT_EQ(none.exit_code, 64) << none.err;
  EXPECT_NE(none.err.find("would write no checkpoint: give N of at most 4"), std::string::npos) << none.err;
  // A shard's frames are where its stepping ends, not what it writes: the
  // log said "frames 3-4" and then "checkpoint of frame 2 written".
  const CliResult shard = run_fxsim("render " + kSleet + " --frames 1-4 --shard 2/2 --simulate-only --checkpoint-every 2 "
                                    "--checkpoints " + q(dir / "ck"));
  EXPECT_EQ(shard.exit_code, 0) << shard.err;
  EXPECT_NE(shard.err.find("frames 3-4 (2); --simulate-only draws none: it steps to frame 4, writing every checkpoint"),
            std::string::npos) << shard.err;
  EXPECT_NE(shard.out.find("simulated frames 1-4"), std::string::npos) << shard.out;
  EXPECT_TRUE(fs::exists(dir / "ck/checkpoint_000002.fxck"));
  fs::remove_all(dir / "ck");
  EXPECT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1 --checkpoints '' -o " + q(dir / "e/f_#.png")).exit_code, 64);
  EXPECT_FALSE(fs::exists(dir / "ck"));
  EXPECT_FALSE(fs::exists(dir / "e"));
  ASSERT_EQ(run_fxsim("render " + kSleet + kFarmSize + "--frames 1-6 -o " + q(dir / "full/f_####.png")).exit_code, 0);
  // Two shards on device 0 (the machine's one device: llvmpipe in CI).
  const CliResult r = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --frames 1-6 --devices 0,0 -o " +
                                q(dir / "dev/f_####.png"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("shard 2/2 on device 0"), std::string::npos) << r.err;
  expect_same_frames(dir / "full", dir / "dev", 1, 6);
  EXPECT_EQ(run_fxsim("verify " + q(dir / "dev")).exit_code, 0);
  // A Slurm array task's shard split across its devices: task 2 of 3 renders
  // frames 3-4 alone, as shards 3/6 and 4/6 (each task rendered every frame).
  const CliResult task = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --frames 1-6 "
                                   "--devices 0,0 -o " + q(dir / "task/f_####.png"),
                                   "env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=3");
  ASSERT_EQ(task.exit_code, 0) << task.err;
  EXPECT_NE(task.err.find("shard 4/6 on device 0 (of SLURM_ARRAY_TASK_ID=2 of 1-3, shard 2/3)"), std::string::npos)
      << task.err;
  for (int f = 1; f <= 6; ++f) EXPECT_EQ(fs::exists(dir / "task" / frame_name(f)), f == 3 || f == 4) << f;
  expect_same_frames(dir / "full", dir / "task", 3, 4);
  // A Kubernetes Indexed Job's the same way (its --shard-count is not passed on beside --shard).
  const CliResult pod = run_fxsim("render " + kSleet + " --width 96 --height 54 --progress none --frames 1-6 "
                                  "--shard-count 3 --devices 0,0 -o " + q(dir / "pod/f_####.png"),
                                  "env JOB_COMPLETION_INDEX=0");
  ASSERT_EQ(pod.exit_code, 0) << pod.err;
  for (int f = 1; f <= 6; ++f) EXPECT_EQ(fs::exists(dir / "pod" / frame_name(f)), f <= 2) << f;
  // More shards than --shard takes: refused here, not by each child (64, naming a --shard never given).
  const CliResult many = run_fxsim("render " + kSleet + kFarmSize + "--devices 0,0 -o " + q(dir / "many/f_####.png"),
                                   "env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=600000");
  EXPECT_EQ(many.exit_code, 64) << many.err;
  EXPECT_NE(many.err.find("are 1200000 shards, more than the 1000000"), std::string::npos) << many.err;
  EXPECT_FALSE(fs::exists(dir / "many"));
  // The scene on standard input is read once: no shard had it (65, "not valid JSON").
  const CliResult piped = run_fxsim("render - --frames 1-2 --devices 0,0 -o " + q(dir / "in/f_####.png"), "", kSleet);
  EXPECT_EQ(piped.exit_code, 64) << piped.err;
  EXPECT_NE(piped.err.find("a scene on standard input can be read once"), std::string::npos) << piped.err;
  EXPECT_FALSE(fs::exists(dir / "in"));
  EXPECT_EQ(run_fxsim("render " + kSleet + " --devices 0,x -o " + q(dir / "y/f_####.png")).exit_code, 64);
  // A device that is not there: refused before any shard writes a frame.
  const CliResult missing = run_fxsim("render " + kSleet + kFarmSize + "--frames 1-4 --devices 0,99 -o " + q(dir / "z/f_####.png"));
  EXPECT_EQ(missing.exit_code, 69) << missing.err;
  EXPECT_NE(missing.err.find("--devices 0,99: there is no EGL device 99"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir / "z"));
  // One file of every frame: each shard wrote it whole and the last to end
  // won (a video of 3 frames of 6, statistics of frames 3-4 of 1-4), exit 0.
  for (const std::string& output : {"-o " + q(dir / "v.mp4"), "-o " + q(dir / "w/f_####.png") + " --video " + q(dir / "w.mp4"),
                                    "-o " + q(dir / "w/f_####.png") + " --stats " + q(dir / "s.jsonl"),
                                    "-o " + q(dir / "w/f_####.png") + " --state-hashes -"}) {
    const CliResult whole = run_fxsim("render " + kSleet + kFarmSize + "--frames 1-6 --devices 0,0 " + output);
    EXPECT_EQ(whole.exit_code, 64) << output << whole.err;
    EXPECT_NE(whole.err.find("one file of every frame"), std::string::npos) << whole.err;
  }
  for (const char* file : {"v.mp4", "w", "w.mp4", "s.jsonl"}) EXPECT_FALSE(fs::exists(dir / file)) << file;
}

TEST(Farm, SkipExistingWritesAgainAFileThatIsNotAsRecordedAndVerifyThenPasses) {
  // A byte appended to a layer: it still decodes at the right size, so
  // --skip-existing kept it, and verify called it corrupt for ever.
  TempDir dir("skip_damaged");
  const std::string render = "render '" FXSIM_SOURCE_DIR "/scenes/rain-over-plate.json' --frames 1-3 -q -o " +
                             q(dir / "r_####.png");
  ASSERT_EQ(run_fxsim(render).exit_code, 0);
  { std::ofstream(dir / "r_0002.depth.png", std::ios::app) << 'x'; }
  const CliResult damaged = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(damaged.exit_code, 1);
  EXPECT_NE(damaged.out.find("r_0002.depth.png: frame 2: "), std::string::npos) << damaged.out;
  EXPECT_NE(damaged.out.find("(written to since?)"), std::string::npos) << damaged.out;  // longer: not "truncated"
  const CliResult resumed = run_fxsim(render + " --skip-existing --progress none");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(run_fxsim("verify " + q(dir.path())).exit_code, 0);
}

TEST(Farm, ARecordWhoseRunLineIsGoneIsDrawnAgainAndVerifyThenPasses) {
  // Its run line edited away, a frame's record says of no scene: verify
  // called it corrupt, --skip-existing kept the frame, and verify still
  // failed on the old line after any repair.
  TempDir dir("skip_orphan");
  const std::string render = "render " + kSleet + " --width 48 --height 27 --frames 1-3 -q -o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render).exit_code, 0);
  std::string manifest = read_text_file(dir / "fxsim-manifest.jsonl");
  manifest.erase(0, manifest.find('\n') + 1);  // the run line
  write_text_file(dir / "fxsim-manifest.jsonl", manifest);
  const CliResult orphaned = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(orphaned.exit_code, 1);
  EXPECT_NE(orphaned.out.find("corrupt: frame 2: its record names no known run"), std::string::npos) << orphaned.out;
  const CliResult resumed = run_fxsim(render + " --skip-existing --progress none");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  // Drawn again and recorded: three records more, of the new run.
  const std::string after = read_text_file(dir / "fxsim-manifest.jsonl");
  size_t records = 0;
  for (size_t at = 0; (at = after.find("\"type\":\"frame\"", at)) != std::string::npos; ++at) ++records;
  EXPECT_EQ(records, 6u) << after;
  const CliResult repaired = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(repaired.exit_code, 0) << repaired.out;  // the old lines superseded by the frames' new records
}

TEST(Farm, VerifyChecksAFrameDrawnAgainAtTheSizeOfTheRunThatDrewItLast) {
  TempDir dir("verify_sizes");
  ASSERT_EQ(run_fxsim("render " + kSleet + " --width 64 --height 36 -q --frames 1-2 -o " + q(dir / "f_####.png")).exit_code, 0);
  ASSERT_EQ(run_fxsim("render " + kSleet + " --width 80 --height 36 -q --frames 2 -o " + q(dir / "f_####.png")).exit_code, 0);
  const CliResult r = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(r.out.find("the run's frames are 64x36"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("corrupt:"), std::string::npos) << r.out;
  // A sequence of mixed sizes is no one dataset: mismatched.
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("mismatched: the folder's frames are of 2 sizes: 64x36 (1 frame, f_0001.png first), 80x36 (1 "
                       "frame, f_0002.png first)"),
            std::string::npos)
      << r.out;
  // Frame 1 drawn again at the new size: one size again.
  ASSERT_EQ(run_fxsim("render " + kSleet + " --width 80 --height 36 -q --frames 1 -o " + q(dir / "f_####.png")).exit_code, 0);
  const CliResult again = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

TEST(Farm, ARenderWhoseFramesGoElsewhereSaysWhereTheCheckpointsAre) {
  // --simulate-only without -o put them beside the scene's output.path; a
  // render with -o looks beside its own frames, finds none, and starts at 0.
  TempDir dir("checkpoints_elsewhere");
  write_text_file(dir / "s.json", R"({"fxsim": 1, "output": {"width": 16, "height": 9, "path": "scn/f_####.png"},
    "emitters": [{"type": "snow", "max_particles": 100}]})");
  const std::string scene = q(dir / "s.json");
  ASSERT_EQ(run_fxsim("render " + scene + " --frames 12 --simulate-only --checkpoint-every 6 -q", "cd " + q(dir.path()) + " &&")
                .exit_code, 0);
  ASSERT_TRUE(fs::exists(dir / "scn/checkpoints/checkpoint_000012.fxck"));
  const CliResult r = run_fxsim("render " + scene + " --frames 7-8 --progress none -o out2/f_####.png", "cd " + q(dir.path()) + " &&");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: no checkpoint in out2/checkpoints, so the simulation starts at frame 0; scn/checkpoints"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("give --checkpoints scn/checkpoints"), std::string::npos) << r.err;
  const CliResult named = run_fxsim("render " + scene + " --frames 7-8 --progress none --checkpoints scn/checkpoints -o out3/f_####.png",
                                    "cd " + q(dir.path()) + " &&");
  EXPECT_NE(named.err.find("starting from checkpoint scn/checkpoints/checkpoint_000006.fxck"), std::string::npos) << named.err;
  // Said under -q too (it was not: farm jobs run quiet); not said where none
  // there could serve (frames before the first checkpoint, another scene).
  const CliResult quiet = run_fxsim("render " + scene + " --frames 7-8 -q -o out4/f_####.png", "cd " + q(dir.path()) + " &&");
  EXPECT_NE(quiet.err.find("warning: no checkpoint in out4/checkpoints"), std::string::npos) << quiet.err;
  const CliResult early = run_fxsim("render " + scene + " --frames 3-4 -q -o out5/f_####.png", "cd " + q(dir.path()) + " &&");
  EXPECT_EQ(early.err.find("no checkpoint in"), std::string::npos) << early.err;
  const CliResult other = run_fxsim("render " + scene + " --frames 7-8 -q --seed 9 -o out6/f_####.png",
                                    "cd " + q(dir.path()) + " &&");
  EXPECT_EQ(other.err.find("no checkpoint in"), std::string::npos) << other.err;
  // A folder named that is not there (a slip: scn/checkpoint): every shard started at 0 without a word.
  const CliResult slip = run_fxsim("render " + scene + " --frames 7-8 -q --checkpoints scn/checkpoint -o out7/f_####.png",
                                   "cd " + q(dir.path()) + " &&");
  EXPECT_EQ(slip.exit_code, 0) << slip.err;
  EXPECT_NE(slip.err.find("warning: --checkpoints scn/checkpoint: no such folder, so the simulation starts at frame 0"),
            std::string::npos) << slip.err;
}

TEST(Farm, AManifestWhoseLastLineHasNoEndIsAppendedToOnANewLine) {
  // An editor that drops the final newline, or a write cut short: the next
  // render's run line was glued to the last frame's record, and verify then
  // reported frames missing, runs unknown and files mismatched.
  TempDir dir("manifest_end");
  const std::string render = "render '" + kSleet + "'" + kFarmSize + "-o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render + " --frames 1-3").exit_code, 0);
  const fs::path manifest = dir / "fxsim-manifest.jsonl";
  fs::resize_file(manifest, fs::file_size(manifest) - 1);
  ASSERT_EQ(run_fxsim("verify " + q(dir.path())).exit_code, 0);
  ASSERT_EQ(run_fxsim(render + " --frames 4-5").exit_code, 0);
  const CliResult verified = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(verified.exit_code, 0) << verified.out;
  const std::string text = read_text_file(manifest);
  EXPECT_EQ(text.find("}{"), std::string::npos) << text;
}

TEST(Farm, AnInterruptOfDevicesStopsEveryShardAfterItsFrame) {
  // SIGTERM to the parent of --devices killed it alone: its shards, each in
  // a process group of its own, went on writing frames as orphans, and their
  // temporary files for messages were left. Now each shard is told and waited
  // for; 143; no shard left, no temporary file, and a resume completes it.
  // (120 frames: about 4 s here, interrupted after the second; the resume
  // renders the rest, which at 400 frames took 166 s in the sanitized suite.)
  TempDir dir("devices_interrupt");
  fs::create_directories(dir / "tmp");
  const std::string out = (dir / "out/f_####.png").string();
  // (TMPDIR for the whole script: the shards' temporary files go there.)
  setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  const std::string args = "'" + kSleet + "' --width 48 --height 27 --frames 1-120 --progress none --devices 0,0 -o '" +
                           out + "' 2>'" + (dir / "err").string() + "'";
  const int status = render_and_when_written(args,
                                             dir / "out/f_0002.png", 60, "kill -TERM $pid", dir / "interrupt.sh");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143) << read_text_file(dir / "err");
  EXPECT_NE(read_text_file(dir / "err").find("terminated (SIGTERM)"), std::string::npos) << read_text_file(dir / "err");
  const auto files = [&] { return std::distance(fs::directory_iterator(dir / "out"), fs::directory_iterator()); };
  const auto written = files();
  EXPECT_LT(written, 120);
  // No shard goes on: nothing is added, no process renders into the folder.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(files(), written);
  EXPECT_NE(run_command("pgrep -f '[r]ender .*" + out + "'").exit_code, 0);  // ([r]: not pgrep's own command line)
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));
  unsetenv("TMPDIR");
  for (const auto& entry : fs::directory_iterator(dir / "out"))
    EXPECT_EQ(entry.path().string().find("fxsim-partial"), std::string::npos) << entry.path();
  const CliResult resumed = run_fxsim("render '" + kSleet + "' --width 48 --height 27 --frames 1-120 --progress none "
                                      "--devices 0,0 --skip-existing -q -o '" + out + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(run_fxsim("verify " + q(dir / "out")).exit_code, 0);
  // A shard killed (by the system, say) ends the run as a signal ends a
  // render, 128 + N, and says so; it exited 255, which no table lists.
  const std::string killed = (dir / "killed/f_####.png").string();
  const int killed_status = render_and_when_written(
      "'" + kSleet + "' --width 48 --height 27 --frames 1-60 --progress none --devices 0,0 -o '" + killed + "' 2>'" +
          (dir / "killed_err").string() + "'",
      dir / "killed/f_0002.png", 60, "pkill -KILL -f '[r]ender .*" + killed + ".*--shard 2/2'", dir / "kill.sh");
  ASSERT_TRUE(WIFEXITED(killed_status));
  EXPECT_EQ(WEXITSTATUS(killed_status), 137) << read_text_file(dir / "killed_err");
  EXPECT_NE(read_text_file(dir / "killed_err").find("the shard on device 0 ended (killed by SIGKILL)"), std::string::npos)
      << read_text_file(dir / "killed_err");
}

TEST(Farm, AStatisticsFileWhereACheckpointIsWrittenIsRefused) {
  // --stats naming a checkpoint the render writes: the statistics were
  // replaced by the checkpoint, exit 0.
  TempDir dir("stats_checkpoint");
  for (const std::string what : {"--stats", "--state-hashes"}) {
    const CliResult r = run_fxsim("render '" + kSleet + "'" + kFarmSize + "--frames 1-2 --checkpoint-every 1 -o " +
                                  q(dir / "ly/f_####.png") + " " + what + " " + q(dir / "ly/checkpoints/checkpoint_000001.fxck"));
    EXPECT_EQ(r.exit_code, 64) << what << r.err;
    EXPECT_NE(r.err.find("that is where the render writes its checkpoints"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "ly")) << what;
  }
  // Beside its checkpoints, a file of its own is fine.
  EXPECT_EQ(run_fxsim("render '" + kSleet + "'" + kFarmSize + "--frames 1-2 --checkpoint-every 1 -o " + q(dir / "ly/f_####.png") +
                      " --stats " + q(dir / "ly/checkpoints/stats.jsonl")).exit_code, 0);
}

TEST(Farm, AnEmitterNamedWithAHashHasItsMaskFoundAndCheckedByItsOwnName) {
  // "r#": the mask is written as f_0001.mask.r#.png, but the checks read the
  // '#' as the frame number: --skip-existing drew whole frames again every
  // time, and a folder in a later frame's mask's place was found only after
  // the frames before it were written (73).
  TempDir dir("hash_name");
  const std::string run = "render " + kSleet + kFarmSize + "--frames 1-3 --set '/output/layers=[\"mask\"]' "
                          "--set /emitters/0/name=r# -o " + q(dir / "out/f_####.png");
  ASSERT_EQ(run_fxsim(run).exit_code, 0);
  ASSERT_TRUE(fs::exists(dir / "out/f_0002.mask.r#.png"));
  const std::string manifest = read_text_file(dir / "out/fxsim-manifest.jsonl");
  const CliResult again = run_fxsim(run + " --skip-existing");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text_file(dir / "out/fxsim-manifest.jsonl"), manifest) << "frames drawn again";
  fs::create_directories(dir / "late/f_0003.mask.r#.png");
  const CliResult blocked = run_fxsim("render " + kSleet + kFarmSize + "--frames 1-3 --set '/output/layers=[\"mask\"]' "
                                      "--set /emitters/0/name=r# -o " + q(dir / "late/f_####.png"));
  EXPECT_EQ(blocked.exit_code, 73) << blocked.err;
  EXPECT_FALSE(fs::exists(dir / "late/f_0001.png"));  // refused before any work
}

TEST(Farm, VerifyNamesAFolderOfFramesFromTwoBackends) {
  // Shards on a farm of GPU and CPU nodes (--backend auto): their frames
  // differ within the golden tolerance and their state hashes differ, and
  // verify called the folder whole.
  TempDir dir("two_backends");
  const std::string render = "render " + kSleet + " --width 48 --height 27 -q --frames 1-4 -o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render + " --shard 1/2 --backend gpu").exit_code, 0);
  ASSERT_EQ(run_fxsim(render + " --shard 2/2 --backend cpu").exit_code, 0);
  const CliResult v = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("the folder holds frames simulated by 2 backends or GPU classes (cpu, gpu"), std::string::npos)
      << v.out;
  ASSERT_EQ(run_fxsim(render + " --shard 1/2 --backend cpu").exit_code, 0);  // drawn again on one backend
  EXPECT_EQ(run_fxsim("verify " + q(dir.path())).exit_code, 0);
}

TEST(Farm, SkipExistingDrawsAgainTheFramesOfAnotherBackend) {
  // A render resumed on another backend (a CPU node after a GPU one, or
  // --backend auto on another machine) kept the frames the first drew:
  // the folder mixed two backends' frames and only verify said so.
  TempDir dir("resume_backend");
  const std::string render = "render " + kSleet + " --width 48 --height 27 -q -o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render + " --frames 1-2 --backend gpu").exit_code, 0);
  const CliResult resumed = run_fxsim(render + " --frames 1-3 --backend cpu --skip-existing --progress none");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::string after = read_text_file(dir / "fxsim-manifest.jsonl");
  for (const char* frame : {"f_0001.png", "f_0002.png"}) {  // recorded twice: drawn again
    const size_t first = after.find(std::string("\"") + frame);
    ASSERT_NE(first, std::string::npos) << frame;
    EXPECT_NE(after.find(std::string("\"") + frame, first + 1), std::string::npos) << frame << " was kept";
  }
  const CliResult whole = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  // On the same backend they are kept: nothing is drawn again.
  const CliResult same = run_fxsim(render + " --frames 1-3 --backend cpu --skip-existing --progress none");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(read_text_file(dir / "fxsim-manifest.jsonl"), after) << "frames of the same backend drawn again";
  // Nor drawn with other drawing options (--fill-resolution half: within
  // the golden tolerance, not to the byte): they were kept, the run line
  // not saying how they were drawn.
  TempDir half("resume_drawing");
  const std::string at_half = "render " + kSleet + " --width 48 --height 27 -q -o " + q(half / "f_####.png");
  ASSERT_EQ(run_fxsim(at_half + " --frames 1-2 --fill-resolution half").exit_code, 0);
  EXPECT_NE(read_text_file(half / "fxsim-manifest.jsonl").find("\"backend\":\"cpu, --fill-resolution half\""),
            std::string::npos);
  ASSERT_EQ(run_fxsim(at_half + " --frames 1-2 --skip-existing").exit_code, 0);
  EXPECT_EQ(read_text_file(half / "f_0002.png"), read_text_file(dir / "f_0002.png"));  // the default's bytes now
}

TEST(Farm, SkipExistingDrawsAgainTheFramesWhosePlateOrTextureChanged) {
  // The look hash is the scene's JSON, which names a plate or a texture
  // but says nothing of what is in it: a frame drawn over a plate graded
  // since, or with a texture painted over, was kept.
  TempDir dir("resume_inputs");
  const auto write_png = [](const fs::path& file, int width, int height, uint8_t grey) {
    fxsim::Image im{width, height, std::vector<uint8_t>(size_t(width) * size_t(height) * 4, grey)};
    for (size_t i = 3; i < im.rgba.size(); i += 4) im.rgba[i] = 255;
    const std::vector<uint8_t> png = fxsim::encode_png(im);
    write_text_file(file, std::string(png.begin(), png.end()));
  };
  for (int frame = 1; frame <= 3; ++frame) write_png(dir / fmt::format("plate_{:04}.png", frame), 48, 27, 60);
  write_png(dir / "flake.png", 8, 8, 255);
  write_text_file(dir / "scene.json", R"({"fxsim": 1, "output": {"width": 48, "height": 27, "plate": "plate_####.png"},
    "camera": {"position": [0, 1.5, 6], "target": [0, 1, 0]},
    "emitters": [{"type": "snow", "max_particles": 400, "textures": ["flake.png"]}]})");
  const std::string render = "render " + q(dir / "scene.json") + " --frames 1-3 -q --progress none -o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render).exit_code, 0);
  const auto times_recorded = [&](int frame) {
    const std::string manifest = read_text_file(dir / "fxsim-manifest.jsonl");
    int n = 0;
    for (size_t at = manifest.find("\"" + frame_name(frame)); at != std::string::npos; at = manifest.find("\"" + frame_name(frame), at + 1)) ++n;
    return n;
  };
  // Every frame record says what the frame was drawn from.
  EXPECT_NE(read_text_file(dir / "fxsim-manifest.jsonl").find("\"inputs\":\""), std::string::npos);
  ASSERT_EQ(run_fxsim(render + " --skip-existing").exit_code, 0);
  EXPECT_EQ(times_recorded(1) + times_recorded(2) + times_recorded(3), 3) << "frames drawn again with nothing changed";
  // Frame 2's plate graded: that frame alone is drawn again.
  const std::string before = read_text_file(dir / frame_name(2));
  write_png(dir / "plate_0002.png", 48, 27, 120);
  ASSERT_EQ(run_fxsim(render + " --skip-existing").exit_code, 0);
  EXPECT_EQ(times_recorded(1), 1);
  EXPECT_EQ(times_recorded(2), 2) << "frame 2 kept over a plate changed since";
  EXPECT_EQ(times_recorded(3), 1);
  EXPECT_NE(read_text_file(dir / frame_name(2)), before);
  // The texture painted over: every frame.
  write_png(dir / "flake.png", 8, 8, 128);
  ASSERT_EQ(run_fxsim(render + " --skip-existing").exit_code, 0);
  EXPECT_EQ(times_recorded(1), 2);
  EXPECT_EQ(times_recorded(2), 3);
  EXPECT_EQ(times_recorded(3), 2);
  EXPECT_EQ(run_fxsim("verify " + q(dir.path())).exit_code, 0);
  // A frame no line records (its run killed between writing and recording
  // it) cannot say what it was drawn from: drawn again.
  std::string manifest = read_text_file(dir / "fxsim-manifest.jsonl");
  const size_t last = manifest.rfind("{\"files\":[{\"bytes\"");
  ASSERT_NE(last, std::string::npos) << manifest;
  ASSERT_NE(manifest.find(frame_name(3), last), std::string::npos) << "the last line is not frame 3's";
  manifest.erase(last);
  write_text_file(dir / "fxsim-manifest.jsonl", manifest);
  ASSERT_EQ(run_fxsim(render + " --skip-existing").exit_code, 0);
  EXPECT_EQ(times_recorded(3), 2) << "drawn again, and recorded";
  EXPECT_EQ(times_recorded(1), 2) << "kept";
  // A plate removed once its frame was drawn (a farm short of disk): the
  // frame cannot be checked against it, and is kept, not drawn (66).
  fs::remove(dir / "plate_0001.png");
  const CliResult gone = run_fxsim(render + " --skip-existing");
  EXPECT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_EQ(times_recorded(1), 2);
}

TEST(Farm, FramesOfAnotherFxsimVersionAreDrawnAgainAndVerifyNamesTheMix) {
  // A render resumed with --skip-existing after an upgrade kept the frames
  // the older fxsim drew (0.2.0 draws fire differently), and verify called
  // the folder whole.
  TempDir dir("versions");
  const std::string render = "render " + kSleet + " --width 48 --height 27 -q -o " + q(dir / "f_####.png");
  ASSERT_EQ(run_fxsim(render + " --frames 1-3").exit_code, 0);
  std::string manifest = read_text_file(dir / "fxsim-manifest.jsonl");
  const std::string ours = fmt::format("\"fxsim_version\":\"{}\"", FXSIM_VERSION);
  const size_t at = manifest.find(ours);
  ASSERT_NE(at, std::string::npos) << manifest;
  manifest.replace(at, ours.size(), "\"fxsim_version\":\"0.0.1\"");  // as if an older fxsim had drawn them
  write_text_file(dir / "fxsim-manifest.jsonl", manifest);
  ASSERT_EQ(run_fxsim(render + " --frames 4-5").exit_code, 0);
  const CliResult mixed = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(mixed.exit_code, 1) << mixed.out << mixed.err;
  EXPECT_NE(mixed.out.find(fmt::format("the folder holds frames drawn by 2 versions of fxsim (0.0.1, {})", FXSIM_VERSION)),
            std::string::npos) << mixed.out;
  const CliResult resumed = run_fxsim(render + " --frames 1-5 --skip-existing");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::string after = read_text_file(dir / "fxsim-manifest.jsonl");
  for (const char* frame : {"f_0001.png", "f_0002.png", "f_0003.png"}) {  // recorded twice: drawn again
    const size_t first = after.find(std::string("\"") + frame);
    ASSERT_NE(first, std::string::npos) << frame;
    EXPECT_NE(after.find(std::string("\"") + frame, first + 1), std::string::npos) << frame << " was kept";
  }
  EXPECT_EQ(after.find("\"f_0004.png", after.find("\"f_0004.png") + 1), std::string::npos) << "frame 4 was drawn again";
  const CliResult whole = run_fxsim("verify " + q(dir.path()));
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
}

TEST(Farm, SkipExistingSaysItsStatisticsHoldOnlyTheFramesDrawnNow) {
  // The resumed run's --stats file held frames 3-4 alone, and said nothing.
  TempDir dir("skip_stats");
  const std::string render = "render " + kSleet + " --width 48 --height 27 -q -o " + q(dir / "f_####.png") +
                             " --stats " + q(dir / "s.jsonl");
  ASSERT_EQ(run_fxsim(render + " --frames 1-2").exit_code, 0);
  const CliResult resumed = run_fxsim(render + " --frames 1-4 --skip-existing");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("is written anew with the 2 frames drawn now, not the 2 kept by --skip-existing"),
            std::string::npos) << resumed.err;
  const CliResult whole = run_fxsim(render + " --frames 5-6 --skip-existing");  // nothing kept: nothing to say
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.err.find("written anew"), std::string::npos) << whole.err;
}
