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

namespace {
// Each pixel's texel of the layer (the size of the frame's viewport).
constexpr const char* kLayerTexel = R"(
uniform sampler2D u_layer;
vec4 layer_colour(vec2 centre) { return texelFetch(u_layer, ivec2(centre), 0); }
)";
}  // namespace

FrameLayer::FrameLayer() : over_(kLayerTexel) {}

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
  over_.composite([&](const GlProgram& program) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture_.get());
    glUniform1i(uniform(program, "u_layer"), 0);
  });
}

}  // namespace fxsim
