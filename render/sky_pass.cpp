#include "render/sky_pass.h"

#include <cmath>

#include <glm/gtc/type_ptr.hpp>
#include <glm/trigonometric.hpp>

#include "render/fog_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// One triangle covering the screen; each pixel's world direction from the
// camera's axes scaled by the field of view (linear across the screen, so
// interpolated exactly). Unprojecting the far plane through the inverse of
// the projection lost every direction's precision when far / near passed
// about 2e7 (the sky came out one colour, unfogged).
constexpr const char* kSkyVertexShader = R"(#version 330 core
uniform mat3 u_view_rays;  // the direction of window point p (-1..1) is u_view_rays * (p, -1)
out vec3 v_direction;
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  v_direction = u_view_rays * vec3(p, -1.0);
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
  // The camera's right, up and backward axes; right and up reach the
  // frame's edges at z = -1 (camera.projection's field of view and aspect).
  const float half_height = std::tan(glm::radians(camera.fov_degrees) * 0.5f);
  glm::mat3 rays = camera.basis();
  rays[0] *= half_height * aspect;
  rays[1] *= half_height;
  glUseProgram(program_.get());
  glUniformMatrix3fv(uniform(program_, "u_view_rays"), 1, GL_FALSE, glm::value_ptr(rays));
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
