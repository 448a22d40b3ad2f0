#include "render/gl_checks.h"

#include <epoxy/gl.h>
#include <fmt/format.h>
#include <mutex>
#include <vector>

#include "core/exit_codes.h"

namespace fxsim {

namespace {
std::mutex g_mutex;
std::vector<std::string> g_messages;  // errors the debug output reported since the last check
bool g_out_of_memory = false;

void GLAPIENTRY on_debug_message(GLenum, GLenum type, GLuint, GLenum severity, GLsizei length, const GLchar* message,
                                 const void*) {
  // Notifications and performance hints are not failures.
  if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH) return;
  const std::string text = length >= 0 ? std::string(message, size_t(length)) : std::string(message);
  std::lock_guard lock(g_mutex);
  if (g_messages.size() < 8) g_messages.push_back(text);
  if (text.find("out of memory") != std::string::npos || text.find("OUT_OF_MEMORY") != std::string::npos)
    g_out_of_memory = true;
}

const char* error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "an unknown GL error";
  }
}
}  // namespace

void capture_gl_errors() {
  if (epoxy_gl_version() < 43 && !epoxy_has_gl_extension("GL_KHR_debug")) return;
  glEnable(GL_DEBUG_OUTPUT);
  glDebugMessageCallback(on_debug_message, nullptr);
}

void discard_gl_reports() {
  for (int i = 0; i < 8 && glGetError() != GL_NO_ERROR; ++i) {
  }
  std::lock_guard lock(g_mutex);
  g_messages.clear();
  g_out_of_memory = false;
}

void check_gl(const std::string& what) {
  std::vector<std::string> reported;
  bool out_of_memory = false;
  // glGetError returns each recorded error once; a lost context keeps
  // returning GL_CONTEXT_LOST, so the loop is bounded.
  for (int i = 0; i < 8; ++i) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) break;
    out_of_memory |= error == GL_OUT_OF_MEMORY;
    reported.push_back(error_name(error));
  }
  {
    std::lock_guard lock(g_mutex);
    for (auto& m : g_messages) reported.push_back("\"" + m + "\"");
    out_of_memory |= g_out_of_memory;
    g_messages.clear();
    g_out_of_memory = false;
  }
  if (reported.empty()) return;
  std::string list;
  for (const auto& r : reported) list += (list.empty() ? "" : "; ") + r;
  if (out_of_memory)
    throw FxError(ExitCode::invalid_scene,
                  fmt::format("{}: the GL ran out of memory ({}); lower max_particles or the image size", what, list));
  throw FxError(ExitCode::no_gl, fmt::format("{}: the GL failed ({}); nothing was written for it", what, list));
}

void wait_for_fence(GLsync fence, const std::string& what) {
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;  // the first wait must also submit the work
  GLenum result = GL_TIMEOUT_EXPIRED;
  while (result == GL_TIMEOUT_EXPIRED) {
    result = glClientWaitSync(fence, flags, 1'000'000'000ull);
    flags = 0;
  }
  glDeleteSync(fence);
  if (result == GL_WAIT_FAILED) throw FxError(ExitCode::no_gl, fmt::format("{}: waiting for the GL failed", what));
  check_gl(what);
}

void wait_for_gl(const std::string& what) {
  GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!fence) return check_gl(what);
  wait_for_fence(fence, what);
}

}  // namespace fxsim
