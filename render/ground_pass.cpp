#include "render/ground_pass.h"

#include <glm/gtc/type_ptr.hpp>

#include "render/shader.h"

namespace fxsim {

namespace {
// The quad's corners come from gl_VertexID: no vertex buffer needed.
constexpr const char* kVertexShader = R"(#version 330 core
uniform mat4 u_view_projection;
uniform vec3 u_center;   // under the camera, at ground height
uniform float u_extent;  // half the side
out vec2 v_offset;       // horizontal offset from the camera, metres
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
  v_offset = corner * u_extent;
  gl_Position = u_view_projection * vec4(u_center + vec3(corner.x, 0.0, corner.y) * u_extent, 1.0);
}
)";

constexpr const char* kFragmentShader = R"(#version 330 core
uniform vec4 u_color;       // linear
uniform vec4 u_background;  // linear
uniform float u_extent;
in vec2 v_offset;
out vec4 out_color;
// Flat colour; only the far distance fades into the background, so the
// horizon is not a hard, aliased line.
void main() {
  float fade = smoothstep(0.25 * u_extent, u_extent, length(v_offset));
  out_color = mix(u_color, u_background, fade);
}
)";
}  // namespace

GroundPass::GroundPass() {
  program_ = link_program(kVertexShader, kFragmentShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
}

void GroundPass::draw(const Ground& ground, const Color& background, const CameraPose& camera, float aspect) {
  if (!ground.color) return;
  const glm::mat4 view_projection = camera.projection(aspect) * camera.view();
  const glm::vec3 center{camera.position.x, ground.height, camera.position.z};
  glUseProgram(program_.get());
  glUniformMatrix4fv(uniform(program_, "u_view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
  glUniform3fv(uniform(program_, "u_center"), 1, glm::value_ptr(center));
  // Corners at the far distance would be clipped; 0.7 × far keeps the whole quad inside.
  glUniform1f(uniform(program_, "u_extent"), camera.far_plane * 0.7f);
  const glm::vec4 color = ground.color->linear();
  glUniform4f(uniform(program_, "u_color"), color.r, color.g, color.b, 1.0f);
  const glm::vec4 sky = background.linear();
  glUniform4f(uniform(program_, "u_background"), sky.r, sky.g, sky.b, 1.0f);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  glBindVertexArray(vao_.get());
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

}  // namespace fxsim
