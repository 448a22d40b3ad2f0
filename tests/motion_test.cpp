#include <gtest/gtest.h>

#include <cmath>

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
