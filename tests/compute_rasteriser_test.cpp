// The compute rasteriser (render/compute_rasteriser.h) against the GL
// rasteriser, run as a user runs fxsim (llvmpipe in CI): the example scenes'
// frames agree within the golden tolerance, repeated runs write the same
// bytes, a sprite reaching through the near plane is drawn, tiles listing
// more sprites than one pass walks are drawn whole, and the switch refuses
// what it does not know.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <string>

#include "cli_runner.h"
#include "golden_tolerance.h"
#include "core/image.h"
#include "core/image_compare.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
// Renders `scene` with the given rasteriser and returns frame `frame`.
Image render_with(const TempDir& dir, const fs::path& scene, const std::string& rasteriser, int frame,
                  const std::string& extra = "--width 160 --height 90") {
  const std::string name = fmt::format("{}-{}-#.png", scene.stem().string(), rasteriser);
  const CliResult r = run_fxsim(fmt::format("render '{}' {} --frames {} -q --rasteriser {} -o '{}'", scene.string(),
                                            extra, frame, rasteriser, (dir / name).string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_png(dir / fmt::format("{}-{}-{}.png", scene.stem().string(), rasteriser, frame));
}

void expect_same_frame(const TempDir& dir, const fs::path& scene, int frame,
                       const std::string& extra = "--width 160 --height 90") {
  const ImageComparison c =
      compare_images(render_with(dir, scene, "gl", frame, extra), render_with(dir, scene, "compute", frame, extra),
                     kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure)
      << scene << " frame " << frame << ": " << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
}

fs::path example(const std::string& name) { return fs::path(FXSIM_SOURCE_DIR) / "scenes" / (name + ".json"); }
}  // namespace

TEST(ComputeRasteriser, DrawsTheExampleScenesAsTheGlRasteriserDoes) {
  TempDir dir("compute-examples");
  // Flakes; flakes lit by lamps, streaked by the shutter and blurred by the
  // lens; rain over a plate with depth and a soft edge; a fountain's streaks
  // and mist in the wind.
  expect_same_frame(dir, example("snow"), 24);
  expect_same_frame(dir, example("snow-streetlamp"), 1);
  expect_same_frame(dir, example("rain-over-plate"), 1, "--width 320 --height 180");
  expect_same_frame(dir, example("fountain-windy"), 48);
}

TEST(ComputeRasteriser, RepeatedRunsWriteTheSameBytes) {
  TempDir dir("compute-repeat");
  for (const char* run : {"a", "b"})
    ASSERT_EQ(run_fxsim(fmt::format("render '{}' --width 160 --height 90 --frames 12 -q --rasteriser compute -o '{}'",
                                    example("rain").string(), (dir / fmt::format("{}-#.png", run)).string()))
                  .exit_code,
              0);
  EXPECT_EQ(read_text_file(dir / "a-12.png"), read_text_file(dir / "b-12.png"));
}

TEST(ComputeRasteriser, ASpriteReachingThroughTheNearPlaneIsDrawnAsGlClipsIt) {
  TempDir dir("compute-near");
  // A metre-wide flake turning about +Y to face the eye, 0.1 m in front of
  // it and 0.3 m to the side: its quad runs from in front of the eye to
  // behind it.
  write_text_file(dir / "near.json", R"({"fxsim": 1, "output": {"width": 96, "height": 64, "frames": 1, "background": "#000000"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 60},
    "environment": {"ground": null},
    "emitters": [{"type": "snow", "max_particles": 1, "size": 1, "opacity": 1, "billboard": "axial",
      "color": "#ffffff", "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null,
      "region": {"center": [0.3, 2, 9.9], "size": [0.001, 0.001, 0.001]}}]})");
  const Image gl = render_with(dir, dir / "near.json", "gl", 1, "");
  const Image compute = render_with(dir, dir / "near.json", "compute", 1, "");
  size_t lit = 0;
  for (size_t i = 0; i < gl.rgba.size(); i += 4) lit += gl.rgba[i] > 20;
  ASSERT_GT(lit, gl.rgba.size() / 4 / 10);  // the flake covers a good part of the frame
  const ImageComparison c = compare_images(gl, compute, kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure) << c.fail_percent() << " % of pixels over 3/255";
}

TEST(ComputeRasteriser, TilesListingMoreSpritesThanAPassAreDrawnWhole) {
  TempDir dir("compute-deep");
  // 4000 faint flakes in a few pixels: each tile lists more sprites than
  // one pass walks on llvmpipe (1024), and no pixel turns opaque early.
  write_text_file(dir / "deep.json", R"({"fxsim": 1, "seed": 5, "output": {"width": 32, "height": 32, "frames": 1, "background": "#000000"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 30},
    "environment": {"ground": null},
    "emitters": [{"type": "snow", "max_particles": 4000, "size": 0.4, "opacity": 0.002, "color": "#ffffff",
      "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null,
      "region": {"center": [0, 2, 0], "size": [1, 1, 1]}}]})");
  const Image gl = render_with(dir, dir / "deep.json", "gl", 1, "");
  const Image compute = render_with(dir, dir / "deep.json", "compute", 1, "");
  const ImageComparison c = compare_images(gl, compute, kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure) << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
  EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 60);  // the middle: 4000 × 0.002 of white, mostly there
}

TEST(ComputeRasteriser, AnUnknownRasteriserIsAUsageError) {
  const CliResult r = run_fxsim(fmt::format("render '{}' --rasteriser vulkan -q -o /dev/null", example("snow").string()));
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--rasteriser"), std::string::npos) << r.err;
}
