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
#include "core/image_compare.h"
#include "core/png_writer.h"

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
    if (entry.path().extension() != ".png" || file.rfind("frame_", 0) != 0) continue;
    if (!frames.empty()) frames += ',';
    frames += std::to_string(std::stoi(file.substr(6)));
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
      const fs::path keep = fs::path(FXSIM_TEST_OUTPUT_DIR) / "golden-failures" / name;
      fs::create_directories(keep);
      fs::copy_file(actual, keep / entry.path().filename(), fs::copy_options::overwrite_existing);
      const std::vector<uint8_t> diff = encode_png(difference_image(expected_image, actual_image));
      write_text_file(keep / ("diff_" + entry.path().filename().string()), std::string(diff.begin(), diff.end()));
      ADD_FAILURE() << name << "/" << entry.path().filename().string() << ": max " << d.max_difference << ", "
                    << d.fraction_over * 100 << " % of pixels over " << kMaxChannelDiff
                    << " (actual and diff kept in " << fs::absolute(keep) << ")";
    }
  }
  EXPECT_GE(compared, 3) << "golden/" << name << " holds too few images";
}

INSTANTIATE_TEST_SUITE_P(Scenes, GoldenTest, ::testing::ValuesIn(example_scene_names()),
                         [](const auto& test_info) {
                           std::string n = test_info.param;
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

