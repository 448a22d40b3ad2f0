// Golden images: every example scene in scenes/ is rendered small and compared
// with golden/<scene>/. The per-frame state hashes beside the images tell a
// change in the simulation (hash differs) from a change in rasterisation (hash
// equal, pixels differ). Update them with scripts/update-golden, in a commit of
// its own that says why.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <sys/wait.h>

#include "cli_runner.h"
#include "render/image_compare.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
// Must match scripts/update-golden.
const std::string kGoldenArgs = "--width 160 --height 90 --quiet";

// Tolerance. The same binary on the same Mesa gives identical bytes (checked by
// the determinism tests below); these allow for another Mesa/LLVM build, which
// may round blending and multisample resolve differently by a step or two and
// place a few sprite edges on other samples.
constexpr int kMaxChannelDiff = 3;        // per channel, out of 255
constexpr double kMaxFractionOver = 0.01; // of the pixels

std::vector<std::string> scene_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(FXSIM_SOURCE_DIR "/scenes"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};
}  // namespace

TEST_P(GoldenTest, MatchesItsGoldenImagesAndStateHashes) {
  const std::string name = GetParam();
  const fs::path golden = fs::path(FXSIM_SOURCE_DIR) / "golden" / name;
  ASSERT_TRUE(fs::is_directory(golden)) << "no golden images for scenes/" << name
                                        << ".json: run scripts/update-golden " << name;
  // Render just the frames kept as golden images (the simulation still runs
  // through every frame, and the state hashes cover all of them).
  std::string frames;
  for (const auto& entry : fs::directory_iterator(golden)) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() == ".png" && file.rfind("frame_", 0) == 0)
      frames += (frames.empty() ? "" : ",") + std::to_string(std::stoi(file.substr(6)));
  }
  ASSERT_FALSE(frames.empty()) << "golden/" << name << " holds no frame_NNNN.png";
  TempDir dir("golden-" + name);
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/" + name + ".json' " + kGoldenArgs +
                                " --frames " + frames + " -o '" + (dir / "frame_####.png").string() +
                                "' --state-hashes '" + (dir / "state-hashes.txt").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text_file(dir / "state-hashes.txt"), read_text_file(golden / "state-hashes.txt"))
      << "the simulation of " << name << " changed (state hashes differ)";
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    if (entry.path().extension() != ".png") continue;
    ++compared;
    const fs::path actual = dir / entry.path().filename();
    ASSERT_TRUE(fs::exists(actual)) << actual;
    const Image expected_image = read_png(entry.path()), actual_image = read_png(actual);
    const ImageDifference d = compare_images(expected_image, actual_image, kMaxChannelDiff);
    if (!(d.same_size && d.fraction_over <= kMaxFractionOver)) {
      // Keep the evidence next to the build for a person to look at.
      const fs::path keep = fs::path("golden-failures") / name;
      fs::create_directories(keep);
      fs::copy_file(actual, keep / entry.path().filename(), fs::copy_options::overwrite_existing);
      write_file_atomically(keep / ("diff_" + entry.path().filename().string()),
                            encode_png(difference_image(expected_image, actual_image)));
      ADD_FAILURE() << name << "/" << entry.path().filename().string() << ": max " << d.max_difference << ", "
                    << d.fraction_over * 100 << " % of pixels over " << kMaxChannelDiff
                    << " (actual and diff kept in " << fs::absolute(keep) << ")";
    }
  }
  EXPECT_GE(compared, 3) << "golden/" << name << " holds too few images";
}

INSTANTIATE_TEST_SUITE_P(Scenes, GoldenTest, ::testing::ValuesIn(scene_names()),
                         [](const auto& test_info) {
                           std::string n = test_info.param;
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

namespace {
std::vector<std::string> render_bytes(const std::string& extra, const std::string& tag) {
  TempDir dir(tag);
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow-heavy-wind.json' --frames 1-4 "
                                "--width 200 --height 112 --quiet -o '" + (dir / "f_####.png").string() + "' " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> frames;
  for (int f = 1; f <= 4; ++f) frames.push_back(read_text_file(dir / ("f_000" + std::to_string(f) + ".png")));
  return frames;
}
}  // namespace

TEST(Determinism, TwoRunsGiveIdenticalPngBytes) {
  const auto a = render_bytes("", "det-a"), b = render_bytes("", "det-b");
  ASSERT_EQ(a.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_GT(a[i].size(), 1000u);
    EXPECT_TRUE(a[i] == b[i]) << "frame " << i + 1;
  }
}

TEST(Determinism, ThreadCountDoesNotChangeThePngBytes) {
  const auto one = render_bytes("--threads 1", "thr-1"), two = render_bytes("--threads 2", "thr-2"),
             five = render_bytes("--threads 5", "thr-5");
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(one[i] == two[i]) << "frame " << i + 1;
    EXPECT_TRUE(one[i] == five[i]) << "frame " << i + 1;
  }
}

TEST(Render, WritesStatisticsAsJsonLines) {
  TempDir dir("stats");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 3-5 --width 64 --height 36 "
                                "--quiet -o '" + (dir / "f_####.png").string() + "' --stats '" +
                                (dir / "stats.jsonl").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(read_text_file(dir / "stats.jsonl"));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_NE(line.find("\"frame\":" + std::to_string(count + 2)), std::string::npos) << line;
    for (const char* key : {"\"time\":", "\"name\":\"snow\"", "\"type\":\"snow\"", "\"active\":true", "\"live\":30000",
                            "\"spawned\":", "\"died\":", "\"min\":[", "\"max\":[", "\"mean_position\":[", "\"mean_velocity\":["})
      EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  }
  EXPECT_EQ(count, 3);
  EXPECT_FALSE(fs::exists(dir / "f_0002.png"));
  EXPECT_TRUE(fs::exists(dir / "f_0003.png"));
  EXPECT_TRUE(fs::exists(dir / "f_0005.png"));
}

TEST(Render, UnwritableOutputExitsWith73AndLeavesNoPartialFile) {
  TempDir dir("unwritable");
  write_text_file(dir / "blocker", "a file where a folder should be");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 1 --width 32 --height 18 "
                                "--quiet -o '" + (dir / "blocker/f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename(), "blocker");
}

TEST(Render, AMissingDeviceExitsWith69AndWritesNothing) {
  TempDir dir("device");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 1 --device 99 --backend gpu "
                                "--quiet -o '" + (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 69) << r.err;
  EXPECT_NE(r.err.find("--device 99"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Render, AScenePastTheMachinesMemoryIsRefusedWith65) {
  // 2^31 - 1 flakes in each of 8 emitters: far more than any machine's RAM on the CPU backend.
  TempDir dir("memory");
  std::string emitters;
  for (int i = 0; i < 8; ++i) emitters += std::string(i ? ", " : "") + R"({"type": "snow", "max_particles": 2147483647})";
  write_text_file(dir / "huge.json", R"({"fxsim": 1, "emitters": [)" + emitters + "]}");
  const CliResult r = run_fxsim("render '" + (dir / "huge.json").string() + "' --backend cpu --quiet -o '" +
                                (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("of memory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "f_0001.png"));
}

