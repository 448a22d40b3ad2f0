// Fill-bound batches drawn at half size (--fill-resolution, render/
// reduced_resolution.h), run as a user runs fxsim (llvmpipe in CI): a
// fountain's mist drawn at half size keeps the frame within the golden
// tolerance of the full-size frame, repeated runs write the same bytes, and
// the depth-aware upsample keeps a sprite from bleeding across an edge of
// the plate's depth.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "golden_tolerance.h"
#include "core/exr_file.h"
#include "core/image.h"
#include "core/image_compare.h"
#include "core/png_writer.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {

fs::path render_fill(const TempDir& dir, const fs::path& scene, const std::string& fill, const std::string& extra,
                     int frame, const std::string& tag, const std::string& extension = "png") {
  const std::string pattern = fmt::format("{}-{}-{}-#.{}", scene.stem().string(), fill, tag, extension);
  const CliResult r = run_fxsim(fmt::format("render '{}' {} --frames {} -q --fill-resolution {} -o '{}'",
                                            scene.string(), extra, frame, fill, (dir / pattern).string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir / fmt::format("{}-{}-{}-{}.{}", scene.stem().string(), fill, tag, frame, extension);
}
}  // namespace

TEST(ReducedResolution, AFountainsMistAtHalfSizeKeepsTheFrameWithinTheGoldenTolerance) {
  TempDir dir("reduced-fountain");
  // At 640x360 the mist's puffs are large and cover the frame many times
  // over: auto draws them at half size (the frame differs), the drops at full size.
  const std::string size = "--width 640 --height 360";
  const fs::path full = render_fill(dir, example_scene("fountain"), "full", size, 48, "a");
  const fs::path automatic = render_fill(dir, example_scene("fountain"), "auto", size, 48, "a");
  ASSERT_NE(read_text_file(full), read_text_file(automatic)) << "auto drew nothing at half size";
  const ImageComparison c = compare_images(read_png(full), read_png(automatic), kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure)
      << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
  // At the golden size the puffs are a few pixels wide: nothing is drawn at half size.
  EXPECT_EQ(read_text_file(render_fill(dir, example_scene("fountain"), "full", "--width 160 --height 90", 48, "b")),
            read_text_file(render_fill(dir, example_scene("fountain"), "auto", "--width 160 --height 90", 48, "b")));
}

TEST(ReducedResolution, RepeatedRunsWriteTheSameBytes) {
  TempDir dir("reduced-repeat");
  const std::string extra = "--width 320 --height 180";
  EXPECT_EQ(read_text_file(render_fill(dir, example_scene("campfire"), "half", extra, 24, "a")),
            read_text_file(render_fill(dir, example_scene("campfire"), "half", extra, 24, "b")));
}

TEST(ReducedResolution, TheUpsampleKeepsASpriteFromBleedingAcrossAnEdgeOfThePlatesDepth) {
  TempDir dir("reduced-edge");
  // A grey plate whose left columns (0-160) are a wall 1 m away and whose
  // right columns are 65 m away; a white flake 3 m wide, 10 m away, centred
  // on the edge: the wall hides its left half. Column 160's half-size texel
  // also spans column 161, beyond the wall: a plain bilinear upsample would
  // carry the flake's light onto the wall.
  constexpr int kWidth = 320, kHeight = 180, kWall = 161;
  Image plate{kWidth, kHeight, std::vector<uint8_t>(size_t(kWidth) * kHeight * 4, 90)};
  const auto png = encode_png(plate);
  write_text_file(dir / "plate.png", std::string(png.begin(), png.end()));
  LinearImage depth{kWidth, kHeight, std::vector<float>(size_t(kWidth) * kHeight * 4, 1.0f)};
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int k = 0; k < 3; ++k)
        depth.rgba[(size_t(y) * kWidth + size_t(x)) * 4 + size_t(k)] = (x < kWall ? 1000.0f : 65000.0f) / 65535.0f;
  PngSettings data;
  data.srgb = false;
  const auto depth_png = encode_png16(depth, data);
  write_text_file(dir / "depth.png", std::string(depth_png.begin(), depth_png.end()));
  write_text_file(dir / "edge.json", fmt::format(R"({{"fxsim": 1, "seed": 3,
      "output": {{"width": {}, "height": {}, "frames": 2, "background": "#000000", "plate": "{}", "plate_depth": "{}"}},
      "camera": {{"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50}},
      "environment": {{"ground": null}},
      "emitters": [{{"name": "flake", "type": "snow", "max_particles": 1, "size": 3, "color": "#ffffff",
        "opacity": 1, "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null,
        "shapes": 1, "region": {{"center": [0, 2, 0], "size": [0.001, 0.001, 0.001]}}}}]}})",
                                                 kWidth, kHeight, (dir / "plate.png").string(),
                                                 (dir / "depth.png").string()));
  double beyond[2] = {0, 0};  // the flake's light right of the wall, full and half size
  for (const bool half : {false, true}) {
    const char* fill = half ? "half" : "full";
    const ExrChannels frame = read_exr(render_fill(dir, dir / "edge.json", fill, "", 2, "a", "exr"));
    const std::vector<float>& red = frame.channels.at("R");
    const float wall = red[size_t(kHeight / 2) * kWidth + 10];  // the plate alone
    for (int y = kHeight / 2 - 30; y <= kHeight / 2 + 30; ++y) {
      for (int x = kWall - 30; x < kWall; ++x)
        EXPECT_EQ(red[size_t(y) * kWidth + size_t(x)], wall) << fill << ": the flake shows on the wall at " << x << ", " << y;
      for (int x = kWall; x < kWall + 30; ++x) beyond[half] += red[size_t(y) * kWidth + size_t(x)] - wall;
    }
  }
  EXPECT_GT(beyond[0], 50.0);  // the flake (a procedural star) is drawn beyond the wall
  EXPECT_NEAR(beyond[1] / beyond[0], 1.0, 0.1) << "the flake's light beyond the wall at half size";
}
