// Distance fog's transmittance: e^(-density × distance) in uniform fog, and
// the closed form along a slanted path through fog thinning with height
// equals the integral taken numerically.
#include <gtest/gtest.h>

#include <cmath>

#include <glm/geometric.hpp>

#include "core/fog.h"

using namespace fxsim;

TEST(Fog, UniformFogIsExponentialInDistance) {
  Fog fog;
  fog.density = 0.1f;
  EXPECT_NEAR(fog_transmittance(fog, {0, 2, 10}, {0, 2, 0}), std::exp(-1.0f), 1e-6f);
  EXPECT_NEAR(fog_transmittance(fog, {0, 2, 10}, {3, 6, 10}), std::exp(-0.5f), 1e-6f);
  EXPECT_FLOAT_EQ(fog_transmittance(fog, {1, 1, 1}, {1, 1, 1}), 1.0f);
}

TEST(Fog, HeightFalloffMatchesTheIntegralAlongThePath) {
  Fog fog;
  fog.density = 0.2f;
  fog.height_falloff = 0.3f;
  fog.base = 1;
  for (const auto& [eye, point] : {std::pair{glm::vec3(0, 2, 0), glm::vec3(0, 12, 30)},
                                   std::pair{glm::vec3(0, 8, 0), glm::vec3(5, 0, 20)},
                                   std::pair{glm::vec3(0, 3, 0), glm::vec3(0, 3, 40)}}) {
    double depth = 0;
    constexpr int kSteps = 100000;
    const double length = glm::length(point - eye);
    for (int i = 0; i < kSteps; ++i) {
      const double h = eye.y + (point.y - eye.y) * (i + 0.5) / kSteps;
      depth += fog.density * std::exp(-fog.height_falloff * (h - fog.base)) * length / kSteps;
    }
    EXPECT_NEAR(fog_transmittance(fog, eye, point), std::exp(-depth), 1e-5) << point.y;
  }
}

TEST(Fog, FarFromTheBaseItIsStillANumber) {
  // A camera 100 m over a fog of falloff 1 looking down: e^(-100) underflowed
  // to 0 and the rise's term overflowed, 0 × ∞: NaN, and a black frame that
  // exited 0. Now the integral in logarithms, where it can be a float at all.
  Fog fog;
  fog.density = 0.02f;
  fog.height_falloff = 1;
  const auto integral = [&](glm::vec3 eye, glm::vec3 point) {
    long double depth = 0;
    constexpr int kSteps = 200000;
    const long double length = glm::length(point - eye);
    for (int i = 0; i < kSteps; ++i) {
      const long double h = eye.y + (point.y - eye.y) * (i + 0.5L) / kSteps;
      depth += fog.density * std::exp(-fog.height_falloff * (h - fog.base)) * length / kSteps;
    }
    return double(std::exp(-depth));
  };
  for (const auto& [eye, point] : {std::pair{glm::vec3(0, 100, 10), glm::vec3(0, 0, 0)},     // down through it
                                   std::pair{glm::vec3(0, 100, 10), glm::vec3(0, 99, 0)},    // high up: clear
                                   std::pair{glm::vec3(0, -20, 0), glm::vec3(0, -25, 40)},   // deep below the base
                                   std::pair{glm::vec3(0, -95, 0), glm::vec3(0, -90, 3)}}) { // dense: black
    const float t = fog_transmittance(fog, eye, point);
    EXPECT_TRUE(std::isfinite(t)) << eye.y << " " << point.y;
    EXPECT_NEAR(t, integral(eye, point), 1e-4) << eye.y << " " << point.y;
  }
  // No fog (density 0) with any falloff is no fog: it was 0 × ∞ too.
  fog.density = 0;
  fog.height_falloff = 10;
  fog.base = 20;
  EXPECT_EQ(fog_transmittance(fog, {0, 2, 10}, {0, 0, 0}), 1.0f);
}
