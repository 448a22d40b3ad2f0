// The footage look, rendered on both backends and measured against its
// formulas: a lit flake's light follows the light's falloff and cone; a
// moving flake's streak is as long as its travel over the shutter and keeps
// its light; a defocused flake becomes a disc as wide as the thin lens's
// circle of confusion with its light kept; the filmic curve keeps the EXR's
// light above 1; bloom spreads the light above its threshold and keeps it; the
// ground's soft edge; the sky's gradient; rain in physical units falls at the
// mean terminal velocity of its drops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/camera_path.h"
#include "core/depth_of_field.h"
#include "core/exr_file.h"
#include "core/image.h"
#include "core/lighting.h"
#include "core/png_writer.h"
#include "core/scene_parser.h"
#include "core/weather.h"

using namespace fxsim;
using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
constexpr const char* kBackends[] = {"cpu", "gpu"};

// One white flake at (0, 2, 0), seen from 10 m, on a transparent background.
struct FlakeScene {
  std::string velocity = "[0, 0, 0]";
  float size = 0.1f;
  std::string camera;       // extra camera keys
  std::string environment;  // extra environment keys
  std::string output;       // extra output keys
  std::string background = "transparent";
  std::string ground = "null";
  std::string eye = "[0, 2, 10]";
  int count = 1;                     // flakes, spread over `region`
  std::string region = "[0.001, 0.001, 0.001]";
  std::string text() const {
    return fmt::format(R"({{"fxsim": 1, "seed": 3,
      "output": {{"width": 320, "height": 180, "frames": 2, "background": "{}"{}}},
      "camera": {{"position": {}, "target": [0, 2, 0], "fov": 50{}}},
      "environment": {{"ground": {}{}}},
      "emitters": [{{"name": "flake", "type": "snow", "max_particles": {}, "size": {}, "color": "#ffffff",
        "opacity": 1, "motion": "constant", "velocity": {}, "velocity_variation": [0, 0, 0], "sway": null,
        "shapes": 1, "region": {{"center": [0, 2, 0], "size": {}}}}}]}})",
                       background, output, eye, camera, ground, environment, count, size, velocity, region);
  }
};

ExrChannels render_exr(const TempDir& dir, const FlakeScene& scene, const std::string& backend, const std::string& name) {
  const fs::path file = dir / (name + ".json");
  write_text_file(file, scene.text());
  const CliResult r = run_fxsim(fmt::format("render '{}' --frames 2 -q --backend {} -o '{}'", file.string(), backend,
                                            (dir / (name + "_#.exr")).string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_exr(dir / (name + "_2.exr"));
}

double sum(const std::vector<float>& v) {
  double s = 0;
  for (const float x : v) s += x;
  return s;
}

// The alpha-weighted standard deviations of the covered pixels along x and y.
glm::vec2 spread(const std::vector<float>& alpha, int width) {
  double s = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
  for (size_t p = 0; p < alpha.size(); ++p) {
    const double a = alpha[p], x = double(p % size_t(width)), y = double(p / size_t(width));
    s += a, sx += a * x, sy += a * y, sxx += a * x * x, syy += a * y * y;
  }
  const double mx = sx / s, my = sy / s;
  return {float(std::sqrt(sxx / s - mx * mx)), float(std::sqrt(syy / s - my * my))};
}

// Pixels per metre across the view at distance d (fov 50°, 180 rows).
float pixels_per_metre(float d) { return 180.0f / (2.0f * d * std::tan(glm::radians(25.0f))); }

Lighting lighting_of(const std::string& environment_json) {
  const Scene scene = parse_scene_text(
      R"({"fxsim": 1, "environment": {)" + environment_json + R"(}, "emitters": [{"type": "snow"}]})", "lights.json", ".");
  return *scene.environment.lighting;
}
}  // namespace

TEST(RenderLook, ALitFlakeFollowsTheLightsFalloffAndCone) {
  TempDir dir("look-lights");
  const glm::vec3 flake{0, 2, 0}, eye{0, 2, 10};
  const std::vector<std::string> setups = {
      R"("ambient": {"color": "#ffffff", "intensity": 0.5})",
      R"("lights": [{"type": "point", "position": [0, 5, 0], "intensity": 9, "range": 100}])",
      R"("lights": [{"type": "point", "position": [0, 8, 0], "intensity": 9, "range": 100}])",
      R"("lights": [{"type": "point", "position": [0, 8, 0], "intensity": 9, "range": 7}])",  // near its range
      R"("lights": [{"type": "spot", "position": [0, 6, 0], "direction": [0, -1, 0], "intensity": 16, "inner_cone": 20, "outer_cone": 30}])",
      // 25° off the axis: half-way through the penumbra.
      R"("lights": [{"type": "spot", "position": [0, 6, 0], "direction": [0.42262, -0.90631, 0], "intensity": 16, "inner_cone": 20, "outer_cone": 30}])",
      R"("lights": [{"type": "spot", "position": [0, 6, 0], "direction": [1, -1, 0], "intensity": 16, "inner_cone": 20, "outer_cone": 30}])",  // outside
      // Backlit: the light behind the flake, the eye looking into it.
      R"("lights": [{"type": "point", "position": [0, 2.5, -4], "intensity": 9, "range": 100}])"};
  for (const char* backend : kBackends) {
    FlakeScene unlit;
    unlit.size = 0.3f;
    const double base = sum(render_exr(dir, unlit, backend, "unlit").channels.at("R"));
    ASSERT_GT(base, 1.0);
    for (size_t i = 0; i < setups.size(); ++i) {
      FlakeScene lit;
      lit.size = 0.3f;
      lit.environment = ", " + setups[i];
      const double got = sum(render_exr(dir, lit, backend, fmt::format("lit{}", i)).channels.at("R"));
      const glm::vec3 factor = lit_factor(lighting_of(setups[i]), kSnowScattering, flake, eye);
      EXPECT_NEAR(got / base, factor.r, 0.03 * factor.r + 1e-3) << setups[i] << " on " << backend;
    }
  }
}

TEST(RenderLook, AStreakIsTheTravelOverTheShutterAndKeepsTheLight) {
  TempDir dir("look-shutter");
  for (const char* backend : kBackends) {
    FlakeScene sharp;
    sharp.size = 0.4f;
    sharp.velocity = "[24, 0, 0]";
    FlakeScene streaked = sharp;
    streaked.camera = R"(, "shutter": 0.5)";
    const ExrChannels a = render_exr(dir, sharp, backend, "sharp"), b = render_exr(dir, streaked, backend, "streak");
    // 24 m/s over 0.5 / 24 s: 0.5 m at 10 m (the flake moved on 1 m since its
    // start; the depth hardly changes).
    const float expected = 0.5f * pixels_per_metre(10.0f);
    // The streak's quad is (L + w) × w, the flake's shape stretched along it.
    // A six-pointed star's second moments are the same along every axis, so
    // the ratio of the streak's spreads is (L + w) / w.
    const glm::vec2 e = spread(b.channels.at("A"), 320);
    const float width = 0.4f * pixels_per_metre(10.0f);
    EXPECT_NEAR(width * (e.x / e.y - 1.0f), expected, 0.1f * expected) << backend;
    EXPECT_NEAR(e.y, spread(a.channels.at("A"), 320).y, 0.1f * e.y) << backend;
    EXPECT_NEAR(sum(b.channels.at("A")) / sum(a.channels.at("A")), 1.0, 0.05) << backend;
    // Flakes thinner than the 1.5 pixels sprites are drawn at least, streaked
    // over about as much: their light was taken over their own width, not the
    // quad's, and came out 1.5 times a sharp flake's (2.7 for thinner).
    FlakeScene thin;
    thin.size = 0.025f;  // 0.48 pixels
    thin.velocity = "[4, 0, 0]";  // 1.6 pixels over 0.5 / 24 s
    thin.count = 400;
    thin.region = "[6, 3, 0.001]";
    FlakeScene thin_streaked = thin;
    thin_streaked.camera = R"(, "shutter": 0.5)";
    const double thin_sharp = sum(render_exr(dir, thin, backend, "thin-sharp").channels.at("A"));
    EXPECT_NEAR(sum(render_exr(dir, thin_streaked, backend, "thin-streak").channels.at("A")) / thin_sharp, 1.0, 0.1)
        << backend;
  }
}

TEST(RenderLook, ADefocusedFlakeIsADiscAsWideAsTheCircleOfConfusionWithItsLightKept) {
  TempDir dir("look-dof");
  // f/0.5 focused at 0.5 m: a flake at 10 m is blurred over about 20 pixels.
  const ThinLens lens = thin_lens(50, 0.5f, 0.5f, 180);
  const float c = lens.circle_of_confusion(10.0f);
  EXPECT_GT(c, 15.0f);
  for (const char* backend : kBackends) {
    FlakeScene sharp;
    sharp.size = 0.05f;
    FlakeScene blurred = sharp;
    blurred.camera = R"(, "aperture": 0.5, "focus_distance": 0.5)";
    const ExrChannels a = render_exr(dir, sharp, backend, "focused"), b = render_exr(dir, blurred, backend, "defocused");
    const std::vector<float>& alpha = b.channels.at("A");
    const float peak = *std::max_element(alpha.begin(), alpha.end());
    size_t inside = 0;
    for (const float v : alpha) inside += v > 0.5f * peak;
    const float diameter = 2.0f * std::sqrt(float(inside) / 3.14159265f);
    const float w = 0.05f * pixels_per_metre(10.0f);
    EXPECT_NEAR(diameter, 0.9f * w + c, 0.08f * c) << backend;
    // Its light is kept (a flake several pixels wide: a 1-pixel one's own light is a matter of sampling).
    FlakeScene larger = sharp, larger_blurred = blurred;
    larger.size = larger_blurred.size = 0.3f;
    EXPECT_NEAR(sum(render_exr(dir, larger_blurred, backend, "large-defocused").channels.at("A")) /
                    sum(render_exr(dir, larger, backend, "large").channels.at("A")),
                1.0, 0.05) << backend;
    // A flake at the focus distance stays sharp.
    FlakeScene focused = sharp;
    focused.camera = R"(, "aperture": 0.5, "focus_distance": 10)";
    const ExrChannels f = render_exr(dir, focused, backend, "at-focus");
    EXPECT_NEAR(sum(f.channels.at("A")), sum(a.channels.at("A")), 0.01 * sum(a.channels.at("A"))) << backend;
  }
}

TEST(RenderLook, AFarLampsGlowingDiscKeepsItsLightWhereverItFallsOnThePixels) {
  // A lamp's disc sends intensity / (π r²) over π r²: the same light whatever
  // its size. Under a pixel or two across it lit a pixel or none, by where
  // it fell on them (far street lamps sparkled as 1-3 pixel squares); it is
  // drawn at least 3 pixels wide now, as dim as keeps its light.
  TempDir dir("look-lamp");
  const auto light = [&](const char* backend, float size, float x, const std::string& name) {
    FlakeScene scene;
    scene.size = 0.001f;
    scene.background = "#000000";
    scene.output = R"(, "samples": 4)";
    scene.environment = fmt::format(
        R"(, "lights": [{{"type": "point", "position": [{}, 2, -30], "intensity": 20, "range": 100, "size": {}}}])", x, size);
    return sum(render_exr(dir, scene, backend, name).channels.at("R"));
  };
  std::map<std::pair<std::string, float>, double> without_disc;  // the rest of the frame, by backend and place: drawn once
  const auto glow = [&](const char* backend, float size, float x, const std::string& name) {
    const auto rest = without_disc.try_emplace({backend, x}, 0.0);
    if (rest.second) rest.first->second = light(backend, 0, x, fmt::format("none-{}", x));
    return light(backend, size, x, name) - rest.first->second;
  };
  for (const char* backend : kBackends) {
    const double large = glow(backend, 1.5f, 0, "large");  // 7 pixels across at 40 m
    ASSERT_GT(large, 0.0);
    // 0.2 and 0.06 pixels across, at two places a fraction of a pixel apart.
    for (const float size : {0.04f, 0.013f})
      for (const float x : {0.0f, 0.037f}) {
        const double small = glow(backend, size, x, fmt::format("small-{}-{}", size, x));
        EXPECT_NEAR(small / large, 1.0, 0.1) << backend << " size " << size << " at x " << x;
      }
  }
}

TEST(RenderLook, TheExrKeepsLightAboveOneWhileThePngIsToneMapped) {
  TempDir dir("look-tone");
  for (const char* backend : kBackends) {
    FlakeScene plain;
    plain.size = 0.4f;
    FlakeScene bright = plain;
    bright.camera = R"(, "exposure": 3)";
    bright.output = R"(, "tone": "filmic")";
    const ExrChannels exposed = render_exr(dir, bright, backend, "bright"), unexposed = render_exr(dir, plain, backend, "plain");
    const std::vector<float>& r = exposed.channels.at("R");
    const std::vector<float>& r0 = unexposed.channels.at("R");
    // Three stops: 8 × the light, unclipped and not tone mapped (to half-float precision).
    EXPECT_GT(*std::max_element(r.begin(), r.end()), 2.0f) << backend;
    for (size_t p = 0; p < r.size(); ++p) ASSERT_NEAR(r[p], 8 * r0[p], 2e-3f * 8 * r0[p] + 1e-4f) << p << " " << backend;
    const fs::path file = dir / "bright.json";
    const CliResult png_run = run_fxsim(fmt::format("render '{}' --frames 2 -q --backend {} --set /output/background=#000000 -o '{}'",
                                                    file.string(), backend, (dir / "bright_#.png").string()));
    ASSERT_EQ(png_run.exit_code, 0) << png_run.err;
    const Image png = read_png(dir / "bright_2.png");
    uint8_t brightest = 0;
    for (size_t i = 0; i < png.rgba.size(); i += 4) brightest = std::max(brightest, png.rgba[i]);
    EXPECT_GT(brightest, 240) << backend;  // f(8) = 0.98: near white, through the shoulder
  }
}

TEST(RenderLook, BloomSpreadsTheLightAboveItsThresholdAndKeepsIt) {
  TempDir dir("look-bloom");
  for (const char* backend : kBackends) {
    FlakeScene plain;
    plain.size = 0.4f;
    plain.background = "#000000";
    FlakeScene glowing = plain;
    glowing.output += R"(, "bloom": {"strength": 0.5, "threshold": 0.1, "radius": 0.1})";
    const ExrChannels a = render_exr(dir, plain, backend, "plain"), b = render_exr(dir, glowing, backend, "bloom");
    const auto &ra = a.channels.at("R"), &rb = b.channels.at("R");
    double above = 0, outside = 0;
    for (size_t p = 0; p < ra.size(); ++p) {
      above += std::max(0.0f, ra[p] - 0.1f);  // white: every channel alike
      if (ra[p] == 0) outside += rb[p];
    }
    ASSERT_GT(above, 1.0);
    EXPECT_NEAR(sum(rb) - sum(ra), 0.5 * above, 0.05 * 0.5 * above) << backend;
    EXPECT_GT(outside, 0.25 * 0.5 * above) << backend;  // the glow reaches past the flake
  }
}

TEST(RenderLook, TheGroundsSoftEdgeFadesAFlakeTouchingIt) {
  TempDir dir("look-soft");
  for (const char* backend : kBackends) {
    FlakeScene hard;
    hard.size = 0.4f;
    hard.eye = "[0, 6, 8]";  // looking down at the ground behind the flake
    hard.ground = R"({"height": 1.9, "color": "#000000"})";
    FlakeScene soft = hard;
    soft.ground = R"({"height": 1.9, "color": "#000000", "soft": 0.5})";
    FlakeScene high = soft;
    high.ground = R"({"height": -5, "color": "#000000", "soft": 0.5})";
    FlakeScene high_hard = high;
    high_hard.ground = R"({"height": -5, "color": "#000000"})";
    const double h = sum(render_exr(dir, hard, backend, "hard").channels.at("R"));
    const double s = sum(render_exr(dir, soft, backend, "soft").channels.at("R"));
    EXPECT_LT(s, 0.6 * h) << backend;
    EXPECT_GT(s, 0.02 * h) << backend;
    const double far = sum(render_exr(dir, high, backend, "high").channels.at("R"));
    EXPECT_NEAR(far, sum(render_exr(dir, high_hard, backend, "high-hard").channels.at("R")), 1e-3 * far) << backend;
  }
}

TEST(RenderLook, TheSkyRunsFromTheHorizonToTheZenith) {
  TempDir dir("look-sky");
  write_text_file(dir / "sky.json", R"({"fxsim": 1, "output": {"width": 64, "height": 64, "frames": 1},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 90},
    "environment": {"ground": null, "sky": {"horizon": "#ffffff", "zenith": "#000000"}},
    "emitters": [{"type": "snow", "max_particles": 1, "opacity": 0, "region": {"center": [0, 2, 0], "size": [0.01, 0.01, 0.01]}}]})");
  // Also with the widest far / near the format allows (10^11): directions
  // found through the projection's inverse made the sky one colour past about 2e7.
  for (const char* planes : {"", "--set /camera/near=0.0001 --set /camera/far=10000000"})
    for (const char* backend : kBackends) {
      const CliResult run = run_fxsim(fmt::format("render '{}' -q --backend {} {} -o '{}'", (dir / "sky.json").string(),
                                                  backend, planes, (dir / "sky_#.exr").string()));
      ASSERT_EQ(run.exit_code, 0) << run.err;
      const ExrChannels exr = read_exr(dir / "sky_1.exr");
      const auto& r = exr.channels.at("R");
      const auto at = [&](int row) { return r[size_t(row) * 64 + 32]; };
      EXPECT_NEAR(at(40), 1.0f, 0.01f) << backend << planes;  // below the horizon
      // Row 0: 45° up at the top's centre (fov 90): 1 − sin(45°)^0.45.
      EXPECT_NEAR(at(0), 1.0f - std::pow(std::sin(glm::radians(44.3f)), 0.45f), 0.02f) << backend << planes;
      for (int row = 1; row < 32; ++row) EXPECT_GE(at(row), at(row - 1)) << row << planes;  // brighter towards the horizon
    }
}

TEST(RenderLook, PhysicalRainFillsItsBoxAndFallsAtTheMeanTerminalVelocity) {
  TempDir dir("look-rain");
  write_text_file(dir / "rain.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "frames": 4},
    "environment": {"ground": null},
    "emitters": [{"type": "rain", "intensity": 8, "region": {"center": [0, 5, 0], "size": [6, 4, 5]}}]})");
  // Marshall–Palmer at 8 mm/h, drops of 0.5–6 mm, in 120 m³.
  const double lambda = 4.1 * std::pow(8.0, -0.21);
  const double per_m3 = 8000 / lambda * (std::exp(-lambda * 0.5) - std::exp(-lambda * 6));
  // The mean of 9.65 − 10.3 e^(−0.6 D) over N(D), by the midpoint rule.
  double weighted = 0, count = 0;
  for (int i = 0; i < 20000; ++i) {
    const double d = 0.5 + (i + 0.5) * 5.5 / 20000, n = std::exp(-lambda * d);
    weighted += n * (9.65 - 10.3 * std::exp(-0.6 * d));
    count += n;
  }
  const double mean_speed = weighted / count;
  EXPECT_NEAR(mean_speed, rain_of_intensity(8).mean_fall_speed(), 1e-3);  // about 3.4 m/s: most drops are small
  const Scene scene = parse_scene_file(dir / "rain.json");
  EXPECT_NEAR(double(scene.emitters[0].max_particles), per_m3 * 120, 1.0);
  for (const char* backend : kBackends) {
    const CliResult r = run_fxsim(fmt::format("render '{}' -q --backend {} -o '{}' --stats '{}'", (dir / "rain.json").string(),
                                              backend, (dir / "r_#.png").string(), (dir / "stats.jsonl").string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(read_text_file(dir / "stats.jsonl"));
    std::string last;
    for (std::string line; std::getline(lines, line);) last = line;
    const auto e = nlohmann::json::parse(last)["emitters"][0];
    EXPECT_EQ(e["live"].get<int64_t>(), scene.emitters[0].max_particles) << backend;
    // Thousands of drops: the sample mean within 1 % of the distribution's.
    EXPECT_NEAR(-e["mean_velocity"][1].get<double>(), mean_speed, 0.01 * mean_speed) << backend;
  }
}

TEST(RenderLook, SnowByVisibilityFallsAtItsFlakesMeanSpeedOnBothBackends) {
  TempDir dir("look-snow");
  write_text_file(dir / "snow.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "frames": 24},
    "environment": {"ground": null},
    "emitters": [{"type": "snow", "visibility": 800, "sway": null, "region": {"center": [0, 5, 0], "size": [4, 4, 4]}}]})");
  const Scene scene = parse_scene_file(dir / "snow.json");
  const SizeDistribution& sizes = *scene.emitters[0].precipitation().sizes;
  EXPECT_NEAR(visibility_of(sizes), 800, 8);
  EXPECT_NEAR(double(scene.emitters[0].max_particles), std::ceil(sizes.per_cubic_metre() * 64), 1.0);
  for (const char* backend : kBackends) {
    const CliResult r = run_fxsim(fmt::format("render '{}' -q --backend {} --frames 24 -o '{}' --stats '{}'",
                                              (dir / "snow.json").string(), backend, (dir / "s_#.png").string(),
                                              (dir / "stats.jsonl").string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto e = nlohmann::json::parse(read_text_file(dir / "stats.jsonl"))["emitters"][0];
    // Born at their mean speed, which the drag (about 12/s) keeps.
    EXPECT_NEAR(-e["mean_velocity"][1].get<double>(), sizes.mean_fall_speed(), 0.02 * sizes.mean_fall_speed()) << backend;
  }
}

TEST(RenderLook, APlatesSoftEdgeFadesAFlakeJustInFrontOfItsGeometry) {
  TempDir dir("look-plate-soft");
  // A grey plate whose geometry is 10.2 m away everywhere: the flake, 10 m away, is 0.2 m in front of it.
  Image plate{320, 180, std::vector<uint8_t>(320 * 180 * 4, 90)};
  const auto png = encode_png(plate);
  write_text_file(dir / "plate.png", std::string(png.begin(), png.end()));
  LinearImage depth{320, 180, std::vector<float>(320 * 180 * 4, 10200.0f / 65535.0f)};
  for (size_t i = 3; i < depth.rgba.size(); i += 4) depth.rgba[i] = 1.0f;  // opaque: the samples as they are
  PngSettings data;
  data.srgb = false;
  const auto depth_png = encode_png16(depth, data);
  write_text_file(dir / "depth.png", std::string(depth_png.begin(), depth_png.end()));
  for (const char* backend : kBackends) {
    FlakeScene hard;
    hard.size = 0.3f;
    hard.background = "#000000";
    hard.output = fmt::format(R"(, "plate": "{}", "plate_depth": "{}", "layers": ["mask"])", (dir / "plate.png").string(),
                              (dir / "depth.png").string());
    FlakeScene soft = hard;
    soft.output += R"(, "plate_soft": 1.0)";
    const double h = sum(render_exr(dir, hard, backend, "plate-hard").channels.at("mask.flake"));
    const double s = sum(render_exr(dir, soft, backend, "plate-soft").channels.at("mask.flake"));
    ASSERT_GT(h, 1.0);
    EXPECT_NEAR(s / h, 0.2, 0.03) << backend;  // (10.2 − 10) / 1
  }
}

TEST(RenderLook, FogThinningWithHeightSeenFromHighAboveIsNoBlackFrame) {
  // A camera 100 m over a fog of falloff 1: its formula was 0 × ∞ (NaN), and
  // the PNG came out black with exit 0 (an EXR was refused, 69).
  TempDir dir("look-fog-high");
  write_text_file(dir / "s.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "background": "#202020"},
    "camera": {"position": [0, 100, 10], "target": [0, 0, 0]},
    "environment": {"ground": {"color": "#808080"}, "fog": {"density": 0.02, "height_falloff": 1}},
    "emitters": [{"type": "snow", "max_particles": 2000, "size": 0.2}]})");
  for (const char* backend : kBackends) {
    for (const char* file : {"f_#.exr", "f_#.png"}) {
      const CliResult r = run_fxsim(fmt::format("render '{}' --frames 2 -q --backend {} -o '{}'", (dir / "s.json").string(),
                                                backend, (dir / backend / file).string()));
      ASSERT_EQ(r.exit_code, 0) << backend << " " << file << ": " << r.err;
    }
    const Image png = read_png(dir / backend / "f_2.png");
    // The grey ground through a thin fog: the middle pixel is no longer black.
    const size_t middle = (size_t(18) * 64 + 32) * 4;
    EXPECT_GT(png.rgba[middle], 60) << backend;
  }
}
