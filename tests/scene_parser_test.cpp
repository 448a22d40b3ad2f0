#include <gtest/gtest.h>

#include "core/diagnostics.h"
#include "core/scene_parser.h"

using namespace fxsim;

namespace {
std::vector<std::string> problems(const std::string& text) {
  try {
    parse_scene_text(text, "s.json", ".");
  } catch (const SceneError& e) {
    return e.lines();
  }
  return {};
}
}  // namespace

TEST(SceneParser, FillsTheDocumentedDefaults) {
  const Scene s = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow"}]})", "dir/my-scene.json", ".");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.output.width, 640);
  EXPECT_EQ(s.output.height, 360);
  EXPECT_EQ(s.output.fps, 24);
  EXPECT_EQ(s.output.frames, 48);
  EXPECT_EQ(s.output.samples, 4);
  EXPECT_EQ(s.output.path, "my-scene_####.png");
  EXPECT_EQ(s.camera.position, glm::vec3(0, 2, 10));
  EXPECT_EQ(s.camera.fov, 50);
  EXPECT_EQ(s.environment.gravity, glm::vec3(0, -9.81f, 0));
  ASSERT_TRUE(s.environment.ground);
  EXPECT_FALSE(s.environment.ground->color);
  const EmitterSettings& e = s.emitters[0];
  EXPECT_EQ(e.name, "snow0");
  EXPECT_EQ(e.max_particles, 20000);
  EXPECT_FLOAT_EQ(e.size, 0.05f);
  EXPECT_FLOAT_EQ(e.opacity, 0.9f);
  EXPECT_EQ(e.blend, BlendMode::alpha);
  EXPECT_EQ(e.billboard, BillboardMode::screen);
  EXPECT_EQ(e.precipitation().region.size, glm::vec3(20, 10, 20));
  EXPECT_EQ(e.precipitation().recycle, Recycle::wrap);
  EXPECT_TRUE(e.precipitation().prewarm);
  EXPECT_EQ(e.precipitation().motion, Motion::wind);
  EXPECT_FLOAT_EQ(e.precipitation().drag, 8);
  EXPECT_FLOAT_EQ(e.precipitation().sway.amplitude, 0.3f);
  EXPECT_EQ(e.precipitation().shapes, 6);
}

TEST(SceneParser, TheSimulationKeyIsOfValuesNotTheirSpelling) {
  // --fps 24 wrote 24.0 over a scene's 24: its checkpoints were ignored as
  // another scene's, and verify called the two runs' frames two scenes.
  const auto key = [](const std::string& fps, const std::string& center) {
    return parse_scene_text(R"({"fxsim": 1, "output": {"fps": )" + fps + R"(}, "emitters": [{"type": "snow",
      "region": {"center": )" + center + R"(, "size": [20, 10, 20]}}]})",
                            "s.json", ".")
        .simulation_key;
  };
  EXPECT_EQ(key("24", "[0, 5, 0]"), key("24.0", "[0.0, 5.0, -0]"));
  EXPECT_EQ(key("24", "[0, 5, 0]"), key("2.4e1", "[0, 5e0, 0]"));
  EXPECT_EQ(key("23.5", "[0, 5, 0]"), key("2.35e1", "[0, 5, 0]"));
  EXPECT_NE(key("24", "[0, 5, 0]"), key("25", "[0, 5, 0]"));
  EXPECT_NE(key("24", "[0, 5, 0]"), key("24", "[0, 5.5, 0]"));
}

TEST(SceneParser, ReadsColoursInEveryForm) {
  const Scene s = parse_scene_text(R"({"fxsim": 1, "output": {"background": "#ff8000"},
      "environment": {"ground": {"color": [0.5, 0.25, 1]}},
      "emitters": [{"type": "snow", "color": "#00ff0080"}]})", "s.json", ".");
  EXPECT_FLOAT_EQ(s.output.background.srgb.r, 1.0f);
  EXPECT_NEAR(s.output.background.srgb.g, 128 / 255.0f, 1e-6);
  EXPECT_FLOAT_EQ(s.environment.ground->color->srgb.g, 0.25f);
  EXPECT_NEAR(s.emitters[0].color.srgb.a, 128 / 255.0f, 1e-6);
}

TEST(SceneParser, EmitterSeedsAreDerivedAndDistinct) {
  const Scene s = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow"}, {"type": "snow"},
      {"type": "snow", "seed": 5}]})", "s.json", ".");
  EXPECT_NE(s.emitters[0].seed, s.emitters[1].seed);
  EXPECT_EQ(s.emitters[2].seed, 5u);
  EXPECT_EQ(s.emitters[1].name, "snow1");
}

TEST(SceneParser, ReportsEveryProblemWithLineColumnAndPointer) {
  const auto lines = problems("{\n  \"fxsim\": 1,\n  \"output\": {\"width\": 0},\n  \"emitters\": [\n"
                              "    {\"type\": \"snow\", \"max_particles\": -5, \"sise\": 1}\n  ]\n}");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "s.json:3:23: /output/width: expected an integer in 1..16384, got 0");
  EXPECT_EQ(lines[1], "s.json:5:39: /emitters/0/max_particles: expected an integer in 0..2147483647, got -5");
  EXPECT_EQ(lines[2], "s.json:5:43: /emitters/0/sise: unknown key \"sise\" (did you mean \"size\"?)");
}

TEST(SceneParser, AKeysTimeOutOfRangeIsOneProblem) {
  // It stood as the previous key's time and was reported a second time, as
  // "later than the previous key's 0, got 0".
  const auto lines = problems(R"({"fxsim": 1, "camera": {"keys": [{"time": 0}, {"time": -1}]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("/camera/keys/1/time: expected a number in 0..10000000, got -1"), std::string::npos) << lines[0];
}

TEST(SceneParser, AViewOutOfRangeIsOneProblem) {
  // The target stood as the default [0, 2, 0], which from this eye looks
  // along up: "not parallel to the camera's up" came second, about a view
  // the scene does not have. The same for a key's target.
  // A key without its own target takes one refused before it (the
  // previous key's, or the camera's): no view to judge either.
  for (const char* camera : {R"("position": [0, -999000, 0], "target": [5, -1000010, 0])",
                             R"("keys": [{"time": 0, "position": [0, -999000, 0], "target": [5, -1000010, 0]}])",
                             R"("keys": [{"time": 0, "position": [0, -999000, 0], "target": [5, -1000010, 0]},
                                         {"time": 1, "position": [0, -999000, 0]}])",
                             R"("target": [5, -1000010, 0], "keys": [{"time": 0, "position": [0, -999000, 0]}])"}) {
    const auto lines = problems(std::string(R"({"fxsim": 1, "camera": {)") + camera + R"(}, "emitters": [{"type": "snow"}]})");
    ASSERT_EQ(lines.size(), 1u) << lines.back();
    EXPECT_NE(lines[0].find("target: expected a vector [x, y, z] of 3 numbers, each in -1000000..1000000"),
              std::string::npos) << lines[0];
  }
  // A view that is read and degenerate is still said, a key's taken from the key before too.
  EXPECT_EQ(problems(R"({"fxsim": 1, "camera": {"position": [0, 0, 0], "target": [0, 5, 0]}, "emitters": [{"type": "snow"}]})").size(), 1u);
  const auto taken = problems(R"({"fxsim": 1, "camera": {"keys": [{"time": 0, "position": [0, 0, 0], "target": [0, 5, 0]},
    {"time": 1, "position": [0, 1, 0]}]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_NE(taken[1].find("/camera/keys/1"), std::string::npos) << taken[1];
}

TEST(SceneParser, RainOrSnowWhollyUnderTheGroundIsWarnedAbout) {
  // Born under the ground, its flakes lay in one sheet, without a word.
  const auto warnings_of = [](const std::string& environment, const char* center) {
    return parse_scene_text(std::string(R"({"fxsim": 1, "environment": {)") + environment +
                                R"(}, "emitters": [{"type": "snow", "region": {"center": )" + center +
                                R"(, "size": [4, 4, 4]}}, {"type": "rain", "region": {"center": )" + center +
                                R"(, "size": [4, 4, 4]}}]})",
                            "s.json", ".")
        .warnings;
  };
  const std::vector<std::string> under = warnings_of(R"("ground": {"height": 1})", "[0, -1, 0]");
  ASSERT_EQ(under.size(), 2u);
  EXPECT_EQ(under[0], "/emitters/0/region: the box (top at 1 m) lies wholly under the ground (at 1 m): its particles "
                      "are born under it and lie on it; raise the box's center");
  EXPECT_NE(under[1].find("/emitters/1/region"), std::string::npos) << under[1];
  EXPECT_TRUE(warnings_of(R"("ground": {"height": 1})", "[0, -0.9, 0]").empty());  // its top above the ground
  EXPECT_TRUE(warnings_of(R"("ground": null)", "[0, -10, 0]").empty());            // no ground
  // A box carried by the camera is in the camera's frame: its y is no height
  // (a box 8 m below a camera 50 m up was said to lie under the ground).
  const std::vector<std::string> carried =
      parse_scene_text(R"({"fxsim": 1, "camera": {"position": [0, 50, 10], "target": [0, 50, 0]},
        "environment": {"ground": {"height": 0}}, "emitters": [{"type": "snow", "follow_camera": true,
        "region": {"center": [0, -8, -10], "size": [20, 10, 20]}}]})", "s.json", ".")
          .warnings;
  EXPECT_TRUE(carried.empty()) << carried.front();
}

TEST(SceneParser, AFocusNearerThanTheFocalLengthIsRefused) {
  // The lens focuses nothing there: every flake was spread over the frame
  // and the frames came out empty, exit 0.
  const auto near = problems(R"({"fxsim": 1, "camera": {"fov": 55, "aperture": 2, "focus_distance": 0.02},
    "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(near.size(), 1u);
  EXPECT_NE(near[0].find("/camera/focus_distance: expected a distance beyond the lens's focal length, 0.02305 m"),
            std::string::npos) << near[0];
  EXPECT_TRUE(problems(R"({"fxsim": 1, "camera": {"fov": 55, "aperture": 2, "focus_distance": 0.03},
    "emitters": [{"type": "snow"}]})").empty());
  // Without a focus_distance the lens focuses at the target: one that near
  // drew black frames, exit 0, where the same distance given was refused.
  const auto target = problems(R"({"fxsim": 1, "camera": {"fov": 5, "aperture": 2, "position": [0, 5, 0],
    "target": [0, 5, -0.1]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(target.size(), 1u);
  EXPECT_NE(target[0].find("/camera/target: expected the target farther from the eye than the lens's focal length, "
                           "0.2748 m"), std::string::npos) << target[0];
  EXPECT_TRUE(problems(R"({"fxsim": 1, "camera": {"fov": 5, "aperture": 2, "position": [0, 5, 0],
    "target": [0, 5, -0.1], "focus_distance": 5}, "emitters": [{"type": "snow"}]})").empty());
  EXPECT_TRUE(problems(R"({"fxsim": 1, "camera": {"fov": 5, "position": [0, 5, 0],
    "target": [0, 5, -0.1]}, "emitters": [{"type": "snow"}]})").empty());  // no aperture: no lens
  // And along a path, at the frame where the target comes near.
  const auto path = problems(R"({"fxsim": 1, "output": {"frames": 48}, "camera": {"fov": 5, "aperture": 2,
    "keys": [{"time": 0, "position": [0, 5, 0], "target": [0, 5, -10]},
             {"time": 2, "position": [0, 5, 0], "target": [0, 5, -0.1]}]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(path.size(), 1u);
  EXPECT_NE(path[0].find("/camera/keys: at frame 48 (t = 2 s): expected the target farther"), std::string::npos)
      << path[0];
}

TEST(SceneParser, AFiresIntensityScaleTooSmallForAnyFlameIsRefused) {
  // 1..15 passed and drew a black fire (each row's truncating mean put out
  // a flame of so few units within a row or two).
  const auto small = problems(R"({"fxsim": 1, "emitters": [{"type": "fire", "max_intensity": 15}]})");
  ASSERT_EQ(small.size(), 1u);
  EXPECT_NE(small[0].find("/emitters/0/max_intensity: expected a number in 16..1000000, got 15"), std::string::npos)
      << small[0];
  EXPECT_TRUE(problems(R"({"fxsim": 1, "emitters": [{"type": "fire", "max_intensity": 16}]})").empty());
}

TEST(SceneParser, PointsAtTheSyntaxError) {
  const auto lines = problems("{\n  \"fxsim\": 1,\n  \"emitters\": [}\n}");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("s.json:3:16: not valid JSON"), std::string::npos) << lines[0];
}

TEST(SceneParser, ReadsEveryEmitterType) {
  const Scene s = parse_scene_text(R"({"fxsim": 1, "emitters": [{"type": "snow"}, {"type": "rain"},
      {"type": "fountain", "nozzles": [{}]}, {"type": "fire", "size": [2, 3], "grid": [10, 8]},
      {"type": "explosion", "scale": 3}]})", "s.json", ".");
  ASSERT_EQ(s.emitters.size(), 5u);
  EXPECT_EQ(s.emitters[1].max_particles, 50000);
  EXPECT_FLOAT_EQ(s.emitters[1].precipitation().drag, 1.3f);
  EXPECT_EQ(s.emitters[2].as<FountainParams>().nozzles.size(), 1u);
  EXPECT_EQ(s.emitters[3].as<FireParams>().rows, 10);
  EXPECT_EQ(s.emitters[3].as<FireParams>().size, glm::vec2(2, 3));
  EXPECT_EQ(s.emitters[3].blend, BlendMode::additive);
  EXPECT_EQ(s.emitters[4].billboard, BillboardMode::viewpoint);
  EXPECT_FLOAT_EQ(s.emitters[4].as<ExplosionParams>().scale, 3.0f);
}

TEST(SceneParser, RainRejectsSnowOnlyKeys) {
  const auto lines = problems(R"({"fxsim": 1, "emitters": [{"type": "rain", "sway": null, "shapes": 3}]})");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("/emitters/0/sway: unknown key"), std::string::npos);
  EXPECT_NE(lines[1].find("/emitters/0/shapes: unknown key"), std::string::npos);
}

TEST(NearestWord, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> keys{"size", "seed", "max_particles", "velocity"};
  EXPECT_EQ(nearest_word("sise", keys), "size");
  EXPECT_EQ(nearest_word("max_particle", keys), "max_particles");
  EXPECT_EQ(nearest_word("velocty", keys), "velocity");
  EXPECT_EQ(nearest_word("banana", keys), "");
  // Two letters swapped are one slip, not two ("far" is two edits from "fvo" too).
  const std::vector<std::string> camera{"far", "fov", "near", "up"};
  EXPECT_EQ(nearest_word("fvo", camera), "fov");
  EXPECT_EQ(nearest_word("nera", camera), "near");
}

TEST(SceneParser, ReadsTheLayersAndRefusesUnknownOnesAndAPlateLayerWithoutAPlate) {
  const Scene s = parse_scene_text(R"({"fxsim": 1, "output": {"layers": ["depth", "motion"]}, "emitters": [{"type": "snow"}]})", "s.json", ".");
  EXPECT_TRUE(s.output.depth_layer);
  EXPECT_TRUE(s.output.motion_layer);
  EXPECT_FALSE(s.output.mask_layers);
  const auto unknown = problems(R"({"fxsim": 1, "output": {"layers": ["normals"]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_NE(unknown[0].find("/output/layers/0: expected \"depth\", \"mask\", \"motion\" or \"plate\""), std::string::npos)
      << unknown[0];
  const auto plate = problems(R"({"fxsim": 1, "output": {"layers": ["plate"]}, "emitters": [{"type": "snow"}]})");
  ASSERT_EQ(plate.size(), 1u);
  EXPECT_NE(plate[0].find("/output/layers: the \"plate\" layer needs output.plate"), std::string::npos) << plate[0];
}
