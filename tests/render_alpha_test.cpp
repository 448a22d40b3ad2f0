// Output for compositing: a transparent background gives alpha 0 where no
// particle draws, and the frame composited over the background colour gives
// the opaque render back; OpenEXR frames carry premultiplied linear RGBA;
// 16-bit PNG; an unsupported extension is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "cli_runner.h"
#include "core/color.h"
#include "core/exr_file.h"
#include "core/frame_output.h"
#include "core/image.h"
#include "core/png_writer.h"
#include "core/camera_path.h"
#include "core/scene_parser.h"
#include <glm/mat4x4.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
// A few flakes in the middle of the view, no ground: most pixels see nothing.
const std::string kAlphaScene = R"({"fxsim": 1, "seed": 5,
  "output": {"width": 96, "height": 54, "frames": 4, "background": "#203050"},
  "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50},
  "emitters": [{"type": "snow", "max_particles": 400, "size": 0.15,
                "region": {"center": [0, 2, 0], "size": [3, 2, 3]}}]})";

fs::path render(const TempDir& dir, const std::string& output, const std::string& flags = "") {
  if (!fs::exists(dir / "scene.json")) write_text_file(dir / "scene.json", kAlphaScene);
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 4 -q -o '{}' {}", (dir / "scene.json").string(),
                                            (dir / output).string(), flags));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir / frame_path(output, 4);
}
}  // namespace

TEST(RenderAlpha, ATransparentBackgroundLeavesAlphaZeroWhereNothingDraws) {
  TempDir dir("alpha");
  const Image im = read_png(render(dir, "t_#.png", "--set /output/background=transparent"));
  size_t clear = 0, covered = 0;
  for (size_t i = 3; i < im.rgba.size(); i += 4) (im.rgba[i] == 0 ? clear : covered)++;
  EXPECT_GT(clear, im.rgba.size() / 4 / 2);  // most of the frame: nothing there
  EXPECT_GT(covered, 50u);                   // and the flakes are
  // The corners are far from the flakes' box.
  for (const size_t p : {size_t(0), size_t(95), size_t(96 * 53), size_t(96 * 54 - 1)}) {
    EXPECT_EQ(im.rgba[p * 4 + 3], 0) << p;
    EXPECT_EQ(im.rgba[p * 4], 0) << p;
  }
}

namespace {
// The largest difference, in 8-bit steps, between the transparent frame of
// the scene in `dir` composited over #203050 and its opaque render.
int worst_over_the_background(const TempDir& dir) {
  // The transparent frame in EXR (premultiplied linear), the opaque one in
  // 16-bit PNG: both rendered in float.
  const ExrChannels t = read_exr(render(dir, "t_#.exr", "--set /output/background=transparent"));
  const Image opaque = read_png(render(dir, "o_#.png", "--set /output/bit_depth=16"));
  if (t.width != opaque.width || t.height != opaque.height) {
    ADD_FAILURE() << "the two frames' sizes differ";
    return 255;
  }
  const Color background = *parse_hex_color("#203050");
  const glm::vec4 b = background.linear();
  int worst = 0;
  for (size_t p = 0; p < size_t(t.width * t.height); ++p) {
    const float a = t.channels.at("A")[p];
    for (int c = 0; c < 3; ++c) {
      const float premultiplied = t.channels.at(std::string(1, "RGB"[c]))[p];
      const float over = premultiplied + (1 - a) * b[c];
      const int value = int(std::lround(linear_to_srgb(std::clamp(over, 0.0f, 1.0f)) * 255));
      worst = std::max(worst, std::abs(value - int(opaque.rgba[p * 4 + size_t(c)])));
    }
  }
  return worst;
}
}  // namespace

TEST(RenderAlpha, OverTheBackgroundTheTransparentFrameIsTheOpaqueOne) {
  TempDir dir("over");
  EXPECT_LE(worst_over_the_background(dir), 1);
  const Image opaque = read_png(dir / "o_4.png");
  // Against the usual 8-bit render, whose blending rounds to 8 bits at every sprite, it stays close too.
  const Image eight = read_png(render(dir, "e_#.png"));
  int worst8 = 0;
  for (size_t i = 0; i < eight.rgba.size(); ++i)
    if (i % 4 != 3) worst8 = std::max(worst8, std::abs(int(eight.rgba[i]) - int(opaque.rgba[i])));
  EXPECT_LE(worst8, 3);
}

TEST(RenderAlpha, TheGroundFadesIntoATransparentBackgroundAsIntoAnOpaqueOne) {
  // The ground's far part fades into the background: into a transparent one
  // it went to black, opaque (up to 4/255 off once composited).
  TempDir dir("over_ground");
  std::string scene = kAlphaScene;
  scene.replace(scene.find("\"emitters\""), 0, R"("environment": {"ground": {"height": 0, "color": "#dfe6ee"}}, )");
  write_text_file(dir / "scene.json", scene);
  EXPECT_LE(worst_over_the_background(dir), 1);
}

TEST(RenderAlpha, ATransparentFrameCoveredAllOverIsStillRgba) {
  // A camera looking down at the ground: every pixel opaque. Its frames came
  // out RGB where the others of the sequence were RGBA (a loader expecting
  // four channels failed on them).
  TempDir dir("covered");
  std::string scene = kAlphaScene;
  scene.replace(scene.find("\"emitters\""), 0, R"("environment": {"ground": {"height": 0, "color": "#808080"}}, )");
  write_text_file(dir / "scene.json", scene);
  const std::string down = "--set /output/background=transparent --set /camera/position=[0,5,10] --set /camera/target=[0,0,9]";
  for (const std::string output : {"t_#.png", "s_#.png --set /output/bit_depth=16"}) {
    const fs::path frame = render(dir, output.substr(0, 7), down + output.substr(7));
    const std::string bytes = read_text_file(frame);
    ASSERT_GT(bytes.size(), 26u);
    EXPECT_EQ(bytes[25], 6) << output << ": colour type (6 is RGBA)";  // IHDR's colour type
    const Image im = read_png(frame);
    for (size_t i = 3; i < im.rgba.size(); i += 4) ASSERT_EQ(im.rgba[i], 255) << output << ": covered all over";
  }
}

TEST(RenderAlpha, ExrFramesArePremultipliedLinearHalfRgba) {
  TempDir dir("exr");
  const ExrChannels t = read_exr(render(dir, "f_#.exr", "--set /output/background=transparent"));
  EXPECT_EQ(t.width, 96);
  EXPECT_EQ(t.height, 54);
  ASSERT_EQ(t.channels.size(), 4u);
  for (const char* name : {"R", "G", "B", "A"}) EXPECT_TRUE(t.channels.count(name)) << name;
  size_t covered = 0;
  for (size_t p = 0; p < size_t(96 * 54); ++p) {
    const float a = t.channels.at("A")[p];
    covered += a > 0;
    for (const char* c : {"R", "G", "B"}) EXPECT_LE(t.channels.at(c)[p], a + 1e-3f) << p;  // premultiplied
  }
  EXPECT_GT(covered, 50u);
  // output.bit_depth 16 is PNG's: taken without a word for EXR frames before.
  const CliResult sixteen = run_fxsim(fmt::format("render '{}' --frames 1 -o '{}' --set /output/bit_depth=16",
                                                  (dir / "scene.json").string(), (dir / "s_#.exr").string()));
  EXPECT_EQ(sixteen.exit_code, 0) << sixteen.err;
  EXPECT_NE(sixteen.err.find("output.bit_depth 16 is for PNG frames"), std::string::npos) << sixteen.err;
  const std::string bytes = read_text_file(dir / "f_4.exr");
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x76\x2f\x31\x01", 4));  // the OpenEXR magic number
}

TEST(RenderAlpha, AdditiveLightOverTransparentPngFramesIsWarnedAbout) {
  // Fire adds light but no coverage: straight-alpha PNG frames keep none of it
  // over nothing (exit 0 with transparent black); EXR keeps it, unwarned.
  TempDir dir("additive");
  const std::string scene = FXSIM_SOURCE_DIR "/scenes/campfire.json";
  const std::string args = " --frames 2 --width 48 --height 27 -q --set /output/background=transparent -o '";
  const CliResult png = run_fxsim("render '" + scene + "'" + args + (dir / "f_#.png").string() + "'");
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_NE(png.err.find("warning: emitter \"campfire\" adds light without coverage"), std::string::npos) << png.err;
  EXPECT_NE(png.err.find("write EXR frames (-o " + (dir / "f_#.exr").string() + ")"), std::string::npos) << png.err;
  const CliResult exr = run_fxsim("render '" + scene + "'" + args + (dir / "f_#.exr").string() + "'");
  ASSERT_EQ(exr.exit_code, 0) << exr.err;
  EXPECT_EQ(exr.err.find("adds light without coverage"), std::string::npos) << exr.err;
  // A light's glowing disc is such light too (lost without a word before).
  const std::string lamps = FXSIM_SOURCE_DIR "/scenes/rain-night-drive.json";
  const CliResult glow = run_fxsim("render '" + lamps + "' --unset /environment/sky" + args + (dir / "g_#.png").string() + "'");
  ASSERT_EQ(glow.exit_code, 0) << glow.err;
  EXPECT_NE(glow.err.find("warning: a light's glowing disc (its \"size\") is light without coverage"),
            std::string::npos) << glow.err;
  const CliResult opaque = run_fxsim("render '" + lamps + "' --frames 2 --width 48 --height 27 -q -o '" +
                                     (dir / "o_#.png").string() + "'");
  ASSERT_EQ(opaque.exit_code, 0) << opaque.err;
  EXPECT_EQ(opaque.err.find("glowing disc"), std::string::npos) << opaque.err;
}

TEST(RenderAlpha, SixteenBitPngAndRefusedExtensions) {
  TempDir dir("depth16");
  const std::string bytes = read_text_file(render(dir, "d_#.png", "--set /output/bit_depth=16"));
  EXPECT_EQ(int(uint8_t(bytes.at(24))), 16);  // IHDR bit depth
  write_text_file(dir / "scene.json", kAlphaScene);
  const CliResult jpg = run_fxsim("render '" + (dir / "scene.json").string() + "' -o '" + (dir / "f_#.jpg").string() + "'");
  EXPECT_EQ(jpg.exit_code, 64) << jpg.err;
  EXPECT_NE(jpg.err.find("expected a path ending in .png or .exr"), std::string::npos) << jpg.err;
  const CliResult tif = run_fxsim("render '" + (dir / "scene.json").string() + "' --set /output/path=f_#.tif");
  EXPECT_EQ(tif.exit_code, 65) << tif.err;
  const CliResult depth = run_fxsim("render '" + (dir / "scene.json").string() + "' --set /output/bit_depth=12");
  EXPECT_EQ(depth.exit_code, 65) << depth.err;
  EXPECT_NE(depth.err.find("expected 8 or 16, got 12"), std::string::npos) << depth.err;
  EXPECT_FALSE(fs::exists(dir / "f_4.jpg"));
  // A file name that is only the extension (a script's empty "$prefix.png"):
  // frames ".png" with layers ".png.depth", with no extension.
  const CliResult bare = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 1 -o '" + (dir / "b/.png").string() + "'");
  EXPECT_EQ(bare.exit_code, 64) << bare.err;
  EXPECT_NE(bare.err.find("after a file name"), std::string::npos) << bare.err;
  const CliResult bare_scene = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 1 --set /output/path=b/.exr");
  EXPECT_EQ(bare_scene.exit_code, 65) << bare_scene.err;
  EXPECT_FALSE(fs::exists(dir / "b"));
}

namespace {
// Two snow emitters far apart on screen: "left" and "right", 10 m in front of the camera.
const std::string kTwoEmitters = R"({"fxsim": 1, "seed": 2,
  "output": {"width": 96, "height": 54, "frames": 2, "background": "#000000", "layers": ["depth", "mask"]},
  "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50},
  "emitters": [
    {"name": "left", "type": "snow", "max_particles": 60, "size": 0.3, "motion": "constant", "velocity": [0, 0, 0],
     "velocity_variation": [0, 0, 0], "region": {"center": [-2.5, 2, 0], "size": [0.6, 0.6, 0.02]}},
    {"name": "right", "type": "snow", "max_particles": 60, "size": 0.3, "motion": "constant", "velocity": [0, 0, 0],
     "velocity_variation": [0, 0, 0], "region": {"center": [2.5, 2, 0], "size": [0.6, 0.6, 0.02]}}]})";
}  // namespace

TEST(RenderLayers, EachMaskIsItsEmittersCoverageAloneAndDepthIsTheViewDistance) {
  TempDir dir("layers");
  write_text_file(dir / "scene.json", kTwoEmitters);
  const CliResult r = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 2 -q -o '" +
                                (dir / "f_#.exr").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ExrChannels exr = read_exr(dir / "f_2.exr");
  for (const char* name : {"R", "G", "B", "A", "Z", "mask.left", "mask.right"}) ASSERT_TRUE(exr.channels.count(name)) << name;
  const auto& left = exr.channels.at("mask.left");
  const auto& right = exr.channels.at("mask.right");
  const auto& z = exr.channels.at("Z");
  size_t left_pixels = 0, right_pixels = 0, checked_depth = 0;
  for (int y = 0; y < exr.height; ++y)
    for (int x = 0; x < exr.width; ++x) {
      const size_t p = size_t(y * exr.width + x);
      if (x >= exr.width / 2) {
        EXPECT_EQ(left[p], 0.0f) << x << "," << y;  // only "right" draws there
      } else {
        EXPECT_EQ(right[p], 0.0f) << x << "," << y;
      }
      left_pixels += left[p] > 0;
      right_pixels += right[p] > 0;
      if (left[p] + right[p] > 0.2f) {  // well covered: the nearest particle, 10 m along the view
        EXPECT_NEAR(z[p], 10.0f, 0.1f) << x << "," << y;
        ++checked_depth;
      }
      if (left[p] == 0 && right[p] == 0) {
        EXPECT_TRUE(std::isinf(z[p])) << x << "," << y;  // no particle: infinity
      }
    }
  EXPECT_GT(left_pixels, 10u);
  EXPECT_GT(right_pixels, 10u);
  EXPECT_GT(checked_depth, 5u);
  // PNG output writes them beside the frame: 16-bit depth in millimetres, 8-bit masks, each one grey channel.
  const CliResult png = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 2 -q -o '" +
                                  (dir / "p_#.png").string() + "'");
  ASSERT_EQ(png.exit_code, 0) << png.err;
  for (const char* file : {"p_2.png", "p_2.depth.png", "p_2.mask.left.png", "p_2.mask.right.png"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  const std::string depth = read_text_file(dir / "p_2.depth.png"), mask = read_text_file(dir / "p_2.mask.left.png");
  EXPECT_EQ(int(uint8_t(depth.at(24))), 16);  // IHDR's bit depth, then its colour type (0: grey)
  EXPECT_EQ(int(uint8_t(depth.at(25))), 0);
  EXPECT_EQ(int(uint8_t(mask.at(24))), 8);
  EXPECT_EQ(int(uint8_t(mask.at(25))), 0);
  // Read back, a grey layer gives its value in every channel, as the RGB files did.
  const Image coverage = read_png(dir / "p_2.mask.left.png");
  size_t covered = 0;
  for (size_t i = 0; i < coverage.rgba.size(); i += 4) {
    EXPECT_EQ(coverage.rgba[i], coverage.rgba[i + 1]);
    covered += coverage.rgba[i] > 0;
  }
  EXPECT_GT(covered, 10u);
}

namespace {
// A 96×54 plate, and a depth plate 1 m away on the left half, nothing on the right.
void write_plates(const TempDir& dir, int width = 96) {
  Image plate{width, 54, std::vector<uint8_t>(size_t(width) * 54 * 4, 90)};
  const auto png = encode_png(plate);
  write_text_file(dir / "plate.png", std::string(png.begin(), png.end()));
  LinearImage depth{width, 54, std::vector<float>(size_t(width) * 54 * 4, 1.0f)};
  for (int y = 0; y < 54; ++y)
    for (int x = 0; x < width; ++x) {
      const float mm = x < width / 2 ? 1000.0f : 0.0f;
      for (int c = 0; c < 3; ++c) depth.rgba[(size_t(y) * size_t(width) + size_t(x)) * 4 + size_t(c)] = mm / 65535.0f;
    }
  PngSettings data;
  data.srgb = false;
  const auto depth_png = encode_png16(depth, data);
  write_text_file(dir / "plate.depth.png", std::string(depth_png.begin(), depth_png.end()));
}

std::string with_plate(const std::string& scene) {
  std::string s = scene;
  s.replace(s.find("\"layers\""), 0, R"("plate": "plate.png", "plate_depth": "plate.depth.png", )");
  return s;
}
}  // namespace

TEST(RenderPlates, NoOutputIsWrittenOverAFileTheSceneReads) {
  // -o plates/street.png replaced the scene's plate with the composite, and
  // its depth layer the depth plate (plates/street.depth.png), exit 0: the
  // next render drew over a rainy "clean" plate.
  TempDir dir("over-inputs");
  fs::copy(FXSIM_SOURCE_DIR "/scenes/plates", dir / "plates");
  fs::copy_file(FXSIM_SOURCE_DIR "/scenes/rain-over-plate.json", dir / "scene.json");
  const std::string plate = read_text_file(dir / "plates/street.png");
  const std::string render = "render '" + (dir / "scene.json").string() + "' -q ";
  for (const std::string& output : {"--frames 1 -o '" + (dir / "plates/street.png").string() + "'",
                                    "--frames 1-2 -o '" + (dir / "plates/street_#.png").string() + "' --stats '" +
                                        (dir / "plates/street.depth.png").string() + "'",
                                    "--frames 1-2 -o '" + (dir / "f_#.png").string() + "' --video '" +
                                        (dir / "plates/street.png").string() + "'"}) {
    const CliResult r = run_fxsim(render + output);
    EXPECT_EQ(r.exit_code, 64) << output << "\n" << r.err;
    EXPECT_NE(r.err.find("which the scene reads"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_text_file(dir / "plates/street.png"), plate);
  EXPECT_FALSE(fs::exists(dir / "f_1.png"));
  // A plate sequence: each frame's plate against that frame's files.
  for (int frame = 1; frame <= 2; ++frame) fs::copy_file(dir / "plates/street.png", dir / fmt::format("plates/p_{}.png", frame));
  const std::string sequence = render + "--frames 1-2 --set /output/plate=plates/p_#.png --set /output/layers=[] ";
  const CliResult over = run_fxsim(sequence + "-o '" + (dir / "plates/p_#.png").string() + "'");
  EXPECT_EQ(over.exit_code, 64) << over.err;
  EXPECT_NE(over.err.find("the plate of frame 1"), std::string::npos) << over.err;
  EXPECT_EQ(read_text_file(dir / "plates/p_2.png"), plate);
  // A texture too.
  write_text_file(dir / "snow.json", R"({"fxsim": 1, "output": {"width": 32, "height": 18},
    "emitters": [{"type": "snow", "textures": ["plates/street.png"]}]})");
  const CliResult texture = run_fxsim("render '" + (dir / "snow.json").string() + "' --frames 1 -q -o '" +
                                      (dir / "plates/street.png").string() + "' --set /output/width=320 --set /output/height=180");
  EXPECT_EQ(texture.exit_code, 64) << texture.err;
  EXPECT_NE(texture.err.find("the texture"), std::string::npos) << texture.err;
  EXPECT_EQ(read_text_file(dir / "plates/street.png"), plate);
}

TEST(RenderPlates, ThePlatesDepthHidesParticlesBehindIt) {
  TempDir dir("plate");
  write_plates(dir);
  write_text_file(dir / "scene.json", with_plate(kTwoEmitters));
  const CliResult r = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 2 -q -o '" +
                                (dir / "f_#.exr").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ExrChannels exr = read_exr(dir / "f_2.exr");
  // "left" flies 10 m away, behind the plate's geometry 1 m away: hidden; "right" has nothing in front.
  double left = 0, right = 0;
  for (const float v : exr.channels.at("mask.left")) left += v;
  for (const float v : exr.channels.at("mask.right")) right += v;
  EXPECT_EQ(left, 0.0);
  EXPECT_GT(right, 1.0);
  // In the frame too, whatever draws it: the compute rasteriser drew "left"
  // over the plate unless the scene had a plate_soft (the depth was bound for it alone).
  for (const std::string rasteriser : {"gl", "cpu", "compute"}) {
    const std::string out = (dir / (rasteriser + "_#.exr")).string();
    const CliResult drawn = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 2 -q --rasteriser " +
                                      rasteriser + " -o '" + out + "'");
    ASSERT_EQ(drawn.exit_code, 0) << rasteriser << drawn.err;
    const ExrChannels frame = read_exr(frame_path(out, 2));
    size_t over = 0, right_drawn = 0;
    for (int y = 0; y < frame.height; ++y)
      for (int x = 0; x < frame.width; ++x) {
        const float red = frame.channels.at("R")[size_t(y * frame.width + x)];
        const bool plate = std::fabs(red - srgb_to_linear(90 / 255.0f)) < 2e-3f;
        (x < frame.width / 2 ? over : right_drawn) += !plate;
      }
    EXPECT_EQ(over, 0u) << rasteriser << ": pixels of the left half not the plate's";
    EXPECT_GT(right_drawn, 0u) << rasteriser;
  }
  // The plate shows where no particle draws: its grey (90 in sRGB) in linear light.
  EXPECT_NEAR(exr.channels.at("R")[0], srgb_to_linear(90 / 255.0f), 2e-3);
  // The "plate" layer copies the clean plate beside the frame.
  const CliResult clean = run_fxsim("render '" + (dir / "scene.json").string() +
                                    "' --frames 2 -q --set '/output/layers=[\"mask\",\"plate\"]' -o '" +
                                    (dir / "c_#.png").string() + "'");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(read_text_file(dir / "c_2.plate.png"), read_text_file(dir / "plate.png"));
}

TEST(RenderPlates, ADepthAloneHidesParticlesBehindItOverATransparentBackground) {
  // A holdout: the rain of a real shot as an element to composite over its
  // footage, hidden by the footage's depth. plate_depth needed a plate,
  // which a transparent background refuses.
  TempDir dir("holdout");
  write_plates(dir);
  std::string scene = kTwoEmitters;
  scene.replace(scene.find(R"("background": "#000000")"), 23, R"("background": "transparent")");
  scene.replace(scene.find("\"layers\""), 0, R"("plate_depth": "plate.depth.png", )");
  write_text_file(dir / "scene.json", scene);
  for (const std::string rasteriser : {"gl", "cpu", "compute"}) {
    const std::string out = (dir / (rasteriser + "_#.exr")).string();
    const CliResult r = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 2 -q --rasteriser " +
                                  rasteriser + " -o '" + out + "'");
    ASSERT_EQ(r.exit_code, 0) << rasteriser << r.err;
    const ExrChannels exr = read_exr(frame_path(out, 2));
    double left = 0, right = 0, alpha_left = 0, alpha_right = 0;
    const auto& alpha = exr.channels.at("A");
    for (int y = 0; y < exr.height; ++y)
      for (int x = 0; x < exr.width; ++x) {
        const size_t p = size_t(y * exr.width + x);
        (x < exr.width / 2 ? alpha_left : alpha_right) += alpha[p];
      }
    for (const float v : exr.channels.at("mask.left")) left += v;
    for (const float v : exr.channels.at("mask.right")) right += v;
    // "left" is 10 m away, behind the depth's 1 m on the left half: hidden
    // in the frame and its mask; "right" shows over the transparent background.
    EXPECT_EQ(left, 0.0) << rasteriser;
    EXPECT_EQ(alpha_left, 0.0) << rasteriser;
    EXPECT_GT(right, 1.0) << rasteriser;
    EXPECT_GT(alpha_right, 1.0) << rasteriser;
    EXPECT_EQ(alpha[0], 0.0f) << rasteriser;  // the background stays transparent
  }
  // validate checks the depth plate's frames without a plate.
  fs::remove(dir / "plate.depth.png");
  EXPECT_EQ(run_fxsim("validate '" + (dir / "scene.json").string() + "'").exit_code, 66);
}

TEST(RenderPlates, APlateComesOutAsItsOwnSamplesAtEitherBitDepth) {
  // Where nothing covers it the frame is the plate. An 8-bit plate went
  // through the GL's sRGB texture, whose decode llvmpipe approximates (up to
  // 77/65535 off in 16-bit frames), and a 16-bit plate was cut to 8 bits by
  // truncation (a level darker in 8-bit frames).
  TempDir dir("plate-depths");
  constexpr int kW = 96, kH = 54;
  std::vector<uint16_t> samples(size_t(kW) * kH * 3);
  LinearImage deep{kW, kH, std::vector<float>(size_t(kW) * kH * 4, 1.0f)};
  for (size_t i = 0; i < samples.size(); ++i) {
    samples[i] = uint16_t((i * 2654435761u) >> 16);  // every level, in no order
    deep.rgba[i / 3 * 4 + i % 3] = float(samples[i]) / 65535.0f;
  }
  PngSettings as_they_are;
  as_they_are.srgb = false;
  const auto plate16 = encode_png16(deep, as_they_are);
  write_text_file(dir / "plate16.png", std::string(plate16.begin(), plate16.end()));
  ASSERT_EQ(read_png16(dir / "plate16.png", 3).samples, samples);
  Image shallow{kW, kH, std::vector<uint8_t>(size_t(kW) * kH * 4, 255)};
  for (size_t i = 0; i < samples.size(); ++i) shallow.rgba[i / 3 * 4 + i % 3] = uint8_t(samples[i] >> 8);
  const auto plate8 = encode_png(shallow);
  write_text_file(dir / "plate8.png", std::string(plate8.begin(), plate8.end()));
  std::string scene = kTwoEmitters;
  scene.replace(scene.find("\"layers\""), 0, R"("plate": "plate16.png", )");
  write_text_file(dir / "scene.json", scene);
  const std::string render = "render '" + (dir / "scene.json").string() +
                             "' --frames 1 -q --set /emitters/0/max_particles=0 --set /emitters/1/max_particles=0 "
                             "--set '/output/layers=[]' ";
  const auto frame = [&](const std::string& plate, int bits) {
    const std::string out = (dir / fmt::format("{}_{}_#.png", plate, bits)).string();
    const CliResult r = run_fxsim(render + "--set /output/plate=" + plate + ".png --set /output/bit_depth=" +
                                  std::to_string(bits) + " -o '" + out + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return frame_path(out, 1);
  };
  EXPECT_EQ(read_png16(frame("plate16", 16), 3).samples, samples);
  const Image eight = read_png(frame("plate16", 8));
  const std::vector<uint16_t> sixteen_of_eight = read_png16(frame("plate8", 16), 3).samples;
  size_t far = 0, off = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    // The GL's sRGB encode of an 8-bit frame may round a sample within 0.15
    // of half a level either way (llvmpipe's is approximate: up to 0.64 off
    // here); truncation put a quarter of the samples 0.75-1 off.
    far += std::fabs(double(eight.rgba[i / 3 * 4 + i % 3]) - samples[i] / 257.0) > 0.7;
    off += sixteen_of_eight[i] != (samples[i] >> 8) * 257u;
  }
  EXPECT_EQ(far, 0u) << "of " << samples.size() << " samples of the 16-bit plate in an 8-bit frame";
  EXPECT_EQ(off, 0u) << "of " << samples.size() << " samples of the 8-bit plate in a 16-bit frame";
}

TEST(RenderPlates, APlateWithATransparentBackgroundIsRefusedAndItsLayerWithGradingWarned) {
  TempDir dir("plate-transparent");
  write_plates(dir);
  std::string scene = with_plate(kTwoEmitters);
  scene.replace(scene.find("\"#000000\""), 9, R"("transparent")");
  write_text_file(dir / "scene.json", scene);
  // The plate is drawn opaque: the frames came out opaque with exit 0 (a sky is refused so).
  const CliResult both = run_fxsim("render '" + (dir / "scene.json").string() + "' -q -o '" + (dir / "out/f_#.png").string() + "'");
  EXPECT_EQ(both.exit_code, 65) << both.err;
  EXPECT_NE(both.err.find("/output/plate: a plate hides a transparent background"), std::string::npos) << both.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // The "plate" layer is the plate's bytes; the frame's plate is graded.
  scene = with_plate(kTwoEmitters);
  scene.replace(scene.find("\"layers\": ["), 11, R"("layers": ["plate", )");
  write_text_file(dir / "scene.json", scene);
  const std::string render = "render '" + (dir / "scene.json").string() + "' --frames 1 -q -o '" + (dir / "out/f_#.png").string() + "'";
  const CliResult plain = run_fxsim(render);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(fs::exists(dir / "out/f_1.plate.png"));
  EXPECT_EQ(plain.err.find("ungraded"), std::string::npos) << plain.err;
  for (const std::string grading : {"--set /camera/exposure=1", "--set /output/tone=filmic"}) {
    const CliResult graded = run_fxsim(render + " " + grading);
    ASSERT_EQ(graded.exit_code, 0) << graded.err;
    EXPECT_NE(graded.err.find("warning: the \"plate\" layer is the plate as it is, ungraded"), std::string::npos)
        << grading << ": " << graded.err;
  }
  // EXR frames are never tone mapped: their plate is the plate.
  const CliResult exr = run_fxsim("render '" + (dir / "scene.json").string() + "' --frames 1 -q -o '" +
                                  (dir / "exr/f_#.exr").string() + "' --set /output/tone=filmic");
  ASSERT_EQ(exr.exit_code, 0) << exr.err;
  EXPECT_EQ(exr.err.find("ungraded"), std::string::npos) << exr.err;
}

TEST(RenderPlates, AWrongSizeOrMissingPlateIsRefusedBeforeRendering) {
  TempDir dir("plate-bad");
  write_plates(dir, 80);  // 80×54, the output is 96×54
  write_text_file(dir / "scene.json", with_plate(kTwoEmitters));
  const CliResult wrong = run_fxsim("render '" + (dir / "scene.json").string() + "' -q -o '" + (dir / "out/f_#.png").string() + "'");
  EXPECT_EQ(wrong.exit_code, 65) << wrong.err;
  EXPECT_NE(wrong.err.find("is 80x54, the output 96x54"), std::string::npos) << wrong.err;
  // Located as a scene's problems are: file:line:col and the pointer of the value naming it.
  EXPECT_NE(wrong.err.find("scene.json:"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find(": /output/plate: "), std::string::npos) << wrong.err;
  // and counted as they are, with no "fxsim:" before the line.
  EXPECT_EQ(wrong.err.rfind((dir / "scene.json:").string(), 0), 0u) << wrong.err;
  EXPECT_NE(wrong.err.find("scene.json: 1 problem"), std::string::npos) << wrong.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // validate gives render's verdict (it checked no plate before).
  const CliResult judged = run_fxsim("validate '" + (dir / "scene.json").string() + "'");
  EXPECT_EQ(judged.exit_code, 65) << judged.out << judged.err;
  std::string sequence = with_plate(kTwoEmitters);
  sequence.replace(sequence.find("plate.png"), 9, "plate_#.png");
  write_text_file(dir / "scene.json", sequence);
  const CliResult missing = run_fxsim("render '" + (dir / "scene.json").string() + "' -q -o '" + (dir / "out/f_#.png").string() + "'");
  EXPECT_EQ(missing.exit_code, 66) << missing.err;
  EXPECT_NE(missing.err.find("plate_1.png: no plate for frame 1"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find(": /output/plate: "), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(run_fxsim("validate '" + (dir / "scene.json").string() + "'").exit_code, 66);
  // A plate that is there but is no image, or a depth plate in colour, is an
  // invalid scene (65), as a texture is; it was 66, "missing".
  write_text_file(dir / "scene.json", with_plate(kTwoEmitters));
  write_text_file(dir / "plate.png", "hi\n");
  const CliResult junk = run_fxsim("render '" + (dir / "scene.json").string() + "' -q -o '" + (dir / "out/f_#.png").string() + "'");
  EXPECT_EQ(junk.exit_code, 65) << junk.err;
  EXPECT_NE(junk.err.find("it is not a PNG file"), std::string::npos) << junk.err;
  write_plates(dir);
  LinearImage colour{96, 54, std::vector<float>(96 * 54 * 4, 0.5f)};
  colour.rgba[0] = 0.25f;  // pixel (0, 0): R differs from G and B
  PngSettings data;
  data.srgb = false;
  const auto colour_png = encode_png16(colour, data);
  write_text_file(dir / "plate.depth.png", std::string(colour_png.begin(), colour_png.end()));
  const CliResult coloured = run_fxsim("validate '" + (dir / "scene.json").string() + "'");
  EXPECT_EQ(coloured.exit_code, 65) << coloured.err;
  EXPECT_NE(coloured.err.find("pixel (0, 0) has R, G and B"), std::string::npos) << coloured.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

namespace {
// One flake in a flat box 10 m in front of the camera, moving at `velocity`
// for ever (constant motion, no sway, no gravity). Its frame-4 and frame-5
// positions come from the statistics of a one-particle render.
std::string one_flake(const std::string& velocity, const std::string& camera) {
  return R"({"fxsim": 1, "seed": 4,
    "output": {"width": 96, "height": 54, "frames": 8, "background": "#000000", "layers": ["motion"]},
    "camera": )" + camera + R"(,
    "environment": {"ground": null},
    "emitters": [{"name": "flake", "type": "snow", "max_particles": 1, "size": 0.4, "motion": "constant",
      "velocity": )" + velocity + R"(, "velocity_variation": [0, 0, 0], "sway": null,
      "region": {"center": [0, 2, 0], "size": [12, 0.002, 0.002]}}]})";
}

// Where `world` lands in the image at time t: pixels, x right, y down.
glm::vec2 pixel_at(const Scene& scene, glm::vec3 world, double t) {
  const CameraPose camera = camera_at(scene.camera, t);
  const float aspect = float(scene.output.width) / float(scene.output.height);
  const glm::vec4 clip = camera.projection(aspect) * camera.view() * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x * 0.5f + 0.5f) * float(scene.output.width), (0.5f - ndc.y * 0.5f) * float(scene.output.height)};
}

// The flake's screen motion from frame 4 to frame 5, from its exact positions
// (the statistics of a render of frames 4-5) and the camera at both times.
glm::vec2 projected_motion(const TempDir& dir) {
  const Scene scene = parse_scene_file(dir / "scene.json");
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 4-5 -q -o '{}' --stats '{}'", (dir / "scene.json").string(),
                                            (dir / "s_#.png").string(), (dir / "stats.jsonl").string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<glm::vec3> at;
  std::istringstream lines(read_text_file(dir / "stats.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto p = nlohmann::json::parse(line)["emitters"][0]["mean_position"];
    at.emplace_back(p[0].get<float>(), p[1].get<float>(), p[2].get<float>());
  }
  EXPECT_EQ(at.size(), 2u);
  if (at.size() != 2) return glm::vec2(0);
  const glm::vec2 now = pixel_at(scene, at[1], 5.0 / 24.0);
  EXPECT_TRUE(now.x > 4 && now.x < 92 && now.y > 4 && now.y < 50) << "the flake is not in view";
  return now - pixel_at(scene, at[0], 4.0 / 24.0);
}

// Renders frame 5 in EXR with `flags` and returns the flake's motion, checking
// that every pixel with a motion has the same one, and that most pixels (those
// the flake does not cover) have none.
glm::vec2 rendered_motion(const TempDir& dir, const std::string& name, const std::string& flags = "") {
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 5 -q -o '{}' {}", (dir / "scene.json").string(),
                                            (dir / (name + "_#.exr")).string(), flags));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const ExrChannels exr = read_exr(dir / (name + "_5.exr"));
  const auto& mx = exr.channels.at("motion.x");
  const auto& my = exr.channels.at("motion.y");
  glm::vec2 first(0);
  size_t moving = 0;
  for (size_t p = 0; p < mx.size(); ++p) {
    if (mx[p] == 0 && my[p] == 0) continue;
    if (moving++ == 0) first = {mx[p], my[p]};
    EXPECT_FLOAT_EQ(mx[p], first.x) << p;
    EXPECT_FLOAT_EQ(my[p], first.y) << p;
  }
  EXPECT_GT(moving, 4u);
  EXPECT_LT(moving, mx.size() / 20);  // a flake 0.4 m wide, 10 m away
  return first;
}
}  // namespace

TEST(RenderMotion, TheMotionLayerIsTheProjectedMotionOfAKnownFlakeOnBothBackends) {
  TempDir dir("motion");
  write_text_file(dir / "scene.json", one_flake("[6, 0, 0]", R"({"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50})"));
  const glm::vec2 expected = projected_motion(dir);
  EXPECT_GT(expected.x, 1.0f);  // 1.45 pixels a frame
  for (const char* backend : {"cpu", "gpu"}) {
    const glm::vec2 motion = rendered_motion(dir, backend, fmt::format("--backend {}", backend));
    EXPECT_NEAR(motion.x, expected.x, 0.01f) << backend;  // EXR's half floats: steps of 1/1024 here
    EXPECT_NEAR(motion.y, expected.y, 0.01f) << backend;
  }
}

TEST(RenderMotion, AMovingCameraMovesAStillFlakeAndPngCarriesTheFlowInKittisLayout) {
  TempDir dir("motion-camera");
  // The camera rises and pans: the still flake moves down and to the left in the image.
  write_text_file(dir / "scene.json", one_flake("[0, 0, 0]", R"({"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50,
    "keys": [{"time": 0, "position": [0, 2, 10], "target": [0, 2, 0]},
             {"time": 1, "position": [2, 4, 10], "target": [2, 4, 0]}]})"));
  const glm::vec2 expected = projected_motion(dir);
  EXPECT_LT(expected.x, -0.3f);
  EXPECT_GT(expected.y, 0.3f);
  const glm::vec2 motion = rendered_motion(dir, "exr");
  EXPECT_NEAR(motion.x, expected.x, 0.01f);
  EXPECT_NEAR(motion.y, expected.y, 0.01f);
  // PNG: f_5.motion.png, 16-bit RGB, R = x·64 + 2^15, G = y·64 + 2^15, B = 1 where covered.
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 5 -q -o '{}'", (dir / "scene.json").string(),
                                            (dir / "f_#.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string png = read_text_file(dir / "f_5.motion.png");
  EXPECT_EQ(int(uint8_t(png.at(24))), 16);  // bit depth
  EXPECT_EQ(int(uint8_t(png.at(25))), 2);   // RGB
  const Samples16 flow = read_png16(dir / "f_5.motion.png", 3);
  size_t covered = 0;
  for (size_t p = 0; p < size_t(flow.width) * size_t(flow.height); ++p) {
    const uint16_t* px = &flow.samples[p * 3];
    if (px[2] == 0) {
      EXPECT_EQ(px[0], 32768) << p;
      EXPECT_EQ(px[1], 32768) << p;
      continue;
    }
    EXPECT_EQ(px[2], 1) << p;
    EXPECT_NEAR((float(px[0]) - 32768.0f) / 64.0f, expected.x, 1.0f / 64) << p;
    EXPECT_NEAR((float(px[1]) - 32768.0f) / 64.0f, expected.y, 1.0f / 64) << p;
    ++covered;
  }
  EXPECT_GT(covered, 4u);
}

TEST(RenderFog, AParticleIsSeenThroughTheFogAsTheFormulaSays) {
  // One flake 10 m away, in transparent EXR: through fog of density 0.1 its
  // premultiplied colour c becomes c·T + fog·a·(1 − T), T = e^(−1), and its
  // coverage a stays.
  TempDir dir("fog");
  write_text_file(dir / "scene.json", one_flake("[0, 0, 0]", R"({"position": [0, 2, 10], "target": [0, 2, 0], "fov": 50})"));
  for (const char* backend : {"cpu", "gpu"}) {
    const std::string common = fmt::format("render '{}' --frames 2 -q --backend {} --set /output/background=transparent "
                                           "--set '/output/layers=[]' ", (dir / "scene.json").string(), backend);
    ASSERT_EQ(run_fxsim(common + "-o '" + (dir / "clear_#.exr").string() + "'").exit_code, 0);
    ASSERT_EQ(run_fxsim(common + "--set '/environment/fog={\"density\": 0.1, \"color\": \"#ff8000\"}' -o '" +
                        (dir / "fog_#.exr").string() + "'").exit_code, 0);
    const ExrChannels clear = read_exr(dir / "clear_2.exr"), fog = read_exr(dir / "fog_2.exr");
    const float t = std::exp(-1.0f);
    const glm::vec3 fog_colour = parse_hex_color("#ff8000")->linear();
    size_t covered = 0;
    for (size_t p = 0; p < clear.channels.at("A").size(); ++p) {
      const float a = clear.channels.at("A")[p];
      EXPECT_NEAR(fog.channels.at("A")[p], a, 2e-3f) << p;
      if (a < 0.05f) continue;
      ++covered;
      for (int c = 0; c < 3; ++c) {
        const char* name = c == 0 ? "R" : c == 1 ? "G" : "B";
        EXPECT_NEAR(fog.channels.at(name)[p], clear.channels.at(name)[p] * t + fog_colour[c] * a * (1 - t), 6e-3f)
            << name << " " << p << " " << backend;
      }
    }
    EXPECT_GT(covered, 4u);
  }
}
