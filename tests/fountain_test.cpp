#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/effects/fountain/fountain.h"
#include "core/scene_parser.h"
#include "core/simulation.h"

using namespace fxsim;

namespace {
Scene fountain_scene(const std::string& emitter, const std::string& environment = R"({"ground": {"height": 0}})",
                     const std::string& output = R"({"fps": 24, "frames": 480})") {
  return parse_scene_text(R"({"fxsim": 1, "seed": 4, "output": )" + output + R"(, "environment": )" + environment +
                              R"(, "emitters": [)" + emitter + "]}",
                          "f.json", ".");
}
const FountainSystem& fountain(const Simulation& sim) { return dynamic_cast<const FountainSystem&>(sim.system(0)); }
}  // namespace

TEST(Fountain, ApexIsVSquaredOverTwoG) {
  // Straight up at 10 m/s, no drag, no spread, a point nozzle; 20 substeps per frame.
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 100000, "drag": 0, "mist": null,
      "nozzles": [{"position": [0, 0, 0], "speed": 10, "spread": 0, "radius": 0, "speed_variation": 0, "rate": 4000}]})",
                                     R"({"ground": {"height": -0.001}})", R"({"fps": 24, "substeps": 20, "frames": 96})");
  Simulation sim(scene, 2);
  double apex = 0;
  for (int f = 1; f <= 72; ++f) {
    sim.advance_to_frame(f);
    apex = std::max(apex, sim.take_stats().emitters[0].max.y);
  }
  const double expected = 10.0 * 10.0 / (2 * 9.81);
  EXPECT_NEAR(apex, expected, 0.01 * expected);
  EXPECT_LE(apex, expected * 1.0001);
}

TEST(Fountain, RangeMatchesTheBallisticFormula) {
  // 45° at 8 m/s from the ground, no drag: range v² sin(2θ) / g.
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 100000, "drag": 0, "mist": null,
      "nozzles": [{"position": [0, 0.0001, 0], "direction": [1, 1, 0], "speed": 8, "spread": 0, "radius": 0,
                   "speed_variation": 0, "rate": 4000}]})",
                                     R"({"ground": {"height": 0}})", R"({"fps": 24, "substeps": 20, "frames": 96})");
  Simulation sim(scene, 2);
  double reach = 0;
  for (int f = 1; f <= 72; ++f) {
    sim.advance_to_frame(f);
    reach = std::max(reach, sim.take_stats().emitters[0].max.x);
  }
  const double expected = 8.0 * 8.0 / 9.81;
  EXPECT_NEAR(reach, expected, 0.01 * expected);
}

TEST(Fountain, EmitsExactlyFloorOfRateTimesTime) {
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 1000, "mist": null,
      "nozzles": [{"rate": 7.3}, {"rate": 0.9}, {"rate": 1000.25}]})",
                                     R"({"ground": null})", R"({"fps": 30, "substeps": 3, "frames": 300})");
  Simulation sim(scene, 2);
  int64_t spawned = 0;
  for (int f = 1; f <= 300; ++f) {
    sim.advance_to_frame(f);
    spawned += sim.take_stats().emitters[0].spawned;
    const int64_t steps = int64_t(f) * 3;
    const uint64_t expected = FountainSystem::emitted_by(7.3, steps, 90) + FountainSystem::emitted_by(0.9, steps, 90) +
                              FountainSystem::emitted_by(1000.25, steps, 90);
    ASSERT_EQ(uint64_t(spawned), expected) << f;
    const double t = f / 30.0;
    ASSERT_EQ(expected, uint64_t(std::floor(7.3 * t + 1e-9)) + uint64_t(std::floor(0.9 * t + 1e-9)) +
                            uint64_t(std::floor(1000.25 * t + 1e-9)))
        << f;
  }
  EXPECT_EQ(fountain(sim).emitted(), uint64_t(spawned));
}

TEST(Fountain, TheRingNeverHoldsMoreThanItsCapAndReusesTheOldest) {
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 5000, "mist": null,
      "nozzles": [{"speed": 12, "rate": 20000}]})");
  Simulation sim(scene, 2);
  for (int f = 1; f <= 48; ++f) {
    sim.advance_to_frame(f);
    const EmitterStats s = sim.take_stats().emitters[0];
    ASSERT_LE(s.live, 5000u);
    const ParticleStore& d = fountain(sim).drops();
    const uint64_t emitted = fountain(sim).emitted();
    // The live drops are the newest: spawn indices in [emitted - cap, emitted).
    for (size_t i = 0; i < d.capacity(); ++i) {
      if (d.age[i] < 0) continue;
      ASSERT_GE(d.spawn_index(i) + 5000, emitted);
      ASSERT_LT(d.spawn_index(i), emitted);
    }
    if (f > 10) {
      EXPECT_EQ(s.live, 5000u);  // 20 000 drops a second fill 5 000 slots in a quarter second
    }
  }
}

TEST(Fountain, MistFractionRisesWithSpeedSquared) {
  // Drops fly straight (no gravity, no drag) so every drop-second is the same;
  // conversions per drop-second must be probability × (speed / 8)².
  std::vector<double> per_drop_second;
  for (float speed : {4.0f, 8.0f, 12.0f}) {
    const Scene scene = fountain_scene(
        R"({"type": "fountain", "max_particles": 200000, "drag": 0, "gravity_scale": 0,
            "mist": {"probability": 0.4, "lifetime": 0.5},
            "nozzles": [{"position": [0, 1, 0], "direction": [1, 0, 0], "speed": )" + std::to_string(speed) +
            R"(, "rate": 20000}]})",
        R"({"ground": null})");
    Simulation sim(scene, 2);
    double drop_seconds = 0, conversions = 0;
    for (int f = 1; f <= 72; ++f) {
      sim.advance_to_frame(f);
      const auto stats = sim.take_stats();
      drop_seconds += double(stats.emitters[0].live) / 24.0;
      conversions += double(stats.emitters[1].spawned);
    }
    per_drop_second.push_back(conversions / drop_seconds);
    EXPECT_NEAR(per_drop_second.back(), 0.4 * (speed / 8) * (speed / 8), 0.04 * 0.4 * (speed / 8) * (speed / 8));
  }
  EXPECT_NEAR(per_drop_second[2] / per_drop_second[0], 9.0, 0.5);
}

TEST(Fountain, MistDriftsDownwind) {
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 50000,
      "mist": {"probability": 1.0, "lifetime": 3},
      "nozzles": [{"position": [0, 0.2, 0], "speed": 9, "rate": 5000}]})",
                                     R"({"ground": {"height": 0}, "wind": {"velocity": [4, 0, 0]}})");
  Simulation sim(scene, 2);
  double previous = -1;
  for (int f = 24; f <= 96; f += 24) {
    sim.advance_to_frame(f);
    const auto stats = sim.take_stats();
    ASSERT_EQ(stats.emitters[1].name, "fountain0.mist");
    const double x = stats.emitters[1].mean_position.x;
    EXPECT_GT(x, previous);
    EXPECT_GT(stats.emitters[1].mean_velocity.x, 1.0);  // the mist has taken on much of the wind
    previous = x;
  }
  EXPECT_GT(previous, 2.0);
  EXPECT_LT(std::fabs(sim.take_stats().emitters[0].mean_position.x), previous);
}

TEST(Fountain, DropsDieBelowTheGroundOrAfterTenSeconds) {
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 100000, "mist": null, "gravity_scale": 0,
      "drag": 0, "nozzles": [{"position": [0, 1, 0], "speed": 1, "rate": 100}]})",
                                     R"({"ground": {"height": 0}})", R"({"fps": 24, "frames": 400})");
  Simulation sim(scene, 1);
  sim.advance_to_frame(360);  // 15 s: the oldest drops are 10 s old
  const EmitterStats s = sim.take_stats().emitters[0];
  EXPECT_NEAR(double(s.live), 1000.0, 2.0);  // 100 a second, each lives 10 s
  const ParticleStore& d = fountain(sim).drops();
  for (size_t i = 0; i < d.capacity(); ++i)
    if (d.age[i] >= 0) {
      EXPECT_LE(d.age[i], FountainSystem::kDropLifetime);
    }
}

TEST(Fountain, RingShorthandPlacesTiltedNozzles) {
  const Scene scene = fountain_scene(R"({"type": "fountain",
      "ring": {"count": 4, "radius": 2, "center": [1, 0.5, 0], "tilt": 30, "speed": 6, "rate": 10}})");
  const auto& nozzles = scene.emitters[0].as<FountainParams>().nozzles;
  ASSERT_EQ(nozzles.size(), 4u);
  EXPECT_NEAR(nozzles[0].position.x, 3.0f, 1e-5f);
  EXPECT_NEAR(nozzles[1].position.z, 2.0f, 1e-5f);
  EXPECT_NEAR(nozzles[0].direction.x, 0.5f, 1e-5f);  // tilted outward by 30°
  EXPECT_NEAR(nozzles[0].direction.y, std::sqrt(3.0f) / 2, 1e-5f);
  EXPECT_EQ(nozzles[2].speed, 6.0f);
}

TEST(Fountain, ResultsDoNotDependOnTheThreadCount) {
  const Scene scene = fountain_scene(R"({"type": "fountain", "max_particles": 30000,
      "nozzles": [{"speed": 9, "rate": 20000}, {"position": [1, 0, 0], "direction": [0.3, 1, 0], "rate": 9000}]})",
                                     R"({"ground": {"height": 0}, "wind": {"velocity": [2, 0, 0],
                                         "turbulence": {"strength": 1, "scale": 1}}})");
  std::vector<uint64_t> hashes;
  for (int threads : {1, 2, 4}) {
    Simulation sim(scene, threads);
    sim.advance_to_frame(40);
    hashes.push_back(sim.state_hash());
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0], hashes[2]);
}
