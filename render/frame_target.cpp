#include "render/frame_target.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "core/exit_codes.h"

namespace fxsim {

FrameTarget::FrameTarget(int width, int height, int samples) : width_(width), height_(height) {
  GLint max_samples = 1, max_size = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (width > max_size || height > max_size)
    throw FxError(ExitCode::no_gl, fmt::format("{}×{} is larger than this GL's largest image ({} pixels a side)",
                                               width, height, max_size));
  samples = std::min(samples, int(max_samples));
  color_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, color_.get());
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_SRGB8_ALPHA8, width, height);
  depth_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, depth_.get());
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
  draw_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_.get());
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::no_gl, "the GL cannot render to a multisampled sRGB framebuffer");

  resolved_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, resolved_.get());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_SRGB8_ALPHA8, width, height);
  resolve_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, resolved_.get());
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::no_gl, "the GL cannot resolve into an sRGB framebuffer");
}

void FrameTarget::bind_for_drawing() const {
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_.get());
  glViewport(0, 0, width_, height_);
  glEnable(GL_FRAMEBUFFER_SRGB);
}

Image FrameTarget::read() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, draw_fbo_.get());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_.get());
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve_fbo_.get());
  Image image{width_, height_, std::vector<uint8_t>(size_t(width_) * size_t(height_) * 4)};
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  // GL's rows run bottom to top; PNG's top to bottom.
  const size_t row = size_t(width_) * 4;
  std::vector<uint8_t> swap(row);
  for (int y = 0; y < height_ / 2; ++y) {
    uint8_t* a = image.rgba.data() + size_t(y) * row;
    uint8_t* b = image.rgba.data() + size_t(height_ - 1 - y) * row;
    std::memcpy(swap.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, swap.data(), row);
  }
  // The image is opaque: the background is cleared opaque and blending keeps it so.
  for (size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;
  return image;
}

}  // namespace fxsim
