#pragma once
// The shared particle physics, dv/dt = g·s + drag·(wind − v), integrated exactly
// over one step for the wind sampled at the start of the step
// (docs/scene-format.md, "Physics shared by the particle emitters").
#include <cmath>

#include <glm/vec3.hpp>

namespace fxsim {

struct MotionStep {
  glm::vec3 position;
  glm::vec3 velocity;
};

inline MotionStep integrate_drag(glm::vec3 p, glm::vec3 v, glm::vec3 wind, glm::vec3 gravity, float drag, float dt) {
  if (drag <= 0.0f) {
    return {p + v * dt + gravity * (0.5f * dt * dt), v + gravity * dt};
  }
  // u is the velocity the particle relaxes to; (1 - e)/drag via expm1 stays
  // accurate for small drag·dt, and the form is stable for any large drag.
  const glm::vec3 u = wind + gravity / drag;
  const float one_minus_e = -std::expm1(-drag * dt);
  const float e = 1.0f - one_minus_e;
  return {p + u * dt + (v - u) * (one_minus_e / drag), u + (v - u) * e};
}

}  // namespace fxsim
