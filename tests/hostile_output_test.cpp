// Outputs that never clobber, and runs that stop cleanly: what `render` does
// with output paths that are not regular files, standard output, a folder
// that vanishes, files left by killed runs, and signals. Runs the executable
// (which needs a GL at run time, llvmpipe in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include "cli_runner.h"

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kSnowPath = FXSIM_SOURCE_DIR "/scenes/snow.json";
const std::string kTiny = " --width 48 --height 27 --quiet ";

int count_lines(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST(HostileOutput, AnOutputThatIsADirectoryIsNotReplaced) {
  TempDir dir("out_dir");
  fs::create_directories(dir / "f_0001.png" / "inside");
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("exists and is a directory; fxsim replaces only regular files"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_directory(dir / "f_0001.png" / "inside"));
}

TEST(HostileOutput, ASymlinkIsNeitherReplacedNorWrittenThrough) {
  TempDir dir("out_link");
  write_text_file(dir / "precious.txt", "keep me");
  fs::create_symlink(dir / "precious.txt", dir / "f_0001.png");
  for (const std::string& option : {std::string("-o '") + (dir / "f_####.png").string() + "'",
                                    "--stats '" + (dir / "f_0001.png").string() + "' -o '" + (dir / "g_#.png").string() + "'"}) {
    const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + option);
    EXPECT_EQ(r.exit_code, 73) << r.err;
    EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir / "f_0001.png"));
    EXPECT_EQ(read_text_file(dir / "precious.txt"), "keep me");
    EXPECT_FALSE(fs::exists(dir / "g_1.png"));
  }
}

TEST(HostileOutput, ALayerThatCannotBeWrittenLeavesNoneOfItsFramesFiles) {
  // The frame and its layers are recorded together in the manifest: the
  // frame's image was written, then its depth layer refused, and the image
  // stood without a record.
  // A link there at the start is refused before any work
  // (ALaterFramesFileThatCannotBeReplacedIsFoundBeforeAnyWork): this one
  // appears once the render has begun, at frame 60 of 80.
  TempDir dir("out_layer_link"), logs("out_layer_link_logs");
  write_text_file(dir / "precious.txt", "keep me");
  const std::string script = "'" + std::string(FXSIM_EXE) + "' render '" + kSnowPath + "' --frames 1-80" + kTiny +
                             "--set '/output/layers=[\"depth\", \"mask\"]' -o '" + (dir / "f_####.png").string() +
                             "' 2> '" + (logs / "err").string() + "' & for i in $(seq 1000); do [ -e '" +
                             (dir / "f_0001.png").string() + "' ] && break; sleep 0.01; done; ln -s '" +
                             (dir / "precious.txt").string() + "' '" + (dir / "f_0060.depth.png").string() + "'; wait $!";
  std::ofstream(logs / "link.sh") << script << "\n";
  const CliResult r = run_command("sh '" + (logs / "link.sh").string() + "'");
  const std::string err = read_text_file(logs / "err");
  EXPECT_EQ(r.exit_code, 73) << err;
  EXPECT_NE(err.find("f_0060.depth.png: exists and is a symbolic link"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(dir / "f_0059.png"));  // the frame before, whole and recorded
  EXPECT_TRUE(fs::exists(dir / "f_0059.depth.png"));
  EXPECT_FALSE(fs::exists(dir / "f_0060.png"));
  EXPECT_FALSE(fs::exists(dir / "f_0060.mask.snow.png"));
  EXPECT_TRUE(fs::is_symlink(dir / "f_0060.depth.png"));
  EXPECT_EQ(read_text_file(dir / "precious.txt"), "keep me");
  const std::string manifest = read_text_file(dir / "fxsim-manifest.jsonl");
  EXPECT_NE(manifest.find("f_0059.png"), std::string::npos);
  EXPECT_EQ(manifest.find("f_0060.png"), std::string::npos);
}

TEST(HostileOutput, AStatisticsFileThatCannotBeCreatedLeavesNoFolderOrManifest) {
  // /proc passes every check of a path made before the render (as root it
  // is a folder one may write into), but no file can be made there: the
  // frames' folder and its manifest's record of the run were written
  // first, and `verify` then found a run that wrote nothing.
  TempDir dir("stats_proc");
  for (const char* flag : {"--stats", "--state-hashes"}) {
    const CliResult r = run_fxsim(fmt::format("render '{}' --frames 1{}-o '{}' {} /proc/fxsim-{}.txt", kSnowPath, kTiny,
                                              (dir / "out/f_####.png").string(), flag, ::getpid()));
    EXPECT_EQ(r.exit_code, 73) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("/proc/fxsim-"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << flag;
  }
}

TEST(HostileOutput, AFramesFolderThatCannotBeMadeLeavesTheTextOutputsAsTheyWere) {
  // The text outputs are opened first (above); the frames' folder under
  // /proc then cannot be made (as root every check before passes). A new
  // statistics file and its folder were left, empty, and an earlier file emptied.
  TempDir dir("text_then_folder");
  write_text_file(dir / "earlier.txt", "1 0123456789abcdef\n");
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 1{}-o /proc/fxsim-{}/f_####.png --stats '{}' "
                                            "--state-hashes '{}'", kSnowPath, kTiny, ::getpid(),
                                            (dir / "new/folders/s.jsonl").string(), (dir / "earlier.txt").string()));
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("/proc/fxsim-"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "new"));
  EXPECT_EQ(read_text_file(dir / "earlier.txt"), "1 0123456789abcdef\n");
  // Written, they hold this render's lines only (the earlier file emptied first).
  ASSERT_EQ(run_fxsim(fmt::format("render '{}' --frames 1{}-o '{}' --state-hashes '{}'", kSnowPath, kTiny,
                                  (dir / "out/f_#.png").string(), (dir / "earlier.txt").string())).exit_code, 0);
  const std::string hashes = read_text_file(dir / "earlier.txt");
  EXPECT_EQ(std::count(hashes.begin(), hashes.end(), '\n'), 1) << hashes;
  EXPECT_EQ(hashes.rfind("1 ", 0), 0u) << hashes;
  EXPECT_NE(hashes, "1 0123456789abcdef\n");
  // Both in one new folder (and one below it): the folder went with neither,
  // each file taken back in the order they were made.
  const CliResult shared = run_fxsim(fmt::format(
      "render '{}' --frames 1{}-o /proc/fxsim-{}/f_####.png --stats '{}' --state-hashes '{}'", kSnowPath, kTiny,
      ::getpid(), (dir / "both/s.jsonl").string(), (dir / "both/sub/h.txt").string()));
  EXPECT_EQ(shared.exit_code, 73) << shared.err;
  EXPECT_FALSE(fs::exists(dir / "both"));
}

TEST(HostileOutput, AnOutputOverTheSceneFileIsRefused) {
  // --stats scene.json replaced the scene with statistics, exit 0.
  TempDir dir("out_over_scene");
  fs::copy_file(kSnowPath, dir / "s.json");
  for (const std::string option : {"--stats", "--state-hashes", "--video"}) {
    const std::string path = option == "--video" ? "s.json" : "./sub/../s.json";
    const CliResult r = run_fxsim("render '" + (dir / "s.json").string() + "' --frames 1" + kTiny + option + " '" +
                                  (dir / path).string() + "' -o '" + (dir / "f_#.png").string() + "'");
    EXPECT_EQ(r.exit_code, 64) << r.err;
    if (option != "--video") {
      EXPECT_NE(r.err.find("that is the scene file it reads"), std::string::npos) << r.err;
    }
  }
  EXPECT_EQ(read_text_file(dir / "s.json"), read_text_file(kSnowPath));
  EXPECT_FALSE(fs::exists(dir / "f_1.png"));
}

TEST(HostileOutput, AFifoOrADeviceIsRefusedWithoutBlocking) {
  TempDir dir("out_fifo");
  ASSERT_EQ(mkfifo((dir / "f_0001.png").c_str(), 0600), 0);
  CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (dir / "f_####.png").string() + "'", "timeout 20");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("is a FIFO"), std::string::npos) << r.err;
  r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (dir / "g.png").string() + "' --stats /dev/null");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("/dev/null: exists and is a device; fxsim replaces only regular files (use - for standard output)"),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "g.png"));
  // The manifest the frames' folder gets: a FIFO there hung the render in its open.
  TempDir other("out_fifo_manifest");
  ASSERT_EQ(mkfifo((other / "fxsim-manifest.jsonl").c_str(), 0600), 0);
  r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (other / "f_####.png").string() + "'",
                "timeout 20");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("fxsim-manifest.jsonl: exists and is a FIFO"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(other / "f_0001.png"));
  // A frame's path that is a link: no hint of "-", which frames do not take.
  ASSERT_EQ(symlink("/tmp", (dir / "h.png").c_str()), 0);
  r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (dir / "h.png").string() + "'");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("is a symbolic link; fxsim replaces only regular files\n"), std::string::npos) << r.err;
}

TEST(HostileOutput, ALaterFramesFileThatCannotBeReplacedIsFoundBeforeAnyWork) {
  // A FIFO at frame 2 (or a link at a later frame's layer, or in a frame's
  // own folder) was found once frame 1 and the manifest were written: 73 after the work.
  TempDir fifo("later_fifo"), link("later_link"), folders("later_folders");
  ASSERT_EQ(mkfifo((fifo / "f_0002.png").c_str(), 0600), 0);
  ASSERT_EQ(symlink("/etc/passwd", (link / "f_0003.depth.png").c_str()), 0);
  fs::create_directories(folders / "0002");
  ASSERT_EQ(mkfifo((folders / "0002/f.png").c_str(), 0600), 0);
  const std::tuple<const TempDir*, std::string, std::string, std::string> cases[] = {
      {&fifo, "f_####.png", "", "f_0002.png: exists and is a FIFO"},
      {&link, "f_####.png", " --set '/output/layers=[\"depth\"]'", "f_0003.depth.png: exists and is a symbolic link"},
      {&folders, "####/f.png", "", "0002/f.png: exists and is a FIFO"},
  };
  for (const auto& [dir, pattern, extra, says] : cases) {
    const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-4" + kTiny + "-o '" + (*dir / pattern).string() +
                                      "'" + extra,
                                  "timeout 20");
    EXPECT_EQ(r.exit_code, 73) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(*dir / "fxsim-manifest.jsonl")) << pattern;
    EXPECT_FALSE(fs::exists(*dir / "f_0001.png")) << pattern;
    EXPECT_FALSE(fs::exists(*dir / "0001")) << pattern;
  }
}

TEST(HostileOutput, StatisticsAndHashesGoToStandardOutputWithDash) {
  TempDir dir("out_dash");
  CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-3 --width 48 --height 27 -o '" +
                          (dir / "f_#.png").string() + "' --stats -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 3) << r.out;
  EXPECT_EQ(r.out.rfind("{\"frame\":1,", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("rendered 3 frames"), std::string::npos) << "the summary moves to stderr: " << r.err;
  EXPECT_FALSE(fs::exists("-"));
  r = run_fxsim("render '" + kSnowPath + "' --frames 2,4" + kTiny + "-o '" + (dir / "g_#.png").string() + "' --state-hashes -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 4) << "a hash for every simulated frame: " << r.out;
  EXPECT_EQ(run_fxsim("render '" + kSnowPath + "' --stats - --state-hashes -").exit_code, 64);
  r = run_fxsim("render '" + kSnowPath + "' -o -");
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("-o -"), std::string::npos);
}

namespace {
// The host part of a temporary file's name, by render/atomic_file.h's rule.
std::string partial_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string text(name, std::min<size_t>(std::strlen(name), 64));
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return text.empty() ? "_" : text;
}
}  // namespace

TEST(HostileOutput, StaleTemporaryFilesOfDeadRunsAreRemoved) {
  TempDir dir("out_stale");
  // A pid above any pid_max belongs to no process; our own pid is alive.
  const std::string mark = ".fxsim-partial-" + partial_host() + "-";
  write_text_file(dir / ("f_0007.png" + mark + "2147483000"), "half a frame");
  const std::string alive = "f_0008.png" + mark + std::to_string(getpid());
  write_text_file(dir / alive, "being written");
  write_text_file(dir / "notes.fxsim-partial-x", "not ours");
  // Another machine's, on storage both see: its process id says nothing here
  // (a render removed a running one's file, which then failed with 73).
  write_text_file(dir / "f_0009.png.fxsim-partial-other-node-2147483000", "another machine's frame");
  // An older fxsim's name, without a host: judged by its process id, as then.
  write_text_file(dir / "f_0010.png.fxsim-partial-2147483000", "an older fxsim's frame");
  // Another program's temporary file, however it is named, is not fxsim's to remove.
  write_text_file(dir / "thesis.tex.partial-2147483000", "a user's own");
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "-o '" + (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / ("f_0007.png" + mark + "2147483000")));
  EXPECT_TRUE(fs::exists(dir / alive));
  EXPECT_TRUE(fs::exists(dir / "notes.fxsim-partial-x"));
  EXPECT_TRUE(fs::exists(dir / "f_0009.png.fxsim-partial-other-node-2147483000"));
  EXPECT_FALSE(fs::exists(dir / "f_0010.png.fxsim-partial-2147483000"));
  EXPECT_TRUE(fs::exists(dir / "thesis.tex.partial-2147483000"));
  EXPECT_TRUE(fs::exists(dir / "f_0001.png"));
  // And a checkpoint a killed run was writing (they stayed for ever).
  fs::create_directories(dir / "ck");
  write_text_file(dir / ("ck/checkpoint_000004.fxck" + mark + "2147483000"), "half a checkpoint");
  ASSERT_EQ(run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + "--checkpoints '" + (dir / "ck").string() +
                      "' -o '" + (dir / "f_####.png").string() + "'").exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / ("ck/checkpoint_000004.fxck" + mark + "2147483000")));
}

TEST(HostileOutput, AFolderThatVanishesStopsTheRenderWith73) {
  TempDir dir("out_vanish");
  // The folder is removed once the second frame is on disk; the render must
  // not recreate it and carry on as if nothing happened.
  const int status = render_and_when_written(
      "'" FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' --width 48 --height 27 --quiet -o '" +
          (dir / "out/f_####.png").string() + "' 2>'" + (dir / "err").string() + "'",
      dir / "out/f_0002.png", 30, "rm -rf '" + (dir / "out").string() + "'", dir / "vanish.sh");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 73) << read_text_file(dir / "err");
  EXPECT_NE(read_text_file(dir / "err").find("the output folder no longer exists"), std::string::npos)
      << read_text_file(dir / "err");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, KeepsWholeFramesAndTheirStatisticsAndHashes) {
  // The signal comes in the middle of the 96 frames, once the first is on
  // disk (not after a fixed time: a sanitizer build on a busy machine may take
  // longer than that for its first frame): every PNG left must be complete
  // (its IEND chunk at the end), no temporary file may remain, and the
  // statistics and hashes must have a line for exactly the frames written.
  const int signal = GetParam();
  TempDir dir("interrupt");
  const int status = render_and_when_written(
      "'" FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' --quiet -o '" + (dir / "f_####.png").string() +
          "' --stats '" + (dir / "s.jsonl").string() + "' --state-hashes '" + (dir / "h.txt").string() + "'",
      dir / "f_0001.png", 60, "kill -" + std::to_string(signal) + " $pid", dir / "interrupt.sh");
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  int frames = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name == "interrupt.sh") continue;
    EXPECT_EQ(name.find(".partial"), std::string::npos) << name;
    if (entry.path().extension() != ".png") continue;
    const std::string bytes = read_text_file(entry.path());
    ASSERT_GE(bytes.size(), 12u) << name;
    EXPECT_EQ(bytes.substr(bytes.size() - 8, 4), "IEND") << name;
    ++frames;
  }
  EXPECT_GT(frames, 0);
  EXPECT_LT(frames, 96);  // it really was interrupted
  EXPECT_EQ(count_lines(read_text_file(dir / "s.jsonl")), frames);
  EXPECT_EQ(count_lines(read_text_file(dir / "h.txt")), frames);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM, SIGHUP), [](const auto& p) {
  return std::string(p.param == SIGINT ? "SIGINT" : p.param == SIGTERM ? "SIGTERM" : "SIGHUP");
});

TEST(HostileOutput, AnInterruptWithJsonLinesProgressSaysSoInJsonLines) {
  // Standard error stays JSON Lines with --progress jsonl: the interrupt's
  // message was plain text after a blank line.
  TempDir dir("interrupt_jsonl");
  const int status = render_and_when_written(
      "'" FXSIM_SOURCE_DIR "/scenes/fountain-ring.json' --width 48 --height 27 --progress jsonl -o '" +
          (dir / "out/f_####.png").string() + "' 2>'" + (dir / "err").string() + "'",
      dir / "out/f_0001.png", 60, "kill -TERM $pid", dir / "interrupt.sh");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  std::istringstream lines(read_text_file(dir / "err"));
  std::string line, last;
  while (std::getline(lines, line)) {
    EXPECT_TRUE(!line.empty() && line.front() == '{' && line.back() == '}') << line;
    last = line;
  }
  EXPECT_EQ(last, R"({"event":"error","message":"terminated (SIGTERM): stopped; every frame on disk is whole","exit":143})");
}

TEST(HostileOutput, AnImageTooLargeInBytesForTheGlIsAnInvalidSceneNotAMissingGl) {
  // Within every size limit, 16384×16384 with 4 samples is 4 GiB of
  // framebuffer, which llvmpipe refuses (the framebuffer is incomplete).
  TempDir dir("huge_image");
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1 --width 16384 --height 16384 -o '" +
                                (dir / "out/f.png").string() + "' --stats '" + (dir / "s.jsonl").string() + "'");
  if (r.exit_code == 0) GTEST_SKIP() << "this GL can hold a 16384×16384 image with 4 samples";
  EXPECT_EQ(r.exit_code, 65) << r.err;
  // On a machine with less free memory the memory check refuses it first, also with 65.
  const bool by_gl = r.err.find("cannot make a 16384×16384 image with 4 samples per pixel") != std::string::npos &&
                     r.err.find("lower the image size or output.samples") != std::string::npos;
  const bool by_memory = r.err.find("of memory (particles, images and textures)") != std::string::npos;
  EXPECT_TRUE(by_gl || by_memory) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_FALSE(fs::exists(dir / "s.jsonl"));
}

TEST(HostileOutput, TwoOutputsInOneFileAreRefusedBeforeAnyWork) {
  // Each would overwrite or interleave the other, and the render end with 0.
  TempDir dir("out_shared");
  const std::string frames = " -o '" + (dir / "f_####.png").string() + "'";
  const std::string same = (dir / "same.txt").string();
  const std::pair<std::string, std::string> cases[] = {
      {" --stats '" + same + "' --state-hashes '" + same + "'", "name the same file"},
      {" --stats '" + (dir / "f_0002.png").string() + "'", "where the render writes its frames"},
      {" --state-hashes '" + (dir / "sub" / ".." / "f_12345.png").string() + "'", "where the render writes its frames"},
      {" --stats '" + (dir / "fxsim-manifest.jsonl").string() + "'", "the output folder's manifest"},
      // A checkpoint folder in a frame's place was made, filled, and the render then failed there (73).
      {" --checkpoint-every 1 --checkpoints '" + (dir / "f_0001.png").string() + "'", "where the render writes its frames"},
      {" --checkpoint-every 1 --checkpoints '" + (dir / "f_0001.png").string() + "/./'", "where the render writes its frames"},
      {" --checkpoint-every 1 --checkpoints '" + same + "' --stats '" + same + "'", "--stats writes that file"},
  };
  for (const auto& [options, words] : cases) {
    const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-2" + kTiny + frames + options);
    EXPECT_EQ(r.exit_code, 64) << options << ": " << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
  // A digit after the run of '#': frame 1 of f_##5.png is f_015.png.
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-2" + kTiny + " -o '" + (dir / "f_##5.png").string() +
                                "' --stats '" + (dir / "f_015.png").string() + "'");
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("where the render writes its frames"), std::string::npos) << r.err;
  // A layer's file: the depth layer would have replaced the statistics, and verify passed.
  for (const std::string layer : {"depth", "mask.snow", "motion"}) {
    const CliResult l = run_fxsim("render '" + kSnowPath + "' --frames 1-2" + kTiny +
                                  "--set '/output/layers=[\"depth\", \"mask\", \"motion\"]' -o '" +
                                  (dir / "f_####.png").string() + "' --stats '" + (dir / ("f_0002." + layer + ".png")).string() + "'");
    EXPECT_EQ(l.exit_code, 64) << layer << ": " << l.err;
    EXPECT_NE(l.err.find("where the render writes its frames and their layers"), std::string::npos) << l.err;
  }
  // A folder the render makes for its frames or video, or a path that names a
  // folder: the folder was made, the manifest written there, and then 73.
  const std::pair<std::string, std::string> folders[] = {
      {" -o '" + (dir / "out/f_####.png").string() + "' --stats '" + (dir / "out").string() + "'",
       "the folder the render writes its frames into"},
      {" -o '" + (dir / "per/####/f.png").string() + "' --stats '" + (dir / "per/0002").string() + "'",
       "the folder the render writes its frames into"},
      {" -o '" + (dir / "v/a.mp4").string() + "' --state-hashes '" + (dir / "v").string() + "'",
       "the folder the render writes its video into"},
      {" -o '" + (dir / "v/a.mp4").string() + "' --state-hashes '" + (dir / "w").string() + "/'", "that names a folder"},
  };
  for (const auto& [options, words] : folders) {
    const CliResult refused = run_fxsim("render '" + kSnowPath + "' --frames 1-2" + kTiny + options);
    EXPECT_EQ(refused.exit_code, 64) << options << ": " << refused.err;
    EXPECT_NE(refused.err.find(words), std::string::npos) << refused.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(HostileOutput, ManyHashRunsAgainstALongRunOfDigitsAreCheckedInOneSweep) {
  // 25 runs of '#' against 80 digits that are not a frame: trying every
  // split of the digits took longer than anyone waits (over 20 s for the
  // check alone, C(80, 25) splits); the checked (run, digit) pairs are
  // remembered now, and the render goes on.
  TempDir dir("out_many_runs");
  std::string pattern;
  for (int run = 0; run < 25; ++run) pattern += "#0";
  const std::string stats = std::string(80, '0') + "x.png";
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1" + kTiny + " -o '" + (dir / (pattern + ".png")).string() +
                                "' --stats '" + (dir / stats).string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / stats));
}

TEST(HostileOutput, ACheckpointFolderThatIsAFileIsRefusedBeforeAnyFrame) {
  // Found at the first checkpoint before, with frames already written.
  TempDir dir("out_checkpoint_file");
  write_text_file(dir / "taken", "a file");
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-6" + kTiny + "-o '" + (dir / "f_####.png").string() +
                                "' --checkpoints '" + (dir / "taken").string() + "' --checkpoint-every 4");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("taken: the checkpoint folder is a file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "f_0001.png"));
}

TEST(HostileOutput, FoldersAndCheckpointsThatCannotBeWrittenAreFoundBeforeAnyWork) {
  // Each was found once the render had made the frames' folder and its
  // manifest's run line (and written checkpoints): a checkpoint's name taken
  // by a folder, a link to nothing where a folder was to be made, and /proc,
  // which root's access() passes but which takes no file.
  TempDir dir("out_unwritable");
  fs::create_directories(dir / "ck/checkpoint_000002.fxck");
  fs::create_symlink(dir / "nothing/here", dir / "dangling");
  const std::string render = "render '" + kSnowPath + "' --frames 1-3" + kTiny + "-o '" + (dir / "f/f_####.png").string() + "'";
  const std::array<std::pair<std::string, std::string>, 4> refused = {{
      {" --checkpoint-every 1 --checkpoints '" + (dir / "ck").string() + "'",
       "checkpoint_000002.fxck: exists and is a directory"},
      {" --checkpoint-every 1 --checkpoints '" + (dir / "dangling").string() + "'", "is a symbolic link to nothing"},
      {" --video '" + (dir / "dangling/v.mp4").string() + "'", "is a symbolic link to nothing"},
      {" --video /proc/v.mp4", "/proc/v.mp4: cannot make a file in /proc"},
  }};
  for (const auto& [args, says] : refused) {
    const CliResult r = run_fxsim(render + args);
    EXPECT_EQ(r.exit_code, 73) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "f")) << args;
    EXPECT_FALSE(fs::exists(dir / "ck/checkpoint_000001.fxck")) << args;
  }
  // A link to a whole checkpoint is read, not written: it passes (a farm's
  // shared store linked in).
  ASSERT_EQ(run_fxsim("render '" + kSnowPath + "' --frames 2 --simulate-only --checkpoint-every 2 --checkpoints '" +
                      (dir / "store").string() + "'").exit_code, 0);
  fs::create_directories(dir / "linked");
  fs::create_symlink(dir / "store/checkpoint_000002.fxck", dir / "linked/checkpoint_000002.fxck");
  const CliResult linked = run_fxsim("render '" + kSnowPath + "' --frames 3" + kTiny + "-o '" + (dir / "l_#.png").string() +
                                     "' --checkpoint-every 2 --checkpoints '" + (dir / "linked").string() + "'");
  EXPECT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_TRUE(fs::is_symlink(dir / "linked/checkpoint_000002.fxck"));
}

namespace {
// A tmpfs of `kilobytes` mounted over a test folder, so that writes meet a
// real full disk; unmounted at the end. Needs root (CI runs as root).
class SmallDisk {
 public:
  SmallDisk(const fs::path& folder, int kilobytes) : folder_(folder) {
    fs::create_directories(folder_);
    mounted_ = run_command("mount -t tmpfs -o size=" + std::to_string(kilobytes) + "k fxsim-test-full '" +
                           folder_.string() + "'").exit_code == 0;
  }
  ~SmallDisk() {
    if (mounted_) run_command("umount '" + folder_.string() + "'");
  }
  bool mounted() const { return mounted_; }

 private:
  fs::path folder_;
  bool mounted_ = false;
};

// Whether every line of `path` is whole: the file is empty or ends in a
// newline, and each line passes `whole`.
template <typename Check>
void expect_whole_lines(const fs::path& path, Check whole) {
  const std::string text = read_text_file(path);
  EXPECT_TRUE(text.empty() || text.back() == '\n') << path << " ends in half a line: " << text.substr(text.rfind('\n') + 1);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_TRUE(whole(line)) << path << ": " << line;
}
}  // namespace

TEST(HostileOutput, AFirstFrameThatCannotBeWrittenLeavesTheTextOutputsAsTheyWere) {
  // The disk fills at frame 1's image: its lines had been appended first, so
  // a new statistics file stayed with a line for a frame not on disk and an
  // earlier hash file was emptied and written over.
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small disk needs root";
  TempDir dir("first_frame_full");
  const SmallDisk disk(dir / "disk", 64);
  if (!disk.mounted()) GTEST_SKIP() << "this machine lets no tmpfs be mounted here";
  // Room for the manifest's run line, not for a frame of 96x54 at PNG level 0 (about 15 KB).
  const uintmax_t room = fs::space(dir / "disk").available;
  ASSERT_GT(room, 8192u);
  write_text_file(dir / "disk/filler", std::string(size_t(room - 4096), 'x'));
  write_text_file(dir / "earlier.txt", "1 0123456789abcdef\n");
  const CliResult r = run_fxsim(fmt::format(
      "render '{}' --frames 1-3 --width 96 --height 54 --png-level 0 -q -o '{}' --stats '{}' --state-hashes '{}'",
      kSnowPath, (dir / "disk/f_####.png").string(), (dir / "new/s.jsonl").string(), (dir / "earlier.txt").string()));
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("f_0001.png"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "disk/f_0001.png"));
  EXPECT_FALSE(fs::exists(dir / "new"));
  EXPECT_EQ(read_text_file(dir / "earlier.txt"), "1 0123456789abcdef\n");
}

TEST(HostileOutput, AnInterruptBeforeTheFirstFrameLeavesTheTextOutputsAsTheyWere) {
  // Stopped while frame 100000's simulation runs (the text files are open,
  // no frame is whole): a new file and its folder were left empty, as a
  // failure no longer leaves them; an earlier one stays as it was.
  TempDir dir("interrupt_first");
  write_text_file(dir / "earlier.txt", "1 0123456789abcdef\n");
  const int status = render_and_when_written(
      fmt::format("'{}' --frames 100000{}--set /emitters/0/max_particles=100 -o '{}' --stats '{}' "
                  "--state-hashes '{}'", kSnowPath, kTiny, (dir / "out/f_#.png").string(),
                  (dir / "new/deeper/s.jsonl").string(), (dir / "earlier.txt").string()),
      dir / "new/deeper/s.jsonl", 60, "sleep 0.2; kill -INT $pid", dir / "interrupt.sh");
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  EXPECT_FALSE(fs::exists(dir / "new"));
  EXPECT_EQ(read_text_file(dir / "earlier.txt"), "1 0123456789abcdef\n");
  EXPECT_FALSE(fs::exists(dir / "out/f_100000.png"));
}

TEST(HostileOutput, ANameTooLongForTheTemporaryFileIsRefusedBeforeAnyWork) {
  // 249 bytes is a legal name, but NAME.fxsim-partial-HOST-PID is not: the render
  // failed (73) after making the folder and the manifest's run line.
  TempDir dir("long_name");
  const std::string name(240, 'a');
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-2" + kTiny + "-o '" +
                                (dir / ("out/" + name + "_####.png")).string() + "'");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("the name is too long"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(HostileOutput, ControlCharactersInANameAreEscapedInTheProgressLines) {
  // A newline in a folder's name broke each frame's progress line in two.
  TempDir dir("control_name");
  const CliResult r = run_fxsim("render '" + kSnowPath + "' --frames 1-2 --width 48 --height 27 --progress lines -o '" +
                                (dir / "a\nb/f_#.png").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "a\nb" / "f_2.png"));
  EXPECT_EQ(count_lines(r.err), 2) << r.err;
  EXPECT_NE(r.err.find("-> " + (dir / "a").string() + "\\nb/f_2.png\n"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\\nb/f_#.png"), std::string::npos) << r.out;
  // A backslash is escaped too, so "c\nd" (no newline) reads apart from it.
  const CliResult slash = run_fxsim("render '" + kSnowPath + "' --frames 1 --width 48 --height 27 --progress lines -o '" +
                                    (dir / "c\\nd/f_#.png").string() + "'");
  ASSERT_EQ(slash.exit_code, 0) << slash.err;
  EXPECT_NE(slash.err.find("-> " + (dir / "c").string() + "\\\\nd/f_1.png\n"), std::string::npos) << slash.err;
}

TEST(HostileOutput, AFullDiskLeavesWholeFilesAndWholeLinesOnly) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small disk needs root";
  TempDir dir("full_disk");
  const SmallDisk disk(dir / "disk", 320);
  if (!disk.mounted()) GTEST_SKIP() << "this machine lets no tmpfs be mounted here";
  const std::string args = " --width 96 --height 54 -q --set /emitters/0/max_particles=2000 --png-level 0";
  // A video: ffmpeg exited 0 when it could not write the file's end, and the
  // mp4 without its index was renamed into place (exit 0). The disk is
  // filled to 12 KB of room, which the frames' data outgrow.
  const uintmax_t room = fs::space(dir / "disk").available;
  ASSERT_GT(room, 16384u);
  write_text_file(dir / "disk/filler", std::string(size_t(room - 12288), 'x'));
  const CliResult video = run_fxsim("render '" + kSnowPath + "' --frames 1-400" + args + " -o '" +
                                    (dir / "disk/v.mp4").string() + "'");
  EXPECT_EQ(video.exit_code, 73) << video.err;
  EXPECT_FALSE(fs::exists(dir / "disk/v.mp4"));
  fs::remove(dir / "disk/filler");
  // Frames with their statistics and hashes until the disk is full: each
  // text file ends in a whole line (a line was cut short after "mean_velocity":).
  const CliResult frames = run_fxsim("render '" + kSnowPath + "' --frames 1-400" + args + " -o '" +
                                     (dir / "disk/f_####.png").string() + "' --stats '" + (dir / "disk/s.jsonl").string() +
                                     "' --state-hashes '" + (dir / "disk/h.txt").string() + "'");
  EXPECT_EQ(frames.exit_code, 73) << frames.err;
  EXPECT_NE(frames.err.find("No space left on device"), std::string::npos) << frames.err;
  const auto is_json_object = [](const std::string& line) { return line.front() == '{' && line.back() == '}'; };
  expect_whole_lines(dir / "disk/s.jsonl", is_json_object);
  expect_whole_lines(dir / "disk/fxsim-manifest.jsonl", is_json_object);
  expect_whole_lines(dir / "disk/h.txt", [](const std::string& line) {
    return line.size() > 17 && line[line.size() - 17] == ' ';  // "frame 0123456789abcdef"
  });
  for (const auto& entry : fs::directory_iterator(dir / "disk"))
    EXPECT_EQ(entry.path().filename().string().find(".fxsim-partial-"), std::string::npos) << entry.path();
}
