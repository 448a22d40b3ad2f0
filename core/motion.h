#pragma once
// The shared particle physics, dv/dt = g·s + drag·(wind − v), integrated exactly
// over one step for the wind sampled at the start of the step
// (docs/scene-format.md, "Physics shared by the particle emitters").
#include <cmath>
#include <cstddef>

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
  // The same step for particles [begin, end) of position and velocity arrays
  // (x, y, z each) in one wind, as straight loops the compiler vectorises:
  // per component the same operations in the same order as operator(), so
  // bit for bit its results (fxsim builds without fused multiply-add). With
  // `age`, only particles of age 0 or more move (empty slots keep their
  // values: state hashes cover them).
  void apply(float* const p[3], float* const v[3], size_t begin, size_t end, glm::vec3 wind,
             const float* age = nullptr) const {
    apply_each(p, v, begin, end, age, [relaxed = wind + fall_](int c) {
      return [u = relaxed[c]](size_t) { return u; };
    });
  }
  // The same in a wind with a part of its own at each particle (turbulence):
  // particle i's wind is wind + (air[0][k], air[1][k], air[2][k]), k = i − begin.
  void apply(float* const p[3], float* const v[3], size_t begin, size_t end, glm::vec3 wind,
             const float* const air[3], const float* age = nullptr) const {
    apply_each(p, v, begin, end, age, [wind, fall = fall_, air, begin](int c) {
      return [w = wind[c], a = air[c], f = fall[c], begin](size_t i) { return (w + a[i - begin]) + f; };
    });
  }

 private:
  // `relaxed_to(c)(i)`: component c of the velocity particle i relaxes to (wind + fall).
  // The coefficients are copied into locals and the arrays marked unaliased
  // (a position array is never a velocity array): otherwise the compiler must
  // reload the members after every store and keeps the loop scalar (rain,
  // 2 M drops, 1 thread: 10.1 ms a step); so is a vector's component picked
  // by a loop variable, hence a function of each component.
  template <class RelaxedTo>
  void apply_each(float* const p[3], float* const v[3], size_t begin, size_t end, const float* age,
                  RelaxedTo relaxed_to) const {
    const float dt = dt_, relax = relax_, e = e_;
    const bool no_drag = drag_ <= 0.0f;  // (as operator(): not drag_ > 0, which a NaN would turn)
    for (int c = 0; c < 3; ++c) {
      float* __restrict const pc = p[c];
      float* __restrict const vc = v[c];
      const float fall = gravity_[c] * (0.5f * dt * dt), gain = gravity_[c] * dt;
      const auto relaxed = relaxed_to(c);
      for (size_t i = begin; i < end; ++i) {
        const float p0 = pc[i], v0 = vc[i];
        const float u = relaxed(i);
        float p1, v1;
        if (no_drag) {
          p1 = p0 + v0 * dt + fall;
          v1 = v0 + gain;
        } else {
          const float away = v0 - u;
          p1 = p0 + u * dt + away * relax;
          v1 = u + away * e;
        }
        const bool moves = !age || age[i] >= 0.0f;
        pc[i] = moves ? p1 : p0;
        vc[i] = moves ? v1 : v0;
      }
    }
  }

  glm::vec3 gravity_;
  float drag_, dt_;
  float one_minus_e_ = 0, e_ = 1, relax_ = 0;
  glm::vec3 fall_{0};
};

inline MotionStep integrate_drag(glm::vec3 p, glm::vec3 v, glm::vec3 wind, glm::vec3 gravity, float drag, float dt) {
  return DragStep(gravity, drag, dt)(p, v, wind);
}

}  // namespace fxsim
