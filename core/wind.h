#pragma once
// The air's velocity field: wind(p, t) = velocity + gust(t) + turbulence(p, t).
// gust: smooth seeded value noise in time per axis, scaled by its amplitude.
// turbulence: the curl of a vector potential of gradient noise, so it is
// divergence-free (the air neither piles up nor thins out); the potential
// blends between seeded time slices, which keeps the curl divergence-free
// while the pattern slowly evolves.
#include <cstdint>

#include <glm/vec3.hpp>

#include "core/scene.h"

namespace fxsim {

class WindField {
 public:
  WindField(const WindSettings& settings, uint64_t scene_seed);

  glm::vec3 gust(double t) const;
  glm::vec3 turbulence(glm::vec3 p, double t) const;
  glm::vec3 at(glm::vec3 p, double t) const { return steady_ + gust(t) + turbulence(p, t); }

  // Everything that does not depend on position, for the caller to hoist out of
  // the per-particle loop: at(p, t) == uniform_part(t) + turbulence(p, t).
  glm::vec3 uniform_part(double t) const { return steady_ + gust(t); }
  bool has_turbulence() const { return turbulence_strength_ > 0; }

  // For a GPU kernel: the parameters, and the slice and raw blend at time t.
  float turbulence_strength() const { return turbulence_strength_; }
  float turbulence_scale() const { return turbulence_scale_; }
  uint32_t turbulence_seed() const { return turbulence_seed_; }
  void turbulence_slice(double t, int64_t& slice, float& blend) const;

 private:
  glm::vec3 curl_at_slice(glm::vec3 q, int64_t slice) const;

  glm::vec3 steady_;
  glm::vec3 gust_amplitude_{0};
  double gust_period_ = 1;
  uint32_t gust_seed_;
  float turbulence_strength_ = 0;
  float turbulence_scale_ = 1;
  double turbulence_period_ = 1;
  uint32_t turbulence_seed_;
};

}  // namespace fxsim
