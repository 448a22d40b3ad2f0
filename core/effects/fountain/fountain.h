#pragma once
// Fountains (paper 003, 基于GPU的喷泉模拟, sections 3–4).
//
// Drops are shot from nozzles: each has a position, a direction, an exit speed
// (its pressure), a cone of spread and a jet thickness. They fly under gravity,
// air resistance and wind (the shared physics, core/motion.h) and die below the
// ground or after 10 s. New drops reuse the slots of old ones: the n-th drop
// ever emitted takes slot n mod max_particles (a ring, oldest reused first), so
// nothing is allocated while running. A nozzle of rate r has emitted exactly
// floor(r·t) drops by time t; each drop is born at its own instant inside the
// step and stepped from there, so jets are smooth at any frame rate. Each step
// a drop turns into mist with chance probability·(speed/8)²·dt; mist is light,
// takes on the wind quickly, grows, fades, and is drawn with a soft noise
// texture (a ParticlePool reported as "<name>.mist"). Drop slot i turns into
// mist slot i, so mist needs no ordering between drops.
#include <optional>
#include <vector>

#include "core/particle_pool.h"
#include "core/previous_positions.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/scene.h"

namespace fxsim {

// A stretch of consecutive drops from one nozzle within one step.
struct Burst {
  uint32_t nozzle;
  uint64_t first_of_nozzle;  // index j of the nozzle's first drop in the burst
  uint64_t first_spawn;      // spawn index of that drop
  uint64_t count;
};

// Two unit vectors perpendicular to d and to each other: the axes of a nozzle's
// cone and disc.
void perpendiculars(glm::vec3 d, glm::vec3& a, glm::vec3& b);

// The drops each nozzle emits during step `steps_done` of the fountain (whose
// drops so far number `emitted`), in spawn order: decided on the CPU for both
// backends.
std::vector<Burst> plan_emission(const std::vector<Nozzle>& nozzles, int64_t steps_done, double steps_per_second,
                                 uint64_t emitted);

class FountainSystem : public ParticleSystem {
 public:
  static constexpr float kDropLifetime = 10;  // seconds
  static constexpr float kMistGravityScale = 0.1f;
  // Drops move and die as short-lived particles do: a 10 s life, death below the ground.
  static PoolRules drop_rules(const FountainParams& fountain) {
    return {kDropLifetime, fountain.drag, fountain.gravity_scale, true, 0, 0};
  }

  FountainSystem(const EmitterSettings& settings, size_t emitter_index, const WindField& wind,
                 const OutputSettings& output, ThreadPool& threads);

  FXSIM_PARTICLE_SYSTEM_OVERRIDES

  const ParticleStore& drops() const { return store_; }
  const ParticlePool* mist() const { return mist_ ? &*mist_ : nullptr; }
  uint64_t emitted() const { return emitted_; }
  // A drop's chance of turning into mist during one step of dt seconds:
  // probability × (speed / 8)² × dt, 0 without mist (paper 003's rule; both backends).
  static float mist_chance(const FountainParams& fountain, const Nozzle& nozzle, float dt);
  // Refuses a loaded state (both backends) in which a slot that is not empty
  // (its age not below 0: NaN too) names a nozzle past the last: the step
  // reads each live drop's nozzle.
  static void check_sources(const ParticleStore& drops, size_t nozzles, StateReader& in);
  // Drops nozzle k has emitted by `seconds` after the start: floor(rate × seconds).
  static uint64_t emitted_by(double rate, int64_t steps, double steps_per_second);

 private:
  void emit(const StepContext& ctx);
  // Drop i becomes the mist of slot i; returns whether older mist there was replaced.
  bool turn_into_mist(size_t i);

  const EmitterSettings& settings_;
  const FountainParams& fountain_;
  uint32_t emitter_index_;
  const WindField& wind_;
  ThreadPool& threads_;
  double steps_per_second_;     // fps × substeps
  float exposure_;               // drops are stretched along half a frame of travel
  ParticleStore store_;
  PreviousPositions previous_;  // the motion layer's previous frame
  int64_t first_step_ = 0;       // the step at which the fountain started
  uint64_t emitted_ = 0;         // drops emitted so far: the next spawn index
  int64_t spawned_ = 0, died_ = 0;
  std::optional<ParticlePool> mist_;
};

}  // namespace fxsim
