#include "render/layer_target.h"

#include <fmt/format.h>

#include "core/exit_codes.h"
#include "render/gl_checks.h"

namespace fxsim {

LayerTarget::LayerTarget(int width, int height) : width_(width), height_(height) {
  color_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, color_.get());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA32F, width, height);
  depth_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, depth_.get());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_.get());
  check_gl(fmt::format("allocating the {}×{} layer image", width, height));
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::invalid_scene, fmt::format("the GL cannot make a {}×{} float layer image", width, height));
}

void LayerTarget::begin(glm::vec4 clear) {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.get());
  glViewport(0, 0, width_, height_);
  glDisable(GL_FRAMEBUFFER_SRGB);
  glClearColor(clear.r, clear.g, clear.b, clear.a);
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

std::vector<std::vector<float>> LayerTarget::read(const std::vector<int>& channels) {
  wait_for_gl("drawing a layer");
  std::vector<float> rgba(size_t(width_) * size_t(height_) * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_.get());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_FLOAT, rgba.data());
  check_gl("reading a layer back");
  std::vector<std::vector<float>> out(channels.size(), std::vector<float>(size_t(width_) * size_t(height_)));
  for (size_t c = 0; c < channels.size(); ++c)
    for (int y = 0; y < height_; ++y)  // GL's rows run bottom to top
      for (int x = 0; x < width_; ++x)
        out[c][size_t(y) * size_t(width_) + size_t(x)] =
            rgba[(size_t(height_ - 1 - y) * size_t(width_) + size_t(x)) * 4 + size_t(channels[c])];
  return out;
}

}  // namespace fxsim
