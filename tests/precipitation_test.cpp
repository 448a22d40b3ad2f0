#include <gtest/gtest.h>

#include <cmath>
#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include "core/scene_parser.h"
#include "core/simulation.h"
#include "core/effects/precipitation/precipitation.h"
#include "core/wind.h"

#include <algorithm>
#include <cstdio>
#include <glm/mat4x4.hpp>

using namespace fxsim;

namespace {
Scene scene_from(const std::string& emitter, const std::string& environment = R"({"ground": null})",
                 const std::string& camera = "{}") {
  const std::string text = R"({"fxsim": 1, "seed": 3, "output": {"fps": 24, "frames": 200},
    "camera": )" + camera + R"(, "environment": )" + environment + R"(, "emitters": [)" + emitter + "]}";
  return parse_scene_text(text, "test.json", ".");
}

const PrecipitationSystem& snow(const Simulation& sim, size_t i = 0) {
  return dynamic_cast<const PrecipitationSystem&>(sim.system(i));
}
}  // namespace

TEST(Snow, FallsAtTerminalSpeedInStillAir) {
  const Scene scene = scene_from(R"({"type": "snow", "max_particles": 2000, "drag": 4, "gravity_scale": 1.5,
      "velocity_variation": [0, 0, 0], "sway": null,
      "region": {"center": [0, 500, 0], "size": [10, 1000, 10]}})");
  Simulation sim(scene, 2);
  sim.advance_to_frame(72);  // 3 s = 12 time constants
  const FrameStats stats = sim.take_stats();
  EXPECT_NEAR(stats.emitters[0].mean_velocity.y, -9.81 * 1.5 / 4, 1e-3);
  EXPECT_NEAR(stats.emitters[0].mean_velocity.x, 0, 1e-6);
}

TEST(Snow, TakesOnASteadyWind) {
  const Scene scene = scene_from(R"({"type": "snow", "max_particles": 500, "drag": 8, "sway": null,
      "region": {"center": [0, 500, 0], "size": [10, 1000, 10]}})",
                                 R"({"ground": null, "wind": {"velocity": [-3, 0, 1]}})");
  Simulation sim(scene, 1);
  sim.advance_to_frame(48);
  const EmitterStats s = sim.take_stats().emitters[0];
  EXPECT_NEAR(s.mean_velocity.x, -3, 1e-3);
  EXPECT_NEAR(s.mean_velocity.z, 1, 1e-3);
  EXPECT_NEAR(s.mean_velocity.y, -9.81 / 8, 1e-3);
}

TEST(Snow, ConstantMotionKeepsEachVelocity) {
  const Scene scene = scene_from(R"({"type": "snow", "motion": "constant", "max_particles": 3000, "sway": null,
      "recycle": "wrap"})",
                                 R"({"ground": null, "wind": {"velocity": [1, 0, 0],
                                     "gust": {"amplitude": [2, 0, 2], "period": 1}}})");
  Simulation sim(scene, 2);
  sim.advance_to_frame(1);
  const auto vx = snow(sim).particles().vx, vy = snow(sim).particles().vy;
  // Velocities include the wind at birth (time 0, uniform here: no turbulence).
  const WindField wind(scene.environment.wind, scene.seed);
  double mean_vx = 0;
  for (float v : vx) mean_vx += v;
  EXPECT_NEAR(mean_vx / double(vx.size()), wind.at(glm::vec3(0), 0.0).x, 0.02);
  EXPECT_GT(std::fabs(wind.at(glm::vec3(0), 0.0).x - 1.0f), 0.05f);  // the gust really contributes
  sim.advance_to_frame(100);
  EXPECT_EQ(snow(sim).particles().vx, vx);
  EXPECT_EQ(snow(sim).particles().vy, vy);
}

TEST(Snow, RespawnKeepsTheLiveCountAtTheCap) {
  const Scene scene = scene_from(R"({"type": "snow", "recycle": "respawn", "max_particles": 4000,
      "region": {"center": [0, 2, 0], "size": [6, 4, 6]}})",
                                 R"({"ground": {"height": 0.5}, "wind": {"velocity": [3, 0, 0]}})");
  Simulation sim(scene, 2);
  int64_t died = 0;
  for (int f = 1; f <= 96; ++f) {
    sim.advance_to_frame(f);
    const EmitterStats s = sim.take_stats().emitters[0];
    EXPECT_EQ(s.live, 4000u) << f;
    // Frame 1 also counts the 4000 flakes of the prewarmed box, born at time 0.
    EXPECT_EQ(s.spawned, s.died + (f == 1 ? 4000 : 0)) << f;
    died += s.died;
  }
  EXPECT_GT(died, 1000);  // flakes really do hit the ground and the sides, and come back
}

TEST(Snow, WithoutPrewarmFillsFromTheTopUpToTheCap) {
  const Scene scene = scene_from(R"({"type": "snow", "prewarm": false, "recycle": "respawn", "max_particles": 3000,
      "region": {"center": [0, 5, 0], "size": [10, 10, 10]}})");
  Simulation sim(scene, 2);
  uint64_t previous = 0;
  for (int f = 1; f <= 200; ++f) {
    sim.advance_to_frame(f);
    const EmitterStats s = sim.take_stats().emitters[0];
    EXPECT_LE(s.live, 3000u);
    EXPECT_GE(s.live, previous);
    if (f == 1) {
      EXPECT_GT(s.max.y, 9.9);  // new flakes enter at the top face
    }
    previous = s.live;
  }
  EXPECT_EQ(previous, 3000u);
}

TEST(Snow, WrapKeepsEveryFlakeInsideAMovingBox) {
  const Scene scene = scene_from(
      R"({"type": "snow", "follow_camera": true, "recycle": "wrap", "max_particles": 5000,
          "region": {"center": [0, 0, -8], "size": [12, 8, 16]}})",
      R"({"ground": null, "wind": {"velocity": [6, 0, 0], "turbulence": {"strength": 2, "scale": 2}}})",
      R"({"keys": [{"time": 0, "position": [0, 2, 0], "target": [0, 2, -10]},
                   {"time": 4, "position": [0, 2, -80], "target": [5, 2, -90]}]})");
  Simulation sim(scene, 2);
  for (int f = 1; f <= 96; f += 5) {
    sim.advance_to_frame(f);
    const PrecipitationSystem& s = snow(sim);
    const auto frame = s.region_frame(sim.camera());
    const glm::mat3 to_local = glm::transpose(frame.axes);
    for (size_t i = 0; i < s.live(); ++i) {
      const glm::vec3 local = to_local * (s.particles().position(i) - frame.center);
      ASSERT_LE(std::fabs(local.x), 6.0f + 1e-3f) << f << " " << i;
      ASSERT_LE(std::fabs(local.y), 4.0f + 1e-3f) << f << " " << i;
      ASSERT_LE(std::fabs(local.z), 8.0f + 1e-3f) << f << " " << i;
    }
    EXPECT_EQ(s.live(), 5000u);
  }
}

namespace {
// The flakes' heights in `bands` equal bands of [lo, hi]: the fewest and the
// most in a band, against the mean.
struct Bands {
  double fewest, most, mean;
};
Bands height_bands(const PrecipitationSystem& s, float lo, float hi, int bands) {
  std::vector<double> count(size_t(bands), 0.0);
  for (size_t i = 0; i < s.live(); ++i) {
    const float y = s.particles().py[i];
    if (y >= lo && y < hi) count[size_t(std::min(bands - 1, int((y - lo) / (hi - lo) * float(bands))))] += 1;
  }
  const auto [fewest, most] = std::minmax_element(count.begin(), count.end());
  double sum = 0;
  for (double c : count) sum += c;
  return {*fewest, *most, sum / bands};
}
}  // namespace

TEST(Snow, AFlakeThroughTheGroundKeepsItsPlaceInTheStream) {
  // At 2 frames a second a step falls 2 m. Flakes put back at exactly the top
  // face fell in sheets 2 m apart, and the last metres above the ground
  // emptied; carried past the top face by as far as they went under the
  // ground, they stay spread evenly down to it.
  for (const char* recycle : {"wrap", "respawn"}) {
    const Scene scene = parse_scene_text(std::string(R"({"fxsim": 1, "seed": 5, "output": {"fps": 2, "frames": 40},
      "environment": {"ground": {"height": 0}},
      "emitters": [{"type": "snow", "motion": "constant", "recycle": ")") + recycle + R"(", "max_particles": 20000,
        "velocity": [0, -4, 0], "velocity_variation": [0, 0.3, 0], "sway": null,
        "region": {"center": [0, 4, 0], "size": [10, 10, 10]}}]})",
                                         "test.json", ".");
    Simulation sim(scene, 2);
    sim.advance_to_frame(40);
    const Bands b = height_bands(snow(sim), 0.0f, 9.0f, 18);
    std::printf("%s: flakes in 0.5 m bands from the ground to 9 m: %.0f to %.0f, mean %.0f\n", recycle, b.fewest,
                b.most, b.mean);
    EXPECT_GT(b.fewest, 0.8 * b.mean) << recycle;
    EXPECT_LT(b.most, 1.2 * b.mean) << recycle;
  }
}

TEST(Snow, AFlakeReenteringAboveAHighGroundHasNoMotion) {
  // The ground 9 m up a 12 m box: flakes fall through a 3 m column and
  // re-enter at the top, a jump of about 3 m, less than half the box (6 m),
  // which took it for a motion: the motion layer drew it across the screen.
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "seed": 5, "output": {"fps": 24, "frames": 48, "layers": ["motion"]},
      "environment": {"ground": {"height": 9}},
      "emitters": [{"type": "snow", "motion": "constant", "max_particles": 5000,
        "velocity": [0, -4, 0], "velocity_variation": [0, 0.3, 0], "sway": null,
        "region": {"center": [0, 6, 0], "size": [10, 12, 10]}}]})",
                                       "test.json", ".");
  Simulation sim(scene, 2);
  size_t with_motion = 0, reentered = 0;
  for (int frame = 1; frame <= 48; ++frame) {
    sim.advance_to_frame(frame);
    for (const SpriteBatch& batch : sim.sprites())
      for (size_t i = 0; i < batch.previous.size(); ++i) {
        if (batch.previous[i].w == 0.0f) continue;
        const float travel = glm::length(batch.sprites[i].position - glm::vec3(batch.previous[i]));
        ++with_motion;
        reentered += travel > 1.0f;  // a frame's fall is 4/24 m
      }
  }
  EXPECT_GT(with_motion, 100000u);
  EXPECT_EQ(reentered, 0u) << "flakes whose previous position is the ground they went through";
}

TEST(Snow, BirthsAtTheTopAreSpreadOverTheirStep) {
  // Filling from the top at 2 frames a second: each step's new flakes lie
  // through the 2 m it falls, not in one sheet at the top face.
  const Scene scene = parse_scene_text(R"({"fxsim": 1, "seed": 5, "output": {"fps": 2, "frames": 4},
      "environment": {"ground": {"height": 0}},
      "emitters": [{"type": "snow", "motion": "constant", "prewarm": false, "max_particles": 20000,
        "velocity": [0, -4, 0], "velocity_variation": [0, 0, 0], "sway": null,
        "region": {"center": [0, 5, 0], "size": [10, 10, 10]}}]})",
                                       "test.json", ".");
  Simulation sim(scene, 2);
  sim.advance_to_frame(2);  // 1 s: the top 4 m filled
  const Bands b = height_bands(snow(sim), 6.0f, 10.0f, 16);
  std::printf("flakes in 0.25 m bands of the top 4 m: %.0f to %.0f, mean %.0f\n", b.fewest, b.most, b.mean);
  EXPECT_GT(b.fewest, 0.8 * b.mean);
  EXPECT_LT(b.most, 1.2 * b.mean);
  EXPECT_EQ(height_bands(snow(sim), 0.0f, 5.9f, 1).most, 0.0);  // none below what a second's fall reaches
}

TEST(Snow, ResultsDoNotDependOnTheThreadCount) {
  const Scene scene = scene_from(R"({"type": "snow", "max_particles": 50000, "recycle": "respawn"})",
                                 R"({"ground": {"height": 0}, "wind": {"velocity": [1, 0, 0],
                                     "gust": {"amplitude": [1, 0, 1], "period": 2},
                                     "turbulence": {"strength": 1, "scale": 2}}})");
  std::vector<uint64_t> hashes;
  std::vector<std::string> stats;
  for (int threads : {1, 2, 3}) {
    Simulation sim(scene, threads);
    sim.advance_to_frame(30);
    hashes.push_back(sim.state_hash());
    stats.push_back(to_json_line(sim.take_stats()));
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0], hashes[2]);
  EXPECT_EQ(stats[0], stats[1]);
  EXPECT_EQ(stats[0], stats[2]);
}

TEST(Rain, TheBoxTestGivesTheSameStateAtAnyWidth) {
  // A box turned with the camera and one that is not; a ground inside it; wrap and respawn.
  for (const char* region : {R"("region": {"center": [0, 4, 0], "size": [10, 10, 10]})",
                             R"("region": {"center": [0, 0, -6], "size": [10, 10, 10]}, "follow_camera": true)"})
    for (const char* recycle : {"wrap", "respawn"}) {
      const Scene scene = scene_from(std::string(R"({"type": "rain", "max_particles": 20003, "recycle": ")") + recycle +
                                         "\", " + region + "}",
                                     R"({"ground": {"height": 1}, "wind": {"velocity": [3, 0, 1]}})",
                                     R"({"position": [0, 2, 5], "target": [3, 1, 0]})");
      std::vector<uint64_t> hashes;
      for (int lanes : {8, 1}) {
        limit_leaving_test_width(lanes);
        Simulation sim(scene, 2);
        sim.advance_to_frame(30);
        hashes.push_back(sim.state_hash());
      }
      limit_leaving_test_width(8);
      EXPECT_EQ(hashes[0], hashes[1]) << region << ", " << recycle;
    }
}

TEST(Snow, SameSeedSameFlakesOtherSeedOtherFlakes) {
  const std::string emitter = R"({"type": "snow", "max_particles": 1000})";
  Simulation a(scene_from(emitter), 1), b(scene_from(emitter), 2);
  a.advance_to_frame(10);
  b.advance_to_frame(10);
  EXPECT_EQ(a.state_hash(), b.state_hash());
  Simulation c(scene_from(R"({"type": "snow", "max_particles": 1000, "seed": 99})"), 1);
  c.advance_to_frame(10);
  EXPECT_NE(a.state_hash(), c.state_hash());
}

TEST(Snow, ExpDepthScaleEnlargesNearFlakes) {
  const Scene scene = scene_from(R"({"type": "snow", "max_particles": 2000, "depth_scale": "exp", "depth_k": 1,
      "region": {"center": [0, 2, 0], "size": [10, 4, 10]}})");
  Simulation sim(scene, 1);
  sim.advance_to_frame(1);
  const auto batches = sim.sprites();
  ASSERT_EQ(batches.size(), 1u);
  const CameraPose cam = sim.camera();
  double near_ratio = 0, far_ratio = 0;
  int near_n = 0, far_n = 0;
  const auto& store = snow(sim).particles();
  for (size_t i = 0; i < batches[0].sprites.size(); ++i) {
    const float ratio = batches[0].sprites[i].size / store.size[i];
    const float d = -glm::dot(store.position(i) - glm::vec3(0, 2, 0), cam.forward()) / 5.0f;
    if (d > 0.9f) near_ratio += ratio, ++near_n;
    if (d < -0.9f) far_ratio += ratio, ++far_n;
  }
  EXPECT_NEAR(near_ratio / near_n, std::exp(0.95), 0.1);
  EXPECT_NEAR(far_ratio / far_n, std::exp(-0.95), 0.05);
}

TEST(Snow, SizeVariationStaysInItsRange) {
  const Scene scene = scene_from(R"({"type": "snow", "max_particles": 5000, "size": 0.1, "size_variation": 0.5})");
  Simulation sim(scene, 1);
  const auto& sizes = snow(sim).particles().size;
  const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
  EXPECT_GE(*lo, 0.05f);
  EXPECT_LE(*hi, 0.15f);
  EXPECT_LT(*lo, 0.052f);
  EXPECT_GT(*hi, 0.148f);
}

// ---- Rain ----------------------------------------------------------------

TEST(Rain, ReachesTerminalVelocityAlongTheWind) {
  const Scene scene = scene_from(R"({"type": "rain", "max_particles": 3000,
      "region": {"center": [0, 500, 0], "size": [10, 1000, 10]}})",
                                 R"({"ground": null, "wind": {"velocity": [4, 0, -2]}})");
  Simulation sim(scene, 2);
  sim.advance_to_frame(120);  // 5 s ≈ 6.5 time constants at drag 1.3; the rest decays as e^(-6.5)
  const EmitterStats s = sim.take_stats().emitters[0];
  const double fall = 9.81 / 1.3;
  EXPECT_NEAR(s.mean_velocity.y, -fall, 0.02 * fall);
  EXPECT_NEAR(s.mean_velocity.x, 4, 0.02);
  EXPECT_NEAR(s.mean_velocity.z, -2, 0.02);
  // Direction: the drops slant downwind by atan(|wind| / terminal speed).
  const double slant = std::atan2(std::hypot(s.mean_velocity.x, s.mean_velocity.z), -s.mean_velocity.y);
  EXPECT_NEAR(slant, std::atan2(std::hypot(4.0, 2.0), fall), 0.01);
}

TEST(Rain, SplashesAppearOnlyWhereDropsHitTheGround) {
  const Scene scene = scene_from(R"({"type": "rain", "max_particles": 20000, "recycle": "wrap",
      "region": {"center": [3, 4, -2], "size": [6, 8, 4]},
      "splash": {"count": 4, "speed": 1.5, "size": 0.02, "lifetime": 0.25}})",
                                 R"({"ground": {"height": 0.5}})");
  Simulation sim(scene, 2);
  int64_t thrown = 0;
  for (int f = 1; f <= 48; ++f) {
    sim.advance_to_frame(f);
    const auto stats = sim.take_stats();
    ASSERT_EQ(stats.emitters.size(), 2u);
    EXPECT_EQ(stats.emitters[1].name, "rain0.splash");
    thrown += stats.emitters[1].spawned;
    const ParticlePool* pool = snow(sim).splashes();
    ASSERT_NE(pool, nullptr);
    const auto& d = pool->store();
    // Every live droplet is above the ground, near where the drops land (the box's
    // footprint), and low: at most v²/2g above the ground (v ≤ 1.2 × speed).
    const float apex = 1.8f * 1.8f / (2 * 9.81f);
    for (size_t i = 0; i < d.capacity(); ++i) {
      if (d.age[i] < 0) continue;
      ASSERT_GE(d.py[i], 0.5f);
      ASSERT_LE(d.py[i], 0.5f + apex + 1e-3f);
      ASSERT_NEAR(d.px[i], 3.0f, 3.0f + 0.5f);
      ASSERT_NEAR(d.pz[i], -2.0f, 2.0f + 0.5f);
    }
  }
  EXPECT_GT(thrown, 1000);
  EXPECT_EQ(thrown % 4, 0);  // whole splashes of `count` droplets
}

TEST(Rain, NoSplashesWhenDropsNeverReachTheGround) {
  // The box ends 2 m above the ground: drops wrap at its bottom face and never land.
  const Scene scene = scene_from(R"({"type": "rain", "max_particles": 5000,
      "region": {"center": [0, 7, 0], "size": [6, 10, 6]}, "splash": {}})",
                                 R"({"ground": {"height": 0}})");
  Simulation sim(scene, 2);
  for (int f = 1; f <= 48; ++f) {
    sim.advance_to_frame(f);
    EXPECT_EQ(sim.take_stats().emitters[1].spawned, 0) << f;
  }
}

TEST(Rain, DensityInTheViewStaysUniformDuringA5SecondDrive) {
  const Scene scene = parse_scene_file(FXSIM_SOURCE_DIR "/scenes/rain-drive.json");
  Simulation sim(scene, 2);
  const float aspect = float(scene.output.width) / float(scene.output.height);
  std::vector<double> counts;
  for (int f = 1; f <= scene.output.frames; ++f) {  // 120 frames at 24 fps: 5 s at 15 m/s
    sim.advance_to_frame(f);
    const CameraPose cam = sim.camera();
    const glm::mat4 view_projection = cam.projection(aspect) * cam.view();
    const auto& d = snow(sim).particles();
    size_t in_view = 0;
    for (size_t i = 0; i < snow(sim).live(); ++i) {
      const glm::vec4 c = view_projection * glm::vec4(d.position(i), 1.0f);
      // In the frustum and above the ground (drops below it are hidden and recycled at once).
      in_view += c.w > 0 && std::fabs(c.x) <= c.w && std::fabs(c.y) <= c.w && c.z >= -c.w && c.z <= c.w &&
                 d.py[i] >= 0.0f;
    }
    counts.push_back(double(in_view));
  }
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  double mean = 0;
  for (double c : counts) mean += c;
  mean /= double(counts.size());
  std::printf("drops in view over the drive: min %.0f, max %.0f, mean %.0f: spread %.2f %% of the mean\n", *lo, *hi,
              mean, 100 * (*hi - *lo) / mean);
  EXPECT_GT(mean, 5000);
  EXPECT_LT((*hi - *lo) / mean, 0.04) << "min " << *lo << " max " << *hi << " mean " << mean;
}

TEST(Rain, StreaksAreTheDropsTravelRelativeToTheEye) {
  const Scene scene = scene_from(R"({"type": "rain", "max_particles": 100, "streak": 0.5})",
                                 R"({"ground": null})",
                                 R"({"keys": [{"time": 0, "position": [0, 2, 0], "target": [0, 2, -10]},
                                              {"time": 10, "position": [0, 2, -100], "target": [0, 2, -110]}]})");
  Simulation sim(scene, 1);
  sim.advance_to_frame(48);
  const auto batches = sim.sprites();
  const auto& d = snow(sim).particles();
  const glm::vec3 eye_velocity = sim.camera().velocity;
  EXPECT_NEAR(eye_velocity.z, -10.0f, 0.5f);  // the key spline's speed mid-way
  for (size_t i = 0; i < 100; ++i) {
    const glm::vec3 expected = (d.velocity(i) - eye_velocity) * (0.5f / 24.0f);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(batches[0].sprites[i].stretch[a], expected[a], 1e-5f);
  }
}
