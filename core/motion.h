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

// The coefficients of one step depend only on drag, gravity and dt: compute
// them once per emitter and step, then apply them to every particle.
class DragStep {
 public:
  DragStep(glm::vec3 gravity, float drag, float dt) : gravity_(gravity), drag_(drag), dt_(dt) {
    if (drag > 0) {
      // (1 - e)/drag via expm1 stays accurate for small drag·dt, and the form
      // is stable for any large drag.
      one_minus_e_ = -std::expm1(-drag * dt);
      e_ = 1.0f - one_minus_e_;
      relax_ = one_minus_e_ / drag;
      fall_ = gravity / drag;
    }
  }

  // The per-step coefficients, for a GPU kernel that must use the same bits.
  float e() const { return e_; }
  float relax() const { return relax_; }
  glm::vec3 fall() const { return fall_; }

  MotionStep operator()(glm::vec3 p, glm::vec3 v, glm::vec3 wind) const {
    if (drag_ <= 0.0f) return {p + v * dt_ + gravity_ * (0.5f * dt_ * dt_), v + gravity_ * dt_};
    const glm::vec3 u = wind + fall_;  // the velocity the particle relaxes to
    return {p + u * dt_ + (v - u) * relax_, u + (v - u) * e_};
  }

 private:
  glm::vec3 gravity_;
  float drag_, dt_;
  float one_minus_e_ = 0, e_ = 1, relax_ = 0;
  glm::vec3 fall_{0};
};

inline MotionStep integrate_drag(glm::vec3 p, glm::vec3 v, glm::vec3 wind, glm::vec3 gravity, float drag, float dt) {
  return DragStep(gravity, drag, dt)(p, v, wind);
}

}  // namespace fxsim
