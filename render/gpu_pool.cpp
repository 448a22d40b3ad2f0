#include "render/gpu_pool.h"

#include <glm/gtc/type_ptr.hpp>

#include "core/motion.h"
#include "render/gpu_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// ParticlePool::step, operation for operation.
const std::string& pool_source() {
  static const std::string source = glsl_prelude() + glsl_particle_block("P", 0) + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 2) buffer Counters { uint died; };
uniform uint u_count;
uniform vec3 u_gravity, u_fall, u_wind;
uniform float u_drag, u_dt, u_e, u_relax, u_lifetime, u_ground;
uniform bool u_turbulent;
uniform float u_slice, u_blend;
void main() {
  DragStep motion = DragStep(u_gravity, u_drag, u_dt, u_e, u_relax, u_fall);
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) {
    float age = P_get_age(i);
    if (age < 0.0) continue;
    vec3 p = P_position(i), v = P_velocity(i);
    vec3 air = u_wind;
    if (u_turbulent) { precise vec3 a = u_wind + turbulence(p, u_slice, u_blend); air = a; }
    drag_step(motion, p, v, air);
    P_set_position(i, p);
    P_set_velocity(i, v);
    precise float aged = age + u_dt;
    if (aged >= u_lifetime || p.y < u_ground) {
      aged = -1.0;
      atomicAdd(died, 1u);
    }
    P_set_age(i, aged);
  }
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
  const glm::vec3 gravity = ctx.gravity * rules_.gravity_scale;
  const DragStep motion(gravity, rules_.drag, ctx.dt);
  glUseProgram(program_.get());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, counter_.get());
  glUniform3fv(uniform(program_, "u_gravity"), 1, glm::value_ptr(gravity));
  const glm::vec3 fall = motion.fall(), air = wind.uniform_part(ctx.t0);
  glUniform3fv(uniform(program_, "u_fall"), 1, glm::value_ptr(fall));
  glUniform3fv(uniform(program_, "u_wind"), 1, glm::value_ptr(air));
  glUniform1f(uniform(program_, "u_drag"), rules_.drag);
  glUniform1f(uniform(program_, "u_dt"), ctx.dt);
  glUniform1f(uniform(program_, "u_e"), motion.e());
  glUniform1f(uniform(program_, "u_relax"), motion.relax());
  glUniform1f(uniform(program_, "u_lifetime"), rules_.lifetime);
  glUniform1f(uniform(program_, "u_ground"), rules_.dies_on_landing && ctx.ground ? *ctx.ground : -1e30f);
  glUniform1i(uniform(program_, "u_turbulent"), rules_.drag > 0 && wind.has_turbulence());
  set_turbulence_uniforms(program_, wind, ctx.t0, "u_slice", "u_blend");
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
