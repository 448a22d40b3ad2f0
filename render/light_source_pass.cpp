#include "render/light_source_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include "core/lighting.h"
#include "render/fog_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
constexpr const char* kVertexShader = R"(#version 330 core
uniform mat4 u_view_projection;
uniform vec3 u_center;
uniform vec3 u_right, u_up;  // the camera's, scaled by the radius
out vec2 v_offset;           // −1..1 across the disc
out vec3 v_world;
void main() {
  v_offset = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
  v_world = u_center + u_right * v_offset.x + u_up * v_offset.y;
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
)";

constexpr const char* kFragmentShader = R"(
uniform vec3 u_radiance;  // linear
in vec2 v_offset;
in vec3 v_world;
out vec4 out_color;
void main() {
  float edge = 1.0 - smoothstep(0.8, 1.0, length(v_offset));
  out_color = vec4(u_radiance * edge * fog_transmittance(v_world), 0.0);
}
)";
}  // namespace

LightSourcePass::LightSourcePass() {
  program_ = link_program(kVertexShader, std::string("#version 330 core\n") + kFogGlsl + kFragmentShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
}

void LightSourcePass::draw(const Lighting& lighting, const CameraPose& camera, float aspect,
                           const std::optional<Fog>& fog) {
  const glm::mat4 view_projection = camera.projection(aspect) * camera.view();
  const glm::mat3 basis = camera.basis();
  glUseProgram(program_.get());
  glUniformMatrix4fv(uniform(program_, "u_view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
  set_fog_uniforms(program_, fog, camera.position);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);  // light added, coverage kept
  glBindVertexArray(vao_.get());
  for (const Light& light : lighting.lights) {
    const glm::vec3 radiance = source_radiance(light, camera.position);
    if (radiance == glm::vec3(0)) continue;
    const float r = 0.5f * light.size;
    glUniform3fv(uniform(program_, "u_center"), 1, glm::value_ptr(light.position));
    glUniform3fv(uniform(program_, "u_right"), 1, glm::value_ptr(basis[0] * r));
    glUniform3fv(uniform(program_, "u_up"), 1, glm::value_ptr(basis[1] * r));
    glUniform3fv(uniform(program_, "u_radiance"), 1, glm::value_ptr(radiance));
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  }
  glBindVertexArray(0);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
}

}  // namespace fxsim
