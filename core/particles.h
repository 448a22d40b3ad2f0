#pragma once
// A particle's fields, declared once. The CPU keeps them as structure-of-arrays
// (one contiguous array per field, of fixed capacity); the GPU backend builds
// its storage-buffer layout from the same list, so both read the same fields.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace fxsim {

// X(type, name, what)
#define FXSIM_PARTICLE_FIELDS(X)                                              \
  X(float, px, "position x, m")                                               \
  X(float, py, "position y, m")                                               \
  X(float, pz, "position z, m")                                               \
  X(float, vx, "velocity x, m/s")                                             \
  X(float, vy, "velocity y, m/s")                                             \
  X(float, vz, "velocity z, m/s")                                             \
  X(float, size, "sprite diameter, m")                                        \
  X(float, phase, "sway phase, radians (also the sprite's spin)")             \
  X(float, sway_x, "sway direction, x component (horizontal unit vector)")    \
  X(float, sway_z, "sway direction, z component")                             \
  X(float, age, "seconds since birth; negative: the slot is empty")          \
  X(uint32_t, shape, "texture layer")                                         \
  X(uint32_t, source, "which nozzle (fountain) the particle came from")        \
  X(uint32_t, generation, "times this slot was reborn: spawn index = generation * capacity + slot")

class ParticleStore {
 public:
  explicit ParticleStore(size_t capacity = 0) { reserve(capacity); }

  void reserve(size_t capacity) {
    capacity_ = capacity;
#define FXSIM_RESIZE(type, name, what) name.assign(capacity, type{});
    FXSIM_PARTICLE_FIELDS(FXSIM_RESIZE)
#undef FXSIM_RESIZE
  }
  size_t capacity() const { return capacity_; }

  glm::vec3 position(size_t i) const { return {px[i], py[i], pz[i]}; }
  glm::vec3 velocity(size_t i) const { return {vx[i], vy[i], vz[i]}; }
  void set_position(size_t i, glm::vec3 p) { px[i] = p.x, py[i] = p.y, pz[i] = p.z; }
  void set_velocity(size_t i, glm::vec3 v) { vx[i] = v.x, vy[i] = v.y, vz[i] = v.z; }

  // The spawn index of the particle now in slot i: the key of its random draws.
  uint64_t spawn_index(size_t i) const { return uint64_t(generation[i]) * capacity_ + i; }

  // Calls f(pointer, element size, count) for each field's first `count` entries.
  template <typename F>
  void for_each_field(size_t count, F&& f) const {
#define FXSIM_VISIT(type, name, what) f(static_cast<const void*>(name.data()), sizeof(type), count);
    FXSIM_PARTICLE_FIELDS(FXSIM_VISIT)
#undef FXSIM_VISIT
  }

#define FXSIM_DECLARE(type, name, what) std::vector<type> name;
  FXSIM_PARTICLE_FIELDS(FXSIM_DECLARE)
#undef FXSIM_DECLARE

 private:
  size_t capacity_ = 0;
};

// Bytes one particle occupies, summed over the fields.
constexpr size_t particle_bytes() {
  size_t bytes = 0;
#define FXSIM_SIZE(type, name, what) bytes += sizeof(type);
  FXSIM_PARTICLE_FIELDS(FXSIM_SIZE)
#undef FXSIM_SIZE
  return bytes;
}

}  // namespace fxsim
