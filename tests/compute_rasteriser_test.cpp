// The compute rasteriser (render/compute_rasteriser.h) and the CPU
// rasteriser (core/sprite_rasteriser.h) against the GL rasteriser, run as a
// user runs fxsim (llvmpipe in CI): the example scenes' frames agree within
// the golden tolerance, repeated runs (and the CPU's any number of threads)
// write the same bytes, a sprite reaching through the near plane is drawn,
// tiles listing more sprites (flakes, or tall streaks) than one pass walks
// are drawn whole, auto picks
// the CPU's for small sprites on a software GL, and the switch refuses what
// it does not know.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// The PNG bytes of `scene`'s frame `frame` drawn by the compute rasteriser
// with `options`, written under `dir` as `name`-#.png.
std::string compute_frame_bytes(const TempDir& dir, const std::string& name, const fs::path& scene, int frame,
                                const std::string& options) {
  const CliResult r = run_fxsim(fmt::format("render '{}' {} --frames {} -q --rasteriser compute -o '{}'",
                                            scene.string(), options, frame, (dir / (name + "-#.png")).string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_text_file(dir / fmt::format("{}-{}.png", name, frame));
}

// `other_only`: options of the other rasteriser alone (GL refuses --part-sprites).
void expect_same_frame(const TempDir& dir, const fs::path& scene, int frame,
                       const std::string& extra = "--width 160 --height 90", const std::string& other = "compute",
                       const std::string& other_only = "") {
  const ImageComparison c = compare_images(render_with(dir, scene, "gl", frame, extra),
                                           render_with(dir, scene, other, frame, extra + " " + other_only),
                                           kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure)
      << scene << " frame " << frame << ": " << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
}


// A metre-wide flake turning about +Y to face the eye, 0.1 m in front of it
// and 0.3 m to the side: its quad runs from in front of the eye to behind it.
constexpr const char* kNearScene = R"({"fxsim": 1, "output": {"width": 96, "height": 64, "frames": 1, "background": "#000000"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 60},
    "environment": {"ground": null},
    "emitters": [{"type": "snow", "max_particles": 1, "size": 1, "opacity": 1, "billboard": "axial",
      "color": "#ffffff", "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null,
      "region": {"center": [0.3, 2, 9.9], "size": [0.001, 0.001, 0.001]}}]})";

// `flakes` of them in one place; `extra`: the other rasteriser's options.
void expect_near_sprite_drawn(const std::string& rasteriser, int flakes = 1, const std::string& extra = "") {
  TempDir dir(rasteriser + "-near");
  std::string scene = kNearScene;
  const std::string one = "\"max_particles\": 1,";
  scene.replace(scene.find(one), one.size(), fmt::format("\"max_particles\": {},", flakes));
  write_text_file(dir / "near.json", scene);
  const Image gl = render_with(dir, dir / "near.json", "gl", 1, "");
  const Image other = render_with(dir, dir / "near.json", rasteriser, 1, extra);
  size_t lit = 0;
  for (size_t i = 0; i < gl.rgba.size(); i += 4) lit += gl.rgba[i] > 20;
  ASSERT_GT(lit, gl.rgba.size() / 4 / 10);  // the flake covers a good part of the frame
  const ImageComparison c = compare_images(gl, other, kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure) << c.fail_percent() << " % of pixels over 3/255";
}
}  // namespace

TEST(ComputeRasteriser, DrawsTheExampleScenesAsTheGlRasteriserDoes) {
  TempDir dir("compute-examples");
  // Flakes; flakes lit by lamps, streaked by the shutter and blurred by the
  // lens; rain over a plate with depth and a soft edge; a fountain's streaks
  // and mist in the wind.
  expect_same_frame(dir, example_scene("snow"), 24);
  expect_same_frame(dir, example_scene("snow-streetlamp"), 1);
  expect_same_frame(dir, example_scene("rain-over-plate"), 1, "--width 320 --height 180");
  expect_same_frame(dir, example_scene("fountain-windy"), 48);
}

TEST(ComputeRasteriser, RepeatedRunsWriteTheSameBytes) {
  TempDir dir("compute-repeat");
  for (const char* run : {"a", "b"})
    ASSERT_EQ(run_fxsim(fmt::format("render '{}' --width 160 --height 90 --frames 12 -q --rasteriser compute -o '{}'",
                                    example_scene("rain").string(), (dir / fmt::format("{}-#.png", run)).string()))
                  .exit_code,
              0);
  EXPECT_EQ(read_text_file(dir / "a-12.png"), read_text_file(dir / "b-12.png"));
}

TEST(ComputeRasteriser, ASpriteReachingThroughTheNearPlaneIsDrawnAsGlClipsIt) { expect_near_sprite_drawn("compute"); }

TEST(ComputeRasteriser, SpritesReachingThroughTheNearPlaneOfABatchInPartsAreDrawn) {
  // 40 such flakes in parts of 16: each part's are kept, and drawn once the batch is in.
  expect_near_sprite_drawn("compute", 40, "--part-sprites 16");
}

namespace {
// 4000 white flakes of `opacity` in a few pixels: each tile lists more
// sprites than one pass walks on llvmpipe (1024). The compute rasteriser
// draws them as GL does; returns its frame. `falling`: each 0.05 m across,
// falling at 20 m/s under a shutter open the whole frame, so that they are
// streaks several times taller than wide (the blend's blocks for tall
// sprites), and moving `across` m/s to the right as they fall (the blocks
// then lean as the streaks do); else 0.4 m still flakes. `size`, where
// given, in place of those. `compute_only`: the compute rasteriser's options.
Image expect_deep_tiles_drawn(const std::string& name, double opacity, bool falling = false, double across = 0,
                              double size = 0, const std::string& compute_only = "") {
  TempDir dir(name);
  write_text_file(dir / "deep.json", fmt::format(R"({{"fxsim": 1, "seed": 5, "output": {{"width": 32, "height": 32, "frames": 1, "background": "#000000"}},
    "camera": {{"position": [0, 2, 10], "target": [0, 2, 0], "fov": 30{}}},
    "environment": {{"ground": null}},
    "emitters": [{{"type": "snow", "max_particles": 4000, "size": {}, "opacity": {}, "color": "#ffffff",
      "motion": "constant", "velocity": [{}, {}, 0], "velocity_variation": [0, 0, 0], "sway": null,
      "region": {{"center": [0, 2, 0], "size": [1, 1, 1]}}}}]}})", falling ? ", \"shutter\": 1" : "",
                                                 size > 0 ? size : falling ? 0.05 : 0.4, opacity, across,
                                                 falling ? -20 : 0));
  const Image gl = render_with(dir, dir / "deep.json", "gl", 1, "");
  const Image compute = render_with(dir, dir / "deep.json", "compute", 1, compute_only);
  const ImageComparison c = compare_images(gl, compute, kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure) << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
  return compute;
}
}  // namespace

TEST(ComputeRasteriser, TilesListingMoreSpritesThanAPassAreDrawnWhole) {
  // Faint: no pixel turns opaque early.
  const Image compute = expect_deep_tiles_drawn("compute-deep", 0.002);
  EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 60);  // the middle: 4000 × 0.002 of white, mostly there
}

TEST(ComputeRasteriser, TilesListingMoreTallStreaksThanAPassAreDrawnWhole) {
  // The blend's invocations cover blocks 2 pixels wide for these (4 for the
  // flakes above); the merge of the tiles' segments must place them alike.
  const Image compute = expect_deep_tiles_drawn("compute-deep-tall", 0.05, true);
  EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 40);  // 55 when written
}

TEST(ComputeRasteriser, TilesListingMoreLeaningStreaksThanAPassAreDrawnWhole) {
  // Streaks leaning a quarter and a third of a pixel a row, right and left:
  // the blocks lean with them (each row's pixels turned round the tile), in
  // the blend and in the merge alike.
  for (double across : {5.0, -7.0}) {
    SCOPED_TRACE(across);
    const Image compute = expect_deep_tiles_drawn(fmt::format("compute-deep-lean{}", across), 0.05, true, across);
    EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 40);
  }
}

TEST(ComputeRasteriser, TilesWhoseFrontTurnsOpaqueAreDrawnWhole) {
  // Half opaque: the middle pixels turn opaque within their tiles' front
  // segment; what the segments behind it hold adds (almost) nothing there.
  const Image compute = expect_deep_tiles_drawn("compute-opaque", 0.5);
  EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 200);  // (GL: 218; a flake is soft at its rim)
}

TEST(ComputeRasteriser, TilesOfLeaningStreaksWhoseFrontTurnsOpaqueAreDrawnWhole) {
  // The blend walks tall sprites' lists in chunks, each block drawing the
  // entries marked for it: newest first, each pixel stopping where it turns
  // opaque, and the streaks' own order still deciding what shows. Streaks
  // 0.25 m wide and opaque: the middle pixels stop within the first chunks.
  const Image compute = expect_deep_tiles_drawn("compute-opaque-lean", 1.0, true, 5.0, 0.25);
  EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 200);  // 213 when written (lit white, as the flakes above)
}

TEST(ComputeRasteriser, CoverageFromEdgePlanesDrawsAsTheGlRasteriserDoes) {
  // --coverage planes (auto takes them for draws of a million sprites, which
  // no test here draws): each entry's edge planes found once in shared
  // memory, in chunks of 128 with a second barrier a chunk. Deep tiles of
  // faint flakes, of leaning streaks both ways, opaque ones stopping early;
  // lit, streaked and blurred flakes, rain over a plate, a fountain.
  const std::string planes = "--coverage planes";
  EXPECT_GT(expect_deep_tiles_drawn("planes-deep", 0.002, false, 0, 0, planes).rgba[(16 * 32 + 16) * 4], 60);
  for (double across : {5.0, -7.0}) {
    SCOPED_TRACE(across);
    const Image compute = expect_deep_tiles_drawn(fmt::format("planes-lean{}", across), 0.05, true, across, 0, planes);
    EXPECT_GT(compute.rgba[(16 * 32 + 16) * 4], 40);
  }
  EXPECT_GT(expect_deep_tiles_drawn("planes-opaque", 0.5, false, 0, 0, planes).rgba[(16 * 32 + 16) * 4], 200);
  EXPECT_GT(expect_deep_tiles_drawn("planes-opaque-lean", 1.0, true, 5.0, 0.25, planes).rgba[(16 * 32 + 16) * 4], 200);
  TempDir dir("compute-planes");
  const std::string size = "--width 160 --height 90";
  expect_same_frame(dir, example_scene("snow-streetlamp"), 1, size, "compute", planes);
  expect_same_frame(dir, example_scene("rain-over-plate"), 1, "--width 320 --height 180", "compute", planes);
  expect_same_frame(dir, example_scene("fountain-windy"), 48, size, "compute", planes);
}

TEST(ComputeRasteriser, ABatchDrawnInPartsNewestFirstLooksAsOneDrawnWhole) {
  // Parts of 256 sprites, each behind the parts drawn before it (the
  // newer): flakes, lit flakes, rain over a plate, a fountain's streaks and
  // mist; and the same bytes again.
  TempDir dir("compute-parts");
  const std::string size = "--width 160 --height 90", parts = "--part-sprites 256";
  expect_same_frame(dir, example_scene("snow"), 24, size, "compute", parts);
  expect_same_frame(dir, example_scene("snow-streetlamp"), 1, size, "compute", parts);
  expect_same_frame(dir, example_scene("rain-over-plate"), 1, "--width 320 --height 180", "compute", parts);
  expect_same_frame(dir, example_scene("fountain-windy"), 48, size, "compute", parts);
  const std::string again = fmt::format("{}-again", (dir / "fountain-windy").string());
  ASSERT_EQ(run_fxsim(fmt::format("render '{}' {} {} --frames 48 -q --rasteriser compute -o '{}-#.png'",
                                  example_scene("fountain-windy").string(), size, parts, again))
                .exit_code,
            0);
  EXPECT_EQ(read_text_file(dir / "fountain-windy-compute-48.png"), read_text_file(again + "-48.png"));
}

TEST(ComputeRasteriser, ABatchInPartsThatDrawsNothingAddsNothing) {
  // Two batches in parts of 16: lit flakes in front of the eye, then
  // (nearer, so drawn after them) flakes behind it, none of which reaches
  // a tile: the second must not put the first's light over the frame again.
  TempDir dir("compute-parts-empty");
  write_text_file(dir / "behind.json", R"({"fxsim": 1, "seed": 2, "output": {"width": 64, "height": 48, "frames": 1, "background": "#000000"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 40}, "environment": {"ground": null},
    "emitters": [
      {"type": "snow", "max_particles": 200, "size": 0.3, "opacity": 0.8, "color": "#ffffff", "motion": "constant",
       "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null, "region": {"center": [0, 2, 0], "size": [4, 3, 1]}},
      {"type": "snow", "max_particles": 200, "size": 0.3, "opacity": 0.8, "color": "#ffffff", "motion": "constant",
       "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null, "region": {"center": [0, 2, 12], "size": [4, 3, 1]}}]})");
  const Image gl = render_with(dir, dir / "behind.json", "gl", 1, "");
  const Image parts = render_with(dir, dir / "behind.json", "compute", 1, "--part-sprites 16");
  const ImageComparison c = compare_images(gl, parts, kGoldenTolerance);
  EXPECT_NE(c.verdict, CompareVerdict::failure) << c.fail_percent() << " % of pixels over 3/255, max " << c.max * 255;
}

TEST(ComputeRasteriser, AnUnknownRasteriserIsAUsageError) {
  const CliResult r = run_fxsim(fmt::format("render '{}' --rasteriser vulkan -q -o /dev/null", example_scene("snow").string()));
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--rasteriser"), std::string::npos) << r.err;
}

TEST(ComputeRasteriser, TileListsOfRecordsDrawTheSameBytesAsListsOfIndices) {
  // Streaks near the ground, flakes lit, blurred and streaked, a fountain's
  // alpha and additive batches, fire and smoke: each sprite read from its
  // record in the sorted lists, or through its index, is the same sprite.
  TempDir dir("compute-tile-lists");
  for (const auto& [scene, frame] : {std::pair<const char*, int>{"rain", 12}, {"snow-streetlamp", 6},
                                     {"fountain-windy", 48}, {"campfire", 24}}) {
    // Structured bindings are captured by copy, by name: clang 14 (Debian
    // 12's) cannot capture them implicitly.
    const auto bytes = [&dir, scene = scene, frame = frame](const char* form) {
      return compute_frame_bytes(dir, fmt::format("{}-{}", scene, form), example_scene(scene), frame,
                                 fmt::format("--width 160 --height 90 --tile-lists {}", form));
    };
    EXPECT_EQ(bytes("indices"), bytes("records")) << scene;
  }
  const CliResult bad = run_fxsim(fmt::format("render '{}' --tile-lists sorted -q -o /dev/null", example_scene("snow").string()));
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  EXPECT_NE(bad.err.find("--tile-lists"), std::string::npos) << bad.err;
}

TEST(ComputeRasteriser, CoverageFromEdgePlanesIsTheSameBytesWhateverTheListsHoldAndFromRunToRun) {
  // The planes are found from the entry as its list holds it, a record or
  // the sprite an index names: the same floats, so the same bytes; and again.
  TempDir dir("compute-planes-lists");
  for (const auto& [scene, frame] : {std::pair<const char*, int>{"rain", 12}, {"fountain-windy", 48}}) {
    const auto bytes = [&dir, scene = scene, frame = frame](const char* form, int run) {
      return compute_frame_bytes(dir, fmt::format("{}-{}{}", scene, form, run), example_scene(scene), frame,
                                 fmt::format("--width 160 --height 90 --coverage planes --tile-lists {}", form));
    };
    const std::string indices = bytes("indices", 0);
    EXPECT_EQ(indices, bytes("records", 1)) << scene << ": indices against records";
    EXPECT_EQ(indices, bytes("indices", 2)) << scene << ": run to run";
  }
  // And the planes did draw: rain's frame 6 at 320x180 has samples on an
  // edge that the corners round otherwise (a pixel or two, by 1/255).
  const auto walk = [&](const char* name) {
    return compute_frame_bytes(dir, fmt::format("walk-{}", name), example_scene("rain"), 6,
                               fmt::format("--width 320 --height 180 --coverage {}", name));
  };
  const std::string corners = walk("corners"), planes = walk("planes");
  EXPECT_FALSE(corners.empty());
  EXPECT_NE(corners, planes);
  const CliResult bad = run_fxsim(fmt::format("render '{}' --coverage exact -q -o /dev/null", example_scene("snow").string()));
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  EXPECT_NE(bad.err.find("--coverage"), std::string::npos) << bad.err;
}

TEST(CpuRasteriser, DrawsTheExampleScenesAsTheGlRasteriserDoes) {
  TempDir dir("cpu-examples");
  // Flakes; flakes lit by lamps, streaked by the shutter and blurred by the
  // lens; rain over a plate with depth and a soft edge; a fountain's streaks
  // and mist in the wind; a fire's grid, a texture made each frame.
  const std::string size = "--width 160 --height 90";
  expect_same_frame(dir, example_scene("snow"), 24, size, "cpu");
  expect_same_frame(dir, example_scene("snow-streetlamp"), 1, size, "cpu");
  expect_same_frame(dir, example_scene("rain-over-plate"), 1, "--width 320 --height 180", "cpu");
  expect_same_frame(dir, example_scene("fountain-windy"), 48, size, "cpu");
  expect_same_frame(dir, example_scene("campfire"), 24, size, "cpu");
}

TEST(CpuRasteriser, AnyNumberOfThreadsWritesTheSameBytes) {
  TempDir dir("cpu-threads");
  for (const char* threads : {"1", "2", "3"})
    ASSERT_EQ(run_fxsim(fmt::format("render '{}' --width 160 --height 90 --frames 12 -q --rasteriser cpu --threads {} "
                                    "-o '{}'",
                                    example_scene("rain").string(), threads, (dir / fmt::format("{}-#.png", threads)).string()))
                  .exit_code,
              0);
  EXPECT_EQ(read_text_file(dir / "1-12.png"), read_text_file(dir / "2-12.png"));
  EXPECT_EQ(read_text_file(dir / "1-12.png"), read_text_file(dir / "3-12.png"));
}

TEST(CpuRasteriser, ASpriteReachingThroughTheNearPlaneIsDrawnAsGlClipsIt) { expect_near_sprite_drawn("cpu"); }

TEST(CpuRasteriser, AutoDrawsSmallSpritesOnTheCpuOfASoftwareGlAndLargeOnesWithGl) {
  TempDir dir("cpu-auto");
  const nlohmann::json said = fxsim_info();
  const bool software = fxsim_gl_is_software(said);
  EXPECT_NE(said.at("auto_rasteriser_rule").get<std::string>().find("`--rasteriser auto` draws"), std::string::npos);
  // Snow's flakes are a few pixels each; a flake 2 m wide 4 m away is about
  // 28 pixels wide. 200 of them: enough for the frame (one for every 64 of
  // its 96x64 pixels), so only their size leaves them to GL.
  std::string large = kNearScene;
  large.replace(large.find(R"("billboard": "axial",)"), 21, "");
  large.replace(large.find("[0.3, 2, 9.9]"), 13, "[0, 2, 6]");
  large.replace(large.find(R"("size": 1,)"), 10, R"("size": 2,)");
  std::string few = large;
  large.replace(large.find(R"("max_particles": 1,)"), 19, R"("max_particles": 200,)");
  write_text_file(dir / "large.json", large);
  // One flake 2 pixels wide: small, but too few for the frame's layer.
  few.replace(few.find(R"("size": 2,)"), 10, R"("size": 0.15,)");
  write_text_file(dir / "few.json", few);
  const Image small_auto = render_with(dir, example_scene("snow"), "auto", 12);
  const Image small_picked = render_with(dir, example_scene("snow"), software ? "cpu" : "gl", 12);
  EXPECT_EQ(small_auto.rgba, small_picked.rgba) << (software ? "auto should draw small flakes on the CPU" : "");
  const Image large_auto = render_with(dir, dir / "large.json", "auto", 1, "");
  const Image large_gl = render_with(dir, dir / "large.json", "gl", 1, "");
  const Image large_cpu = render_with(dir, dir / "large.json", "cpu", 1, "");
  ASSERT_NE(large_cpu.rgba, large_gl.rgba);  // (else the comparison below shows nothing)
  EXPECT_EQ(large_auto.rgba, large_gl.rgba) << "auto should leave large sprites to GL";
  const Image few_auto = render_with(dir, dir / "few.json", "auto", 1, "");
  const Image few_gl = render_with(dir, dir / "few.json", "gl", 1, "");
  const Image few_cpu = render_with(dir, dir / "few.json", "cpu", 1, "");
  ASSERT_NE(few_cpu.rgba, few_gl.rgba);
  EXPECT_EQ(few_auto.rgba, few_gl.rgba) << "auto should leave a batch too few for the frame to GL";
}
