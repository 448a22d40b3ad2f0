#pragma once
// Compiling and linking GLSL programs (drawing and compute); a failure is an internal error that
// carries the driver's log.
#include <string_view>

#include "render/gl_objects.h"

namespace fxsim {

GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source);
GlProgram link_compute_program(std::string_view source);
GLint uniform(const GlProgram& program, const char* name);

// Draws the program in use (with kFullScreenTriangleVertex) over the whole
// viewport, its premultiplied light "over" what is there, without a depth test.
void composite_over_viewport(GLuint empty_vertex_array);

// A vertex shader drawing one triangle over the whole viewport (glDrawArrays(GL_TRIANGLES, 0, 3), no attributes):
// the passes that run a fragment shader per pixel.
inline constexpr const char* kFullScreenTriangleVertex = R"(#version 330 core
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

// A fragment shader giving each pixel its texel of a layer the size of the
// viewport (u_layer): premultiplied light, put "over" by composite_over_viewport.
inline constexpr const char* kLayerFragment = R"(#version 330 core
uniform sampler2D u_layer;
out vec4 out_color;
void main() { out_color = texelFetch(u_layer, ivec2(gl_FragCoord.xy), 0); }
)";

}  // namespace fxsim
