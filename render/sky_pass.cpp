#include "render/sky_pass.h"

#include <glm/gtc/type_ptr.hpp>
#include <glm/matrix.hpp>

#include "render/fog_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// One triangle covering the screen; each pixel's world direction from the
// inverse of the camera's rotation and projection.
constexpr const char* kSkyVertexShader = R"(#version 330 core
uniform mat4 u_inverse_view_projection;  // rotation only: the eye at the origin
out vec3 v_direction;
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  vec4 far = u_inverse_view_projection * vec4(p, 1.0, 1.0);
  v_direction = far.xyz / far.w;
  gl_Position = vec4(p, 1.0, 1.0);
}
)";

constexpr const char* kSkyFragmentShader = R"(
uniform vec3 u_horizon;  // linear
uniform vec3 u_zenith;
uniform float u_distance;  // where the sky is: the far plane
in vec3 v_direction;
out vec4 out_color;
void main() {
  vec3 d = normalize(v_direction);
  vec3 sky = mix(u_horizon, u_zenith, pow(max(d.y, 0.0), 0.45));
  // Seen through the fog like everything else (core/fog.h), at the far plane.
  float t = fog_transmittance(u_eye_position + d * u_distance);
  out_color = vec4(u_fog_on ? mix(u_fog.rgb, sky, t) : sky, 1.0);
}
)";
}  // namespace

SkyPass::SkyPass() {
  program_ = link_program(kSkyVertexShader, std::string("#version 330 core\n") + kFogGlsl + kSkyFragmentShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
}

void SkyPass::draw(const Sky& sky, const CameraPose& camera, float aspect, const std::optional<Fog>& fog) {
  glm::mat4 view = camera.view();
  view[3] = glm::vec4(0, 0, 0, 1);  // directions only
  const glm::mat4 inverse = glm::inverse(camera.projection(aspect) * view);
  glUseProgram(program_.get());
  glUniformMatrix4fv(uniform(program_, "u_inverse_view_projection"), 1, GL_FALSE, glm::value_ptr(inverse));
  const glm::vec4 horizon = sky.horizon.linear(), zenith = sky.zenith.linear();
  glUniform3f(uniform(program_, "u_horizon"), horizon.r, horizon.g, horizon.b);
  glUniform3f(uniform(program_, "u_zenith"), zenith.r, zenith.g, zenith.b);
  glUniform1f(uniform(program_, "u_distance"), camera.far_plane);
  set_fog_uniforms(program_, fog, camera.position);
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glBindVertexArray(vao_.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
}

}  // namespace fxsim
