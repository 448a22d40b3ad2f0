// The footage look's formulas on their own (core): lights' irradiance and
// phase functions, the thin lens, the tone curve, and rain and snow in
// physical units against the published numbers.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/core.h>
#include <glm/trigonometric.hpp>

#include "core/depth_of_field.h"
#include "core/diagnostics.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "core/lighting.h"
#include "core/tone.h"
#include "core/weather.h"

using namespace fxsim;

TEST(Lighting, PointLightsFallOffAsTheInverseSquareAndEndSmoothlyAtTheirRange) {
  Light light;
  light.type = LightType::point;
  light.position = {0, 0, 0};
  light.intensity = 8;
  light.range = 100;
  EXPECT_NEAR(light_arriving(light, {2, 0, 0}).irradiance.r, 2.0f, 1e-4f);
  EXPECT_NEAR(light_arriving(light, {4, 0, 0}).irradiance.r, 0.5f, 1e-4f);
  light.range = 4;  // (1 − (2/4)⁴)² = 0.8789
  EXPECT_NEAR(light_arriving(light, {2, 0, 0}).irradiance.r, 2.0f * 0.87891f, 1e-4f);
  EXPECT_EQ(light_arriving(light, {5, 0, 0}).irradiance.r, 0.0f);
  const glm::vec3 to_light = light_arriving(light, {2, 0, 0}).to_light;
  EXPECT_NEAR(to_light.x, -1.0f, 1e-6f);
}

TEST(Lighting, SpotsAreFullInsideTheInnerConeNoneOutsideTheOuterAndSmoothBetween) {
  Light spot;
  spot.type = LightType::spot;
  spot.position = {0, 1, 0};
  spot.direction = {0, -1, 0};
  spot.intensity = 1;
  spot.range = 1000;
  spot.inner_cone = 20;
  spot.outer_cone = 40;
  const auto at_angle = [&](float degrees) {
    const float a = glm::radians(degrees);
    return light_arriving(spot, spot.position + glm::vec3(std::sin(a), -std::cos(a), 0)).irradiance.r;
  };
  EXPECT_NEAR(at_angle(0), 1.0f, 1e-5f);
  EXPECT_NEAR(at_angle(19), 1.0f, 1e-5f);
  EXPECT_EQ(at_angle(41), 0.0f);
  // Between: smoothstep of the cosine.
  const float lo = std::cos(glm::radians(40.0f)), hi = std::cos(glm::radians(20.0f)), c = std::cos(glm::radians(30.0f));
  const float t = (c - lo) / (hi - lo);
  EXPECT_NEAR(at_angle(30), t * t * (3 - 2 * t), 1e-5f);
  float previous = 2;
  for (float d = 0; d <= 45; d += 0.5f) {
    EXPECT_LE(at_angle(d), previous + 1e-6f) << d;
    previous = at_angle(d);
  }
}

TEST(Lighting, PhaseFunctionsAreNormalisedAndDropsGlintForward) {
  // Isotropic scattering is 1; the Henyey–Greenstein lobe's mean over the sphere is 1 too.
  for (const Scattering& s : {kSnowScattering, kDropScattering, kMistScattering}) {
    double mean = 0;
    constexpr int n = 20000;
    for (int i = 0; i < n; ++i) mean += phase(s, -1.0f + 2.0f * (float(i) + 0.5f) / n) / n;  // uniform in μ
    EXPECT_NEAR(mean, s.isotropic + s.forward + s.backward, 1e-3);
  }
  // A drop before a light glints: far brighter backlit than lit from behind the eye.
  EXPECT_GT(phase(kDropScattering, 1.0f), 30.0f * phase(kDropScattering, -1.0f));
  // ... and sends light back towards its source (headlights) more than sideways.
  EXPECT_GT(phase(kDropScattering, -1.0f), 3.0f * phase(kDropScattering, 0.0f));
  EXPECT_GT(phase(kSnowScattering, 1.0f), phase(kSnowScattering, 0.0f));
  // A backlit flake: the light behind it, travelling towards the eye (μ = 1).
  Lighting lighting;
  Light light;
  light.position = {0, 0, -1};
  light.range = 1000;
  lighting.lights.push_back(light);
  const glm::vec3 backlit = lit_factor(lighting, kSnowScattering, {0, 0, 0}, {0, 0, 10});
  EXPECT_NEAR(backlit.r, phase(kSnowScattering, 1.0f), 1e-4f);
  EXPECT_EQ(lit_factor(lighting, kEmitted, {0, 0, 0}, {0, 0, 10}), glm::vec3(1));
}

TEST(Lighting, LightsCarriedByTheCameraMoveWithIt) {
  Lighting lighting;
  Light headlight;
  headlight.type = LightType::spot;
  headlight.position = {0.5f, -1, 0};
  headlight.direction = {0, 0, -1};  // along the view
  headlight.follow_camera = true;
  lighting.lights.push_back(headlight);
  CameraPose camera{{10, 2, 0}, {0, 2, 0}, {0, 1, 0}, 50, 0.1f, 100};  // looking along −x
  const Light moved = lighting_at(lighting, camera).lights[0];
  EXPECT_NEAR(moved.position.x, 10.0f, 1e-5f);
  EXPECT_NEAR(moved.position.y, 1.0f, 1e-5f);
  EXPECT_NEAR(moved.position.z, -0.5f, 1e-5f);  // the camera's right is −z here
  EXPECT_NEAR(moved.direction.x, -1.0f, 1e-5f);
}

TEST(DepthOfField, TheCircleOfConfusionIsTheThinLenss) {
  // fov 50°: f = 12 mm / tan 25° = 25.73 mm; at f/2 the aperture is 12.87 mm.
  const ThinLens lens = thin_lens(50, 2, 5, 1000);
  const double f = 0.012 / std::tan(25.0 * 3.14159265358979 / 180), a = f / 2;
  const double on_sensor = a * f / (5 - f) * std::fabs(20.0 - 5) / 20;
  EXPECT_NEAR(lens.circle_of_confusion(20), on_sensor * 1000 / 0.024, 1e-3);
  EXPECT_EQ(lens.circle_of_confusion(5), 0.0f);
  EXPECT_GT(lens.circle_of_confusion(1), lens.circle_of_confusion(3));  // nearer: blurrier
}

TEST(Tone, TheFilmicCurveIsMonotonicFromZeroTowardsOne) {
  EXPECT_EQ(filmic(0), 0.0f);
  EXPECT_NEAR(filmic(1), 0.8038f, 1e-3f);
  float previous = -1;
  for (float x = 0; x < 200; x += 0.01f) {
    const float y = filmic(x);
    EXPECT_GE(y, previous) << x;
    EXPECT_LE(y, 1.0f);
    previous = y;
  }
  EXPECT_GT(filmic(100), 0.99f);
  // Each pixel's straight colour through the curve: a half-covered pixel keeps its coverage.
  const LinearImage image{1, 1, {0.5f, 2.0f, 0.0f, 0.5f}};
  const LinearImage mapped = tone_mapped(image);
  EXPECT_NEAR(mapped.rgba[0], filmic(1) * 0.5f, 1e-6f);
  EXPECT_NEAR(mapped.rgba[1], filmic(4) * 0.5f, 1e-6f);
  EXPECT_EQ(mapped.rgba[3], 0.5f);
}

TEST(Weather, RainFollowsMarshallPalmerAndGunnKinzer) {
  // Terminal velocities (Gunn and Kinzer): about 4 m/s at 1 mm, 6.5 at 2 mm, 9 at 5 mm.
  const SizeDistribution rain = rain_of_intensity(10);
  EXPECT_NEAR(rain.fall_speed(1), 4.0f, 0.1f);
  EXPECT_NEAR(rain.fall_speed(2), 6.5f, 0.1f);
  EXPECT_NEAR(rain.fall_speed(5), 9.1f, 0.1f);
  // N0 = 8000 m⁻³ mm⁻¹, Λ = 4.1 R^−0.21.
  const double lambda = 4.1 * std::pow(10.0, -0.21);
  EXPECT_NEAR(rain.lambda, lambda, 1e-5);
  EXPECT_NEAR(rain.per_cubic_metre(), 8000 / lambda * (std::exp(-lambda * 0.5) - std::exp(-lambda * 6)), 1e-2);
  // Heavier rain: bigger drops, falling faster.
  EXPECT_GT(rain_of_intensity(50).mean_fall_speed(), rain_of_intensity(1).mean_fall_speed());
  // diameter(u) inverts the distribution: the fraction below D is u.
  for (const float u : {0.1f, 0.5f, 0.9f}) {
    const double d = rain.diameter(u);
    const double below = (std::exp(-lambda * 0.5) - std::exp(-lambda * d)) / (std::exp(-lambda * 0.5) - std::exp(-lambda * 6));
    EXPECT_NEAR(below, u, 1e-4);
  }
  EXPECT_NEAR(rain.drawn_size(2), 0.002f, 1e-7f);
}

TEST(Weather, SnowFallsAtAggregateSpeedsAndVisibilityGivesItsIntensity) {
  const SizeDistribution snow = snow_of_intensity(1);
  EXPECT_NEAR(snow.lambda, 2.29f, 1e-4f);
  EXPECT_NEAR(snow.n0, 2500.0f, 1e-2f);
  // Real snow falls at about 0.5–1.5 m/s.
  for (const float d : {0.1f, 1.0f, 4.0f}) {
    EXPECT_GT(snow.fall_speed(d), 0.5f) << d;
    EXPECT_LT(snow.fall_speed(d), 1.5f) << d;
  }
  EXPECT_NEAR(snow.drawn_size(1), 0.0027144f, 1e-6f);
  // About 800 m of visibility at 1 mm/h; a visibility gives back its intensity.
  EXPECT_NEAR(visibility_of(snow), 820, 60);
  for (const double v : {300.0, 1000.0, 5000.0}) EXPECT_NEAR(visibility_of(snow_of_visibility(v)), v, 0.01 * v);
  EXPECT_LT(visibility_of(snow_of_intensity(5)), visibility_of(snow_of_intensity(1)));
}

namespace {
Scene scene_of(const std::string& environment, const std::string& emitters, const std::string& extra = "") {
  return parse_scene_text(R"({"fxsim": 1, "environment": {)" + environment + R"(}, "emitters": [)" + emitters + "]" +
                              extra + "}",
                          "look.json", ".");
}

std::string first_problem(const std::string& environment, const std::string& emitters, const std::string& extra = "") {
  try {
    scene_of(environment, emitters, extra);
  } catch (const SceneError& e) {
    return e.lines().empty() ? "?" : e.lines().front();
  }
  return "";
}
}  // namespace

TEST(Lighting, FiresFlickerAroundTheirIntensityAndExplosionsFlashAndFade) {
  const Scene scene = scene_of("", R"({"type": "fire", "position": [1, 0, 2], "size": [1, 2], "light": {"intensity": 10}},
    {"type": "explosion", "position": [0, 3, 0], "start": 1, "duration": 2, "light": true},
    {"type": "snow"})");
  double lowest = 1e9, highest = 0;
  for (double t = 0; t < 4; t += 0.01) {
    const std::vector<Light> lights = effect_lights(scene, t);
    ASSERT_GE(lights.size(), 1u);
    EXPECT_EQ(lights[0].position, glm::vec3(1, 0.8f, 2));  // 0.4 of the plane's height up
    lowest = std::min(lowest, double(lights[0].intensity));
    highest = std::max(highest, double(lights[0].intensity));
    EXPECT_EQ(lights.size(), t >= 1 && t < 3 ? 2u : 1u) << t;
  }
  EXPECT_GT(lowest, 7.9);  // 10 × (1 ± 0.2)
  EXPECT_LT(highest, 12.1);
  EXPECT_GT(highest - lowest, 2.0);
  // The flash: rising over the first tenth of its duration, then fading.
  EXPECT_NEAR(effect_lights(scene, 1.1)[1].intensity, 60 * 0.5f, 1e-3f);
  EXPECT_NEAR(effect_lights(scene, 1.2)[1].intensity, 60.0f, 1e-3f);
  EXPECT_NEAR(effect_lights(scene, 2.0)[1].intensity, 60 * std::exp(-4 * 0.4f / 0.9f), 1e-3f);
  // The same every run, and the look only: the simulation key ignores it.
  EXPECT_EQ(effect_lights(scene, 0.5)[0].intensity, effect_lights(scene, 0.5)[0].intensity);
  EXPECT_EQ(scene_of("", R"({"type": "fire"})").simulation_key, scene_of("", R"({"type": "fire", "light": true})").simulation_key);
  // Effect lights alone turn the lighting on.
  const CameraPose camera = camera_at(scene.camera, 0);
  EXPECT_TRUE(frame_lighting(scene, camera, 0.5).has_value());
  EXPECT_FALSE(frame_lighting(scene_of("", R"({"type": "fire"})"), camera, 0.5).has_value());
}

TEST(Lighting, ASourceGlowsWithTheIntensityItSendsTowardsTheEye) {
  Light lamp;
  lamp.type = LightType::point;
  lamp.position = {0, 0, 0};
  lamp.intensity = 10;
  lamp.size = 0.2f;
  EXPECT_NEAR(source_radiance(lamp, {0, 0, 5}).r, 10 / (3.14159265f * 0.01f), 1e-2f);
  lamp.type = LightType::spot;
  lamp.direction = {0, -1, 0};
  EXPECT_NEAR(source_radiance(lamp, {0, -5, 0}).r, 10 / (3.14159265f * 0.01f), 1e-2f);  // in its beam
  EXPECT_NEAR(source_radiance(lamp, {0, 5, 0}).r, 10 * kSourceSpill / (3.14159265f * 0.01f), 1e-3f);  // behind it
  lamp.size = 0;
  EXPECT_EQ(source_radiance(lamp, {0, -5, 0}), glm::vec3(0));
}

TEST(Lighting, ASpotsOuterConeDefaultsTo35OrTenDegreesPastAWiderInnerOne) {
  const auto outer = [](const std::string& spot) {
    return scene_of(R"("lights": [{"type": "spot", )" + spot + "}]", R"({"type": "snow"})")
        .environment.lighting->lights.at(0).outer_cone;
  };
  EXPECT_FLOAT_EQ(outer(R"("inner_cone": 20)"), 35);  // as before: the documented default
  EXPECT_FLOAT_EQ(outer(R"("inner_cone": 30)"), 35);
  EXPECT_FLOAT_EQ(outer(R"("inner_cone": 40)"), 50);  // was refused: "outer_cone" equal to inner_cone
  EXPECT_FLOAT_EQ(outer(R"("inner_cone": 85)"), 89.9f);
  EXPECT_FLOAT_EQ(outer(R"("inner_cone": 40, "outer_cone": 45)"), 45);
}

TEST(Lighting, TheParserRefusesWhatCannotBeLit) {
  EXPECT_NE(first_problem(R"("lights": [{"type": "spot", "inner_cone": 30, "outer_cone": 20}])", R"({"type": "snow"})")
                .find("/environment/lights/0/outer_cone"), std::string::npos);
  EXPECT_NE(first_problem(R"("lights": [{"type": "lamp"}])", R"({"type": "snow"})").find("/environment/lights/0/type"),
            std::string::npos);
  std::string sixteen;
  for (int i = 0; i < 16; ++i) sixteen += std::string(i ? ", " : "") + R"({"type": "point"})";
  EXPECT_EQ(first_problem(R"("lights": [)" + sixteen + "]", R"({"type": "snow"})"), "");
  EXPECT_NE(first_problem(R"("lights": [)" + sixteen + "]", R"({"type": "fire", "light": true})").find("at most 16 lights"),
            std::string::npos);
  EXPECT_NE(first_problem(R"("sky": {"horizon": "#ffffff", "zenith": "#000000"})", R"({"type": "snow"})",
                          R"(, "output": {"background": "transparent"})").find("/environment/sky"),
            std::string::npos);
  EXPECT_NE(first_problem("", R"({"type": "snow", "intensity": 1, "visibility": 500})").find("visibility"),
            std::string::npos);
  EXPECT_NE(first_problem("", R"({"type": "snow", "intensity": 100})").find("intensity"), std::string::npos);
  EXPECT_NE(first_problem("", R"({"type": "rain", "light": true})").find("light"), std::string::npos);  // fire and explosions only
}

TEST(Weather, TheCapLimitsPhysicalWeatherWithAWarning) {
  const Scene capped = scene_of("", R"({"type": "rain", "intensity": 10, "max_particles": 1000,
                                        "region": {"size": [10, 10, 10]}})");
  EXPECT_EQ(capped.emitters[0].max_particles, 1000);
  ASSERT_EQ(capped.warnings.size(), 1u);
  EXPECT_NE(capped.warnings[0].find("max_particles"), std::string::npos) << capped.warnings[0];
  const Scene full = scene_of("", R"({"type": "rain", "intensity": 10, "region": {"size": [2, 2, 2]}})");
  EXPECT_EQ(full.emitters[0].max_particles, int64_t(std::ceil(rain_of_intensity(10).per_cubic_metre() * 8)));
  EXPECT_TRUE(full.warnings.empty());
  // Snow by visibility: its drag gives the flakes' mean fall speed under gravity.
  const Scene snow = scene_of("", R"({"type": "snow", "visibility": 600, "region": {"size": [2, 2, 2]}})");
  const PrecipitationParams& p = snow.emitters[0].precipitation();
  ASSERT_TRUE(p.sizes);
  EXPECT_NEAR(9.81f / p.drag, p.sizes->mean_fall_speed(), 1e-3);
}

TEST(Weather, SnowInPhysicalUnitsFallsAtItsSizesSpeedWhateverItsVelocityKeySays) {
  // `velocity` no longer applies (docs/scene-format.md): a constant flake
  // fell at the key's speed (or the default 1 m/s); one in the wind was born at it.
  for (const char* motion : {"constant", "wind"}) {
    SCOPED_TRACE(motion);
    const std::string keys = fmt::format(R"("type": "snow", "visibility": 600, "motion": "{}", "region": {{"size": [2, 2, 2]}})", motion);
    const Scene plain = scene_of("", "{" + keys + "}");
    const Scene given = scene_of("", "{" + keys + R"(, "velocity": [2, -3, 0], "velocity_variation": [1, 1, 1]})");
    const PrecipitationParams &a = plain.emitters[0].precipitation(), &b = given.emitters[0].precipitation();
    ASSERT_TRUE(a.sizes);
    EXPECT_EQ(a.velocity, glm::vec3(0, -float(a.sizes->mean_fall_speed()), 0));
    EXPECT_EQ(b.velocity, a.velocity);
    EXPECT_EQ(b.velocity_variation, glm::vec3(0));
    // The same particles, step by step: the keys change nothing.
    Simulation x(plain, 1), y(given, 1);
    x.advance_to_frame(6);
    y.advance_to_frame(6);
    EXPECT_EQ(x.state_hash(), y.state_hash());
    const FrameStats stats = x.take_stats();
    EXPECT_NEAR(stats.emitters[0].mean_velocity.y, -a.sizes->mean_fall_speed(), 0.05);
  }
}
