#pragma once
// The air's velocity field: wind(p, t) = velocity + gust(t) + turbulence(p, t).
// gust: smooth seeded value noise in time per axis, scaled by its amplitude.
// turbulence: the curl of a vector potential of gradient noise (divergence-
// free: the air neither piles up nor thins out), in seeded time slices that
// blend into one another while the pattern slowly evolves; each slice is
// sampled on a periodic grid and read trilinearly (core/turbulence_grid.h).
#include <cstdint>
#include <memory>

#include <glm/vec3.hpp>

#include "core/scene.h"
#include "core/turbulence_grid.h"

namespace fxsim {

class WindField {
 public:
  WindField(const WindSettings& settings, uint64_t scene_seed);

  glm::vec3 gust(double t) const;
  // The turbulence at time t (nullptr without turbulence). Fields are built on
  // first use and kept for the next calls at the same time; safe to call from
  // several threads. A loop over particles takes the field once. `threads`
  // (when the caller is not one of them) build a new field's slices; its rows
  // are blended by the threads that read them.
  std::shared_ptr<const TurbulenceField> turbulence_field(double t, ThreadPool* threads = nullptr) const;
  // What the field at time t is made of (for a GPU to blend it itself): the
  // grids of the two slices it lies between and TurbulenceField's blend and gain.
  struct TurbulenceMoment {
    std::shared_ptr<const std::vector<float>> from, to;
    float blend = 0, gain = 0;
  };
  TurbulenceMoment turbulence_moment(double t, ThreadPool* threads = nullptr) const;
  glm::vec3 turbulence(glm::vec3 p, double t) const;
  glm::vec3 at(glm::vec3 p, double t) const { return steady_ + gust(t) + turbulence(p, t); }

  // The wind at one moment, for many points: at(p, t)'s bits, with the gust
  // and the field's look-up (a lock on the shared cache) done once, not at
  // every point (births, a few per cent of the particles each step, spent
  // more time in them than the step's turbulence).
  class Moment {
   public:
    glm::vec3 at(glm::vec3 p) const { return uniform_ + (field_ ? field_->at(p) : glm::vec3(0)); }

   private:
    friend class WindField;
    glm::vec3 uniform_{0};
    std::shared_ptr<const TurbulenceField> field_;
  };
  Moment moment(double t, ThreadPool* threads = nullptr) const;

  // Everything that does not depend on position, for the caller to hoist out of
  // the per-particle loop: at(p, t) == uniform_part(t) + turbulence(p, t).
  glm::vec3 uniform_part(double t) const { return steady_ + gust(t); }
  bool has_turbulence() const { return turbulence_strength_ > 0; }

  float turbulence_strength() const { return turbulence_strength_; }
  float turbulence_scale() const { return turbulence_scale_; }

 private:
  struct TurbulenceCache;
  std::shared_ptr<const std::vector<float>> slice_grid(TurbulenceCache& cache, int64_t slice,
                                                       ThreadPool* threads) const;
  TurbulenceMoment moment_locked(double t, ThreadPool* threads) const;  // with the cache's mutex held

  glm::vec3 steady_;
  glm::vec3 gust_amplitude_{0};
  double gust_period_ = 1;
  uint32_t gust_seed_;
  float turbulence_strength_ = 0;
  float turbulence_scale_ = 1;
  double turbulence_period_ = 1;
  uint32_t turbulence_seed_;
  std::shared_ptr<TurbulenceCache> cache_;  // shared by copies: the fields are pure functions of the settings
};

}  // namespace fxsim
