#pragma once
// Thin owning wrappers for GL object names: deleted with their owner, movable,
// not copyable. They need a current context.
#include <epoxy/gl.h>
#include <utility>

namespace fxsim {

template <void (*Delete)(GLuint)>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint name) : name_(name) {}
  ~GlName() { reset(); }
  GlName(GlName&& other) noexcept : name_(std::exchange(other.name_, 0)) {}
  GlName& operator=(GlName&& other) noexcept {
    if (this != &other) {
      reset();
      name_ = std::exchange(other.name_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;

  GLuint get() const { return name_; }
  void reset() {
    if (name_) Delete(name_);
    name_ = 0;
  }

 private:
  GLuint name_ = 0;
};

namespace gl_delete {
inline void buffer(GLuint n) { glDeleteBuffers(1, &n); }
inline void vertex_array(GLuint n) { glDeleteVertexArrays(1, &n); }
inline void texture(GLuint n) { glDeleteTextures(1, &n); }
inline void framebuffer(GLuint n) { glDeleteFramebuffers(1, &n); }
inline void renderbuffer(GLuint n) { glDeleteRenderbuffers(1, &n); }
inline void program(GLuint n) { glDeleteProgram(n); }
}  // namespace gl_delete

using GlBuffer = GlName<gl_delete::buffer>;
using GlVertexArray = GlName<gl_delete::vertex_array>;
using GlTexture = GlName<gl_delete::texture>;
using GlFramebuffer = GlName<gl_delete::framebuffer>;
using GlRenderbuffer = GlName<gl_delete::renderbuffer>;
using GlProgram = GlName<gl_delete::program>;

inline GLuint gl_gen(void (*gen)(GLsizei, GLuint*)) {
  GLuint name = 0;
  gen(1, &name);
  return name;
}

}  // namespace fxsim
