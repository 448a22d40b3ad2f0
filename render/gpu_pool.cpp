#include "render/gpu_pool.h"

#include "core/motion.h"
#include "render/gpu_glsl.h"

namespace fxsim {

namespace {
// ParticlePool::step, operation for operation.
const std::string& pool_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) + glsl_aging_step() + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint died; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride)
    if (aging_step(i) == 0) atomicAdd(died, 1u);
}
)";
  return source;
}
}  // namespace

GpuPool::GpuPool(const PoolRules& rules, size_t capacity, size_t page_capacity)
    : rules_(rules), store_(capacity, page_capacity), kernel_(pool_source()), deaths_(1) {
  store_.clear(-1.0f);
}

void GpuPool::step(const StepContext& ctx, const WindField& wind, GpuTurbulence& turbulence, ThreadPool& threads) {
  kernel_.bind(2, deaths_.buffer());
  set_aging_params(kernel_, ctx, wind, rules_, turbulence, threads);
  for (size_t page = 0; page < store_.page_count() && store_.capacity > 0; ++page) {
    store_.bind(kernel_, 'P', 0, page);
    kernel_.dispatch(store_.page_size(page));
  }
}

int64_t GpuPool::take_deaths() { return deaths_.take()[0]; }

}  // namespace fxsim
