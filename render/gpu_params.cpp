#include "render/gpu_params.h"

#include <epoxy/gl.h>

namespace fxsim {

GpuParamBuffer::GpuParamBuffer() : buffer_(gl_gen(glGenBuffers)) {}

void GpuParamBuffer::upload(const void* data, size_t bytes, unsigned binding) {
  glBindBuffer(GL_UNIFORM_BUFFER, buffer_.get());
  if (bytes > capacity_) {
    glBufferData(GL_UNIFORM_BUFFER, GLsizeiptr(bytes), data, GL_DYNAMIC_DRAW);
    capacity_ = bytes;
  } else {
    glBufferSubData(GL_UNIFORM_BUFFER, 0, GLsizeiptr(bytes), data);
  }
  glBindBufferBase(GL_UNIFORM_BUFFER, binding, buffer_.get());
}

}  // namespace fxsim
