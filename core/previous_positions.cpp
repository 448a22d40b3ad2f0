#include "core/previous_positions.h"

#include <cmath>
#include <glm/matrix.hpp>

#include "core/parallel.h"

namespace fxsim {

void PreviousPositions::remember(const ParticleStore& store, size_t count, bool only_live, ThreadPool& threads) {
  slots_.resize(count);
  for_chunks(threads, count, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) {
      const bool there = !only_live || store.age[i] >= 0;
      slots_[i] = {store.px[i], store.py[i], store.pz[i], there ? store.generation[i] + 1 : 0};
    }
  });
  remembered_ = true;
}

bool WrapBox::wrapped(glm::vec3 travel) const {
  const glm::vec3 local = glm::transpose(axes) * travel;
  return std::fabs(local.x) > half.x || std::fabs(local.y) > half.y || std::fabs(local.z) > half.z;
}

glm::vec4 PreviousPositions::of(const ParticleStore& store, size_t i, const WrapBox& box) const {
  if (i >= slots_.size()) return glm::vec4(0);
  const Slot& s = slots_[i];
  if (s.generation_plus_one == 0 || s.generation_plus_one - 1 != store.generation[i] || store.age[i] < 0)
    return glm::vec4(0);
  const glm::vec3 then(s.x, s.y, s.z);
  if (box.wrapped(store.position(i) - then)) return glm::vec4(0);
  return glm::vec4(then, 1.0f);
}

}  // namespace fxsim
