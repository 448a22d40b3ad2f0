#pragma once
// Short-lived secondary particles (rain splashes, fountain mist, later sparks)
// in a fixed ring of slots: the n-th particle ever added takes slot
// n mod capacity, so its spawn index is n, nothing is allocated while the
// simulation runs, and when the ring is full the oldest particle is the one
// replaced. A slot with age < 0 is empty. Each particle flies under the
// shared physics with the pool's drag and gravity scale, and dies when its
// lifetime is over (or when it lands, if the pool says so).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "core/motion.h"
#include "core/particle_system.h"
#include "core/particles.h"
#include "core/previous_positions.h"
#include "core/stats.h"
#include "core/turbulence_grid.h"

namespace fxsim {

class WindField;

struct PoolRules {
  float lifetime = 1;       // seconds
  float drag = 0;           // 1/s, towards the wind
  float gravity_scale = 1;
  bool dies_on_landing = true;
  float grown_size = 0;     // > 0: the drawn size grows from the birth size towards this
  float fade_in = 0;        // seconds over which the alpha rises at birth
};

// One step of one short-lived particle: the drag step in the wind, ageing, and
// death past its lifetime or below the ground. Shared by the pool and by the
// fountain's drops (render/gpu_kernels.cpp has its GLSL twin).
class AgingStep {
 public:
  enum Result { empty = 0, died = 1, lives = 2 };  // (run() computes them as numbers)
  // `threads` build the turbulence field's slices if this step is their first use (the caller is not one of
  // them); the field's rows are blended by the threads that read them.
  AgingStep(const StepContext& ctx, const WindField& wind, const PoolRules& rules, ThreadPool* threads = nullptr);
  Result operator()(ParticleStore& store, size_t i) const;
  // The same for slots [begin, end), results[k] for slot begin + k: in a
  // steady wind as loops the compiler vectorises (the same results bit for bit).
  void run(ParticleStore& store, size_t begin, size_t end, Result* results) const;

 private:
  const StepContext& ctx_;
  std::shared_ptr<const TurbulenceField> turbulence_;  // at the step's start; null when it plays no part
  DragStep motion_;
  glm::vec3 uniform_wind_;
  float lifetime_, ground_;
};

// The CPU pool. Another backend overrides the virtual members (the GPU keeps
// the state and uses store() only to receive the births the CPU decides).
class ParticlePool {
 public:
  ParticlePool(const PoolRules& rules, size_t capacity, ThreadPool& threads);
  virtual ~ParticlePool() = default;

  // Takes the next slot for a new particle (reusing the oldest when full) and
  // returns it with age 0 and its generation set; the caller fills the rest
  // of that slot in store().
  virtual size_t add();
  // Starts a particle in a given slot (secondaries that belong to one parent
  // particle's slots: splashes, mist), safe to call from parallel chunks for
  // distinct slots. Returns whether a live particle was replaced; the caller
  // reports births and deaths through count().
  bool place(size_t slot);
  void count(int64_t spawned, int64_t died) { spawned_ += spawned, died_ += died; }
  // Counts `n` births that later births of the same step replace before
  // anything sees them (more in a step than the ring holds), born and dead,
  // and moves the ring on past them: the same state and counts as n add()s
  // then every slot's add(), without making them one by one.
  void skip(uint64_t n) { added_ += n, spawned_ += int64_t(n), died_ += int64_t(n); }
  uint64_t next_spawn_index() const { return added_; }

  virtual void step(const StepContext& ctx, const WindField& wind);
  virtual void clear();  // every particle dies

  // Statistics of the live particles, with births and deaths since reset_counters().
  virtual EmitterStats stats();
  // Sprites for the live particles, in slot order: alpha fades over the life,
  // the size grows as the rules say, and the quad stretches along the travel
  // during `exposure` seconds relative to the eye (0: round).
  virtual void add_sprites(SpriteBatch& batch, float exposure, glm::vec3 eye_velocity);
  // Remembers every particle's position for the next add_sprites (the motion
  // layer's previous frame); forget() drops it (the effect has just begun).
  virtual void remember_positions();
  virtual void forget_positions() { previous_.forget(); }
  // The pool's state for checkpoints (its store, ring position and counts).
  virtual void save(StateWriter& out);
  virtual void load(StateReader& in);
  // The current state, as a CPU store (a backend that keeps it elsewhere copies it here first: tests
  // comparing backends; hashes go through hash_into, checkpoints through save).
  virtual const ParticleStore& state() const { return store_; }
  // Hashes every slot into `sink` (as add_store of state() would; the GPU's
  // pool without waiting for the GPU when the sink captures).
  virtual void hash_into(StateSink& sink) { sink.add_store(store_, store_.capacity()); }

  ParticleStore& store() { return store_; }
  const ParticleStore& store() const { return store_; }
  const PoolRules& rules() const { return rules_; }
  virtual void reset_counters() { spawned_ = died_ = 0; }

 protected:
  PoolRules rules_;
  ThreadPool& threads_;
  ParticleStore store_;
  PreviousPositions previous_;
  uint64_t added_ = 0;
  int64_t spawned_ = 0, died_ = 0;
};

}  // namespace fxsim

namespace fxsim {
// Makes the pool of an effect's secondary particles (embers, debris): the CPU
// pool unless a backend supplies its own.
using PoolMaker = std::function<std::unique_ptr<ParticlePool>(const PoolRules& rules, size_t capacity)>;
// The CPU pools, running on `threads`.
PoolMaker cpu_pool_maker(ThreadPool& threads);
}  // namespace fxsim
