#include "render/shader.h"

#include <fmt/format.h>
#include <initializer_list>
#include <string>

#include "core/exit_codes.h"
#include "render/gl_checks.h"

namespace fxsim {

namespace {
GLuint compile(GLenum kind, std::string_view source) {
  const GLuint shader = glCreateShader(kind);
  const char* text = source.data();
  const GLint length = GLint(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[8192] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    discard_gl_reports();  // the log below says it all
    throw FxError(ExitCode::internal, fmt::format("GLSL {} shader does not compile:\n{}",
                                                  kind == GL_VERTEX_SHADER     ? "vertex"
                                                  : kind == GL_FRAGMENT_SHADER ? "fragment"
                                                                               : "compute",
                                                  log));
  }
  return shader;
}

GlProgram link(std::initializer_list<GLuint> shaders) {
  GlProgram program(glCreateProgram());
  for (const GLuint shader : shaders) glAttachShader(program.get(), shader);
  glLinkProgram(program.get());
  for (const GLuint shader : shaders) glDeleteShader(shader);
  GLint ok = 0;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096] = {};
    glGetProgramInfoLog(program.get(), sizeof log, nullptr, log);
    discard_gl_reports();
    throw FxError(ExitCode::internal, fmt::format("GLSL program does not link:\n{}", log));
  }
  return program;
}
}  // namespace

GlProgram link_program(std::string_view vertex_source, std::string_view fragment_source) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
  return link({vs, compile(GL_FRAGMENT_SHADER, fragment_source)});
}

GlProgram link_compute_program(std::string_view source) { return link({compile(GL_COMPUTE_SHADER, source)}); }

GLint uniform(const GlProgram& program, const char* name) { return glGetUniformLocation(program.get(), name); }

}  // namespace fxsim
