#pragma once
// Per-frame statistics (docs/scene-format.md, "Statistics output") and the
// state hash kept beside golden images.
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/parallel.h"

namespace fxsim {

class ParticleStore;

struct EmitterStats {
  std::string name;
  std::string type;
  bool active = false;
  uint64_t live = 0;
  int64_t spawned = 0;
  int64_t died = 0;
  glm::dvec3 min{0}, max{0}, mean_position{0}, mean_velocity{0};
};

// Names an entry of the statistics: "<name>" or "<name>.splash", its type,
// and whether the effect is shown.
void label(EmitterStats& stats, std::string name, std::string type, bool active);

struct FrameStats {
  int frame = 0;
  double time = 0;
  std::vector<EmitterStats> emitters;
};

// Statistics over slots [0, count) of a store; deterministic for any thread count
// (per-chunk sums combined in chunk order).
EmitterStats particle_stats(const ParticleStore& store, size_t count, ThreadPool& pool);

// The same over the slots whose age is >= 0 (pools with empty slots).
EmitterStats particle_stats_of_live_slots(const ParticleStore& store, ThreadPool& pool);

// Throws FxError(internal) naming the emitter, the frame and the time when a
// position or velocity is not finite: no frame is drawn from such a state.
void check_finite(const FrameStats& stats);

// One JSON Lines record.
std::string to_json_line(const FrameStats& stats);

// A 64-bit hash of simulation state, fed field by field.
class StateHasher {
 public:
  void add(const void* data, size_t bytes);
  void add_store(const ParticleStore& store, size_t count);
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xCBF29CE484222325ull;
};

}  // namespace fxsim
