#include "render/gpu_pool.h"

#include <glm/gtc/type_ptr.hpp>

#include "core/motion.h"
#include "render/gpu_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// ParticlePool::step, operation for operation.
const std::string& pool_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) + glsl_aging_step() + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint died; };
uniform uint u_count;
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
    : rules_(rules), store_(capacity, page_capacity), program_(link_compute(pool_source())), counter_(gl_gen(glGenBuffers)) {
  store_.clear(-1.0f);
  const uint32_t zero = 0;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, counter_.get());
  glBufferData(GL_SHADER_STORAGE_BUFFER, 4, &zero, GL_DYNAMIC_COPY);
}

void GpuPool::step(const StepContext& ctx, const WindField& wind) {
  glUseProgram(program_.get());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, counter_.get());
  set_aging_uniforms(program_, aging_params_, ctx, wind, rules_);
  for (size_t page = 0; page < store_.page_count() && store_.capacity > 0; ++page) {
    store_.bind(program_, "P", 0, page);
    dispatch(program_, store_.page_size(page));
  }
}

int64_t GpuPool::take_deaths() {
  uint32_t died = 0;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, counter_.get());
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4, &died);
  const uint32_t zero = 0;
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4, &zero);
  return died;
}

}  // namespace fxsim
