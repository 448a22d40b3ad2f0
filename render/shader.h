#pragma once
// Compiling and linking GLSL programs (drawing and compute); a failure is an internal error that
// carries the driver's log.
#include <string_view>

#include "render/gl_objects.h"

namespace fxsim {

GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source);
GlProgram link_compute_program(std::string_view source);
GLint uniform(const GlProgram& program, const char* name);

// A vertex shader drawing one triangle over the whole viewport (glDrawArrays(GL_TRIANGLES, 0, 3), no attributes):
// the passes that run a fragment shader per pixel.
inline constexpr const char* kFullScreenTriangleVertex = R"(#version 330 core
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

}  // namespace fxsim
