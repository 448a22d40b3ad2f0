#pragma once
// Compiling and linking GLSL programs (drawing and compute); a failure is an internal error that
// carries the driver's log.
#include <string_view>

#include "render/gl_objects.h"

namespace fxsim {

GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source);
GlProgram link_compute_program(std::string_view source);
GLint uniform(const GlProgram& program, const char* name);

}  // namespace fxsim
