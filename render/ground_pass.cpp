#include "render/ground_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include "render/fog_glsl.h"
#include "render/lighting_glsl.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// The quad's corners come from gl_VertexID: no vertex buffer needed.
constexpr const char* kGroundVertexShader = R"(#version 330 core
uniform mat4 u_view_projection;
uniform vec3 u_center;   // under the camera, at ground height
uniform float u_extent;  // half the side
out vec2 v_offset;       // horizontal offset from the camera, metres
out vec3 v_world;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
  v_offset = corner * u_extent;
  v_world = u_center + vec3(corner.x, 0.0, corner.y) * u_extent;
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
)";

constexpr const char* kGroundFragmentShader = R"(
uniform vec4 u_color;       // linear
uniform vec4 u_background;  // linear, straight alpha (0: a transparent frame)
uniform float u_extent;
in vec2 v_offset;
in vec3 v_world;
out vec4 out_color;
uniform bool u_sky;         // the background is the sky, seen through the fog as the ground is
// The ground seen through the fog (core/fog.h); its far part fades into the
// background so the horizon is not a hard, aliased line: into the sky's
// horizon before the fog (the sky is fogged alike), or into the flat
// background colour after it (that is not fogged). Premultiplied, as the
// frame: into a transparent background the fade is a fall of coverage, so
// the frame composited over the background gives the opaque render back.
void main() {
  float fade = smoothstep(0.25 * u_extent, u_extent, length(v_offset));
  float transmitted = fog_transmittance(v_world);
  vec3 lit = u_color.rgb * ground_lit_factor(v_world);
  vec3 haze = u_fog.rgb * (1.0 - transmitted) * float(u_fog_on);
  vec3 ground = u_sky ? mix(lit, u_background.rgb, fade) * transmitted + haze
                      : mix(lit * transmitted + haze, u_background.rgb * u_background.a, fade);
  out_color = vec4(ground, 1.0 - fade * (1.0 - u_background.a));
}
)";
}  // namespace

GroundPass::GroundPass() {
  program_ = link_program(kGroundVertexShader,
                          std::string("#version 330 core\n") + kFogGlsl + kLightingGlsl + kGroundFragmentShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
}

void GroundPass::draw(const Ground& ground, const Color& background, const CameraPose& camera, float aspect,
                      const std::optional<Fog>& fog, const std::optional<Lighting>& lighting, bool sky) {
  if (!ground.color) return;
  const glm::mat4 view_projection = camera.projection(aspect) * camera.view();
  const glm::vec3 center{camera.position.x, ground.height, camera.position.z};
  glUseProgram(program_.get());
  glUniformMatrix4fv(uniform(program_, "u_view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
  glUniform3fv(uniform(program_, "u_center"), 1, glm::value_ptr(center));
  glUniform1f(uniform(program_, "u_extent"), ground_extent(camera.near_plane, camera.far_plane));
  const glm::vec4 color = ground.color->linear();
  glUniform4f(uniform(program_, "u_color"), color.r, color.g, color.b, 1.0f);
  const glm::vec4 behind = background.linear();
  glUniform4f(uniform(program_, "u_background"), behind.r, behind.g, behind.b, behind.a);
  set_fog_uniforms(program_, fog, camera.position);
  set_lighting_uniforms(program_, lighting);
  glUniform1i(uniform(program_, "u_sky"), sky);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  glBindVertexArray(vao_.get());
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

}  // namespace fxsim
