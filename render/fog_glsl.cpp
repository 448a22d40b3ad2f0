#include "render/fog_glsl.h"

#include <glm/gtc/type_ptr.hpp>

#include "render/shader.h"

namespace fxsim {

void set_fog_uniforms(const GlProgram& program, const std::optional<Fog>& fog, glm::vec3 eye) {
  glUniform1i(uniform(program, "u_fog_on"), fog.has_value());
  if (!fog) return;
  const glm::vec4 color = fog->color.linear();
  glUniform4f(uniform(program, "u_fog"), color.r, color.g, color.b, fog->density);
  glUniform2f(uniform(program, "u_fog_height"), fog->height_falloff, fog->base);
  glUniform3fv(uniform(program, "u_eye_position"), 1, glm::value_ptr(eye));
}

}  // namespace fxsim
