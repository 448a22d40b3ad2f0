#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/motion.h"

using namespace fxsim;

TEST(IntegrateDrag, WithoutDragIsExactlyBallistic) {
  const glm::vec3 g{0, -9.81f, 0};
  glm::vec3 p{0}, v{3, 10, 0};
  const float dt = 1.0f / 24;
  for (int i = 0; i < 24; ++i) {
    const MotionStep s = integrate_drag(p, v, glm::vec3(0), g, 0.0f, dt);
    p = s.position;
    v = s.velocity;
  }
  // After 1 s: x = 3, y = 10 - 9.81/2.
  EXPECT_NEAR(p.x, 3.0f, 1e-4f);
  EXPECT_NEAR(p.y, 10.0f - 4.905f, 1e-4f);
  EXPECT_NEAR(v.y, 10.0f - 9.81f, 1e-4f);
}

TEST(IntegrateDrag, MatchesTheClosedFormAtAnyStepSize) {
  // dv/dt = g + k (w - v): v(t) = u + (v0 - u) e^{-kt}, u = w + g/k.
  const glm::vec3 g{0, -9.81f, 0}, w{2, 0, -1}, v0{0, 5, 0};
  const float k = 3;
  const glm::vec3 u = w + g / k;
  const float t = 0.75f;
  const glm::vec3 v_exact = u + (v0 - u) * std::exp(-k * t);
  const glm::vec3 p_exact = u * t + (v0 - u) * (1 - std::exp(-k * t)) / k;
  for (int steps : {1, 3, 18, 90}) {
    glm::vec3 p{0}, v = v0;
    for (int i = 0; i < steps; ++i) {
      const MotionStep s = integrate_drag(p, v, w, g, k, t / float(steps));
      p = s.position;
      v = s.velocity;
    }
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(v[a], v_exact[a], 2e-5f) << steps;
      EXPECT_NEAR(p[a], p_exact[a], 2e-5f) << steps;
    }
  }
}

TEST(IntegrateDrag, HugeDragIsStable) {
  const MotionStep s = integrate_drag(glm::vec3(0), glm::vec3(100, 0, 0), glm::vec3(1, 0, 0), glm::vec3(0, -9.81f, 0),
                                      1e6f, 0.1f);
  EXPECT_TRUE(std::isfinite(s.position.x));
  EXPECT_NEAR(s.velocity.x, 1.0f, 1e-4f);
}

// DragStep::apply, the vectorised form the CPU steps use, gives bit for bit
// what operator() gives one particle at a time (the state hashes rely on it),
// with and without drag, in one wind and with a part of its own at each
// particle (turbulence), and leaves empty slots (negative age) untouched.
TEST(DragStep, ApplyOverArraysIsBitForBitTheOneParticleStep) {
  constexpr size_t n = 1031;  // not a multiple of any vector width
  std::vector<float> p[3], v[3], air[3], age(n);
  uint32_t state = 12345;
  const auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return float(state >> 8) / float(1 << 24) * 20.0f - 10.0f;
  };
  for (int c = 0; c < 3; ++c) {
    p[c].resize(n);
    v[c].resize(n);
    air[c].resize(n);
  }
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) p[c][i] = next(), v[c][i] = next(), air[c][i] = next() * 0.1f;
    age[i] = i % 7 == 0 ? -1.0f : 0.5f;
  }
  const glm::vec3 wind{2.5f, -0.3f, 1.1f}, gravity{0, -9.81f, 0};
  const float* const airs[3] = {air[0].data() + 5, air[1].data() + 5, air[2].data() + 5};  // for particles from 5 on
  for (const float drag : {0.0f, 0.37f, 3.0f})
    for (const bool masked : {false, true})
      for (const bool turbulent : {false, true}) {
        const DragStep step(gravity, drag, 1.0f / 48);
        std::vector<float> q[3] = {p[0], p[1], p[2]}, u[3] = {v[0], v[1], v[2]};
        float* const qp[3] = {q[0].data(), q[1].data(), q[2].data()};
        float* const up[3] = {u[0].data(), u[1].data(), u[2].data()};
        const size_t first = turbulent ? 5 : 0;
        if (turbulent) step.apply(qp, up, first, n, wind, airs, masked ? age.data() : nullptr);
        else step.apply(qp, up, first, n, wind, masked ? age.data() : nullptr);
        for (size_t i = first; i < n; ++i) {
          const glm::vec3 p0{p[0][i], p[1][i], p[2][i]}, v0{v[0][i], v[1][i], v[2][i]};
          const bool moves = !masked || age[i] >= 0;
          const glm::vec3 here = turbulent ? wind + glm::vec3(air[0][i], air[1][i], air[2][i]) : wind;
          const MotionStep one = moves ? step(p0, v0, here) : MotionStep{p0, v0};
          for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(std::memcmp(&q[c][i], &one.position[c], 4), 0) << drag << " " << i << " " << c;
            ASSERT_EQ(std::memcmp(&u[c][i], &one.velocity[c], 4), 0) << drag << " " << i << " " << c;
          }
        }
      }
}
