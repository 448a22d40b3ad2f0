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
