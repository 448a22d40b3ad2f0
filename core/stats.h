#pragma once
// Per-frame statistics (docs/scene-format.md, "Statistics output") and the
// state hash kept beside golden images.
#include <cstdint>
#include <functional>
#include <mutex>
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

// Where the bytes of a state hash go, in order: hashed at once (StateHasher)
// or captured to be hashed later (StateCapture).
class StateSink {
 public:
  virtual ~StateSink() = default;
  virtual void add(const void* data, size_t bytes) = 0;
  // `bytes` that are ready only later (a copy the GPU makes of its
  // particles): `fetch` writes them where it is told, on the thread that owns
  // the GL context; they count as one add().
  using Fetch = std::function<void(uint8_t* out)>;
  virtual void add_later(size_t bytes, Fetch fetch) = 0;
  // The count, then each field's first `count` elements.
  void add_store(const ParticleStore& store, size_t count);
};

// A 64-bit hash of simulation state, fed field by field.
class StateHasher : public StateSink {
 public:
  void add(const void* data, size_t bytes) override;
  void add_later(size_t bytes, Fetch fetch) override;
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xCBF29CE484222325ull;
  // Where every fetch writes: a state's fields are megabytes each, and a new
  // buffer for each was zeroed (and under ASan mapped afresh) for nothing.
  std::vector<uint8_t> fetched_;
};

// A state hash taken without waiting for the GPU: the CPU's bytes are copied
// now, the GPU's copied on the GPU now and fetched later (once the frame's
// image is read back anyway), then hashed (on any thread) to the value a
// StateHasher would have given.
class StateCapture : public StateSink {
 public:
  void add(const void* data, size_t bytes) override;
  void add_later(size_t bytes, Fetch fetch) override;
  // On the GL thread: runs the pending fetches (and frees what they held).
  void fetch();
  // After fetch(), on any thread; computed once.
  uint64_t hash() const;

 private:
  struct Item {
    std::vector<uint8_t> bytes;
    size_t later_bytes = 0;
    Fetch fetch;  // empty once fetched
  };
  std::vector<Item> items_;
  mutable std::once_flag hashed_;
  mutable uint64_t hash_ = 0;
};

}  // namespace fxsim
