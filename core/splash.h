#pragma once
// Splashes of rain: a drop that reaches the ground throws `count` droplets up
// and outward at about `speed`; they fall back under gravity and vanish within
// `lifetime` (or when they land). Droplets live in a fixed ring of slots: the
// n-th droplet ever thrown takes slot n mod capacity (its spawn index is n), so
// no memory is allocated while the simulation runs and the oldest droplet is
// the one replaced if the ring is ever full.
#include <cstdint>
#include <string>
#include <vector>

#include "core/particle_system.h"
#include "core/particles.h"
#include "core/scene.h"

namespace fxsim {

class SplashPool {
 public:
  SplashPool(const Splash& splash, size_t capacity, uint64_t seed, uint32_t emitter_index);

  // Throws droplets from each hit point (in the given order) at time t.
  void throw_from(const std::vector<glm::vec3>& hits, float ground);
  void step(const StepContext& ctx);
  void clear();

  EmitterStats stats(ThreadPool& pool) const;
  // exposure: seconds of travel drawn, relative to an eye moving at eye_velocity.
  void add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity) const;
  const ParticleStore& particles() const { return store_; }
  uint64_t thrown() const { return thrown_; }
  void reset_counters() { spawned_ = died_ = 0; }
  int64_t spawned() const { return spawned_; }
  int64_t died() const { return died_; }

 private:
  Splash splash_;
  uint64_t seed_;
  uint32_t emitter_index_;
  ParticleStore store_;
  uint64_t thrown_ = 0;  // droplets thrown so far: the next spawn index
  int64_t spawned_ = 0, died_ = 0;
};

}  // namespace fxsim
