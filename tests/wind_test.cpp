#include <gtest/gtest.h>

#include <cmath>
#include <glm/geometric.hpp>

#include "core/noise.h"
#include "core/rng.h"
#include "core/wind.h"

using namespace fxsim;

namespace {
WindSettings turbulent(float strength, float scale) {
  WindSettings w;
  w.turbulence = Turbulence{strength, scale};
  return w;
}
}  // namespace

TEST(Wind, TurbulenceIsDivergenceFree) {
  const WindField wind(turbulent(2.0f, 3.0f), 11);
  const float h = 1e-2f;
  double worst = 0, typical_gradient = 0;
  for (int i = 0; i < 500; ++i) {
    RandomDraws r(1, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 20, r.signed_unit(1) * 20, r.signed_unit(2) * 20};
    const double t = r.unit(3) * 30;
    auto d = [&](int axis) {
      glm::vec3 dp(0);
      dp[axis] = h;
      return (wind.turbulence(p + dp, t)[axis] - wind.turbulence(p - dp, t)[axis]) / (2 * h);
    };
    const double div = d(0) + d(1) + d(2);
    worst = std::max(worst, std::fabs(div));
    typical_gradient += std::fabs(d(0));
  }
  typical_gradient /= 500;
  // Central differences carry O(h²) truncation and float rounding; the field's own
  // derivatives are about strength/scale ≈ 0.7 per second.
  EXPECT_GT(typical_gradient, 0.1);
  EXPECT_LT(worst, 0.01);
}

TEST(Wind, TurbulenceHasItsStrength) {
  const WindField wind(turbulent(1.5f, 2.0f), 5);
  double sum2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    RandomDraws r(2, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 50, r.signed_unit(1) * 50, r.signed_unit(2) * 50};
    const glm::vec3 v = wind.turbulence(p, 0.0);
    sum2 += glm::dot(v, v);
  }
  EXPECT_NEAR(std::sqrt(sum2 / n), 1.5, 0.3);
}

TEST(Wind, TurbulenceEvolvesSmoothlyInTime) {
  const WindField wind(turbulent(1.0f, 1.0f), 5);
  const glm::vec3 p{1.3f, 0.2f, -4.1f};
  glm::vec3 previous = wind.turbulence(p, 0);
  for (double t = 0.01; t < 10; t += 0.01) {
    const glm::vec3 v = wind.turbulence(p, t);
    EXPECT_LT(glm::distance(v, previous), 0.05f) << t;
    previous = v;
  }
  EXPECT_GT(glm::distance(wind.turbulence(p, 0), wind.turbulence(p, 10)), 0.01f);
}

TEST(Wind, GustStaysWithinItsAmplitudeAndVaries) {
  WindSettings settings;
  settings.velocity = {1, 0, 0};
  settings.gust = Gust{{2, 0.5f, 1}, 3};
  const WindField wind(settings, 9);
  float lo = 1e9f, hi = -1e9f;
  glm::vec3 previous = wind.gust(0);
  for (double t = 0; t < 120; t += 0.05) {
    const glm::vec3 g = wind.gust(t);
    ASSERT_LE(std::fabs(g.x), 2.0f);
    ASSERT_LE(std::fabs(g.y), 0.5f);
    ASSERT_LE(std::fabs(g.z), 1.0f);
    EXPECT_LT(glm::distance(g, previous), 0.2f);  // smooth: no jumps
    lo = std::min(lo, g.x);
    hi = std::max(hi, g.x);
    previous = g;
    EXPECT_EQ(wind.at(glm::vec3(5, 1, 2), t), glm::vec3(1, 0, 0) + g);
  }
  EXPECT_LT(lo, -1.0f);
  EXPECT_GT(hi, 1.0f);
}

TEST(Wind, GradientNoiseGradientMatchesFiniteDifferences) {
  for (int i = 0; i < 200; ++i) {
    RandomDraws r(4, 0, Stream::birth, uint64_t(i));
    const glm::vec3 p{r.signed_unit(0) * 9, r.signed_unit(1) * 9, r.signed_unit(2) * 9};
    const NoiseSample s = gradient_noise_3d(77, p);
    const float h = 1e-3f;
    for (int a = 0; a < 3; ++a) {
      glm::vec3 dp(0);
      dp[a] = h;
      const float fd = (gradient_noise_3d(77, p + dp).value - gradient_noise_3d(77, p - dp).value) / (2 * h);
      EXPECT_NEAR(s.gradient[a], fd, 2e-2f);
    }
  }
}
