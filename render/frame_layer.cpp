#include "render/frame_layer.h"

#include <algorithm>

#include <glm/gtc/type_ptr.hpp>

#include "render/shader.h"

namespace fxsim {

BoundFrameSamples bound_frame_samples() {
  BoundFrameSamples frame;
  GLint samples = 0;
  glGetIntegerv(GL_SAMPLES, &samples);
  frame.positions.assign(size_t(std::max(samples, 1)), glm::vec2(0.5f));
  if (samples > 1)
    for (GLint s = 0; s < samples; ++s)
      glGetMultisamplefv(GL_SAMPLE_POSITION, GLuint(s), glm::value_ptr(frame.positions[size_t(s)]));
  GLint component = GL_FLOAT;
  glGetFramebufferAttachmentParameteriv(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                        GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE, &component);
  frame.clamped = component != GL_FLOAT;
  return frame;
}

FrameLayer::FrameLayer()
    : composite_(link_program(kFullScreenTriangleVertex, kLayerFragment)), empty_vao_(gl_gen(glGenVertexArrays)) {}

GLuint FrameLayer::texture(int width, int height) {
  if (width != width_ || height != height_) {
    texture_ = GlTexture(gl_gen(glGenTextures));
    glBindTexture(GL_TEXTURE_2D, texture_.get());
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, width, height);
    width_ = width;
    height_ = height;
  }
  return texture_.get();
}

void FrameLayer::composite_over_frame() {
  glUseProgram(composite_.get());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glUniform1i(glGetUniformLocation(composite_.get(), "u_layer"), 0);
  composite_over_viewport(empty_vao_.get());
}

}  // namespace fxsim
