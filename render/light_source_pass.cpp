#include "render/light_source_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include "core/lighting.h"
#include "render/fog_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// Across, at the least. Each pixel shades the disc at its centre: at 3 or 4
// pixels across, the few pixels it covers summed its light 0.72-1.22 times
// by where it fell; at 5, within a tenth (tests/render_look_test.cpp).
constexpr float kMinSourcePixels = 5.0f;

constexpr const char* kLightSourceVertexShader = R"(#version 330 core
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

constexpr const char* kLightSourceFragmentShader = R"(
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
  program_ = link_program(kLightSourceVertexShader,
                          std::string("#version 330 core\n") + kFogGlsl + kLightSourceFragmentShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
}

void LightSourcePass::draw(const Lighting& lighting, const CameraPose& camera, float aspect, int height,
                           const std::optional<Fog>& fog) {
  const glm::mat4 projection = camera.projection(aspect), view = camera.view();
  const glm::mat4 view_projection = projection * view;
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
    glm::vec3 radiance = source_radiance(light, camera.position);
    if (radiance == glm::vec3(0)) continue;
    float r = 0.5f * light.size;
    // A far lamp under kMinSourcePixels across is drawn that wide, as dim as
    // keeps its light: a disc of a pixel or two lit a pixel or none as it
    // moved across them (1-3 pixel squares that sparkle).
    const float depth = -(view * glm::vec4(light.position, 1.0f)).z;
    const float pixels = light.size * projection[1][1] * 0.5f * float(height) / std::max(depth, 1e-6f);
    if (depth > camera.near_plane && pixels < kMinSourcePixels) {
      radiance *= (pixels / kMinSourcePixels) * (pixels / kMinSourcePixels);
      r *= kMinSourcePixels / pixels;
    }
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
