#pragma once
// Where each slot's particle was at the previous frame, for the motion layer:
// the positions, spawn generations and liveness of a store's slots, copied when
// the simulation reaches the previous frame's time. A slot whose particle is
// not the one remembered (born or reborn since, or the slot was empty), or that
// jumped across its box (a flake wrapped to the opposite face), has no
// previous position.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/vec4.hpp>

#include "core/particles.h"

namespace fxsim {

class ThreadPool;

// A box whose particles wrap to the opposite face (snow and rain): a travel
// since the previous frame longer than half the box along any of its axes is
// a wrap, not a motion. The default box is unbounded.
struct WrapBox {
  glm::mat3 axes{1};  // the box's axes (columns, unit length)
  glm::vec3 half{std::numeric_limits<float>::infinity()};
  bool wrapped(glm::vec3 travel) const;
};

class PreviousPositions {
 public:
  // Remembers slots [0, count) of `store` (those with age >= 0 when `only_live`).
  void remember(const ParticleStore& store, size_t count, bool only_live, ThreadPool& threads);
  // Nothing remembered: no sprite has a previous position (the effect has just begun).
  void forget() { slots_.clear(), remembered_ = false; }
  bool remembered() const { return remembered_; }

  // Slot i's particle then: its position with w = 1, or w = 0 when it has none.
  glm::vec4 of(const ParticleStore& store, size_t i, const WrapBox& box = {}) const;

 private:
  struct Slot {
    float x, y, z;
    uint32_t generation_plus_one;  // 0: no particle was there
  };
  std::vector<Slot> slots_;
  bool remembered_ = false;
};

}  // namespace fxsim
