#include "render/lighting_glsl.h"

#include <cmath>
#include <vector>

#include <glm/gtc/type_ptr.hpp>
#include <glm/trigonometric.hpp>

#include "core/limits.h"
#include "render/shader.h"

namespace fxsim {

void set_lighting_uniforms(const GlProgram& program, const std::optional<Lighting>& lighting) {
  glUniform1i(uniform(program, "u_lit"), lighting.has_value());
  if (!lighting) return;
  static_assert(kMaxLights == 16, "MAX_LIGHTS in kLightingGlsl");
  const glm::vec3 ambient = glm::vec3(lighting->ambient_color.linear()) * lighting->ambient;
  glUniform3fv(uniform(program, "u_ambient"), 1, glm::value_ptr(ambient));
  const size_t n = lighting->lights.size();
  std::vector<glm::vec4> position(n), direction(n);
  std::vector<glm::vec3> color(n);
  std::vector<glm::vec2> cone(n);
  for (size_t i = 0; i < n; ++i) {
    const Light& l = lighting->lights[i];
    position[i] = glm::vec4(l.position, l.type == LightType::directional ? 0 : l.type == LightType::point ? 1 : 2);
    direction[i] = glm::vec4(l.direction, l.range);
    color[i] = glm::vec3(l.color.linear()) * l.intensity;
    cone[i] = {std::cos(glm::radians(l.outer_cone)), std::cos(glm::radians(l.inner_cone))};
  }
  glUniform1i(uniform(program, "u_light_count"), GLint(n));
  if (n == 0) return;
  glUniform4fv(uniform(program, "u_light_position"), GLsizei(n), glm::value_ptr(position[0]));
  glUniform4fv(uniform(program, "u_light_direction"), GLsizei(n), glm::value_ptr(direction[0]));
  glUniform3fv(uniform(program, "u_light_color"), GLsizei(n), glm::value_ptr(color[0]));
  glUniform2fv(uniform(program, "u_light_cone"), GLsizei(n), glm::value_ptr(cone[0]));
}

void set_scattering_uniform(const GlProgram& program, const Scattering& s) {
  glUniform4f(uniform(program, "u_scatter"), s.isotropic, s.forward, s.g, s.lit ? 1.0f : 0.0f);
  glUniform2f(uniform(program, "u_scatter_back"), s.backward, s.g_back);
}

}  // namespace fxsim
