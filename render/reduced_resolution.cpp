#include "render/reduced_resolution.h"

#include <fmt/format.h>

#include "core/exit_codes.h"
#include "render/gl_checks.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// Depth is compared in metres along the view: texels whose occluders lie
// within 5 % of the pixel's depth are the same surface (or the same sky).
constexpr const char* kUpsample = R"(
uniform sampler2D u_low;         // premultiplied light, alpha = coverage
uniform sampler2D u_low_depth;   // the occluders' depth where the half-size texels were drawn
uniform sampler2D u_depth;       // the occluders' depth at full size
uniform vec2 u_scale;            // half-size texels per frame pixel
uniform vec2 u_near_far;
float metres(float d) {
  float n = u_near_far.x, f = u_near_far.y;
  return 2.0 * n * f / (f + n - (2.0 * d - 1.0) * (f - n));
}
vec4 layer_colour(vec2 centre) {
  ivec2 size = textureSize(u_low, 0);
  float z = metres(texelFetch(u_depth, ivec2(centre), 0).r);
  vec2 t = centre * u_scale - 0.5;
  ivec2 base = ivec2(floor(t));
  vec2 f = t - floor(t);
  vec4 light[4];
  float weight[4], gap[4];
  bool same = true;
  int nearest = 0;
  for (int k = 0; k < 4; ++k) {
    ivec2 q = clamp(base + ivec2(k & 1, k >> 1), ivec2(0), size - 1);
    light[k] = texelFetch(u_low, q, 0);
    gap[k] = abs(metres(texelFetch(u_low_depth, q, 0).r) - z);
    weight[k] = ((k & 1) == 1 ? f.x : 1.0 - f.x) * ((k >> 1) == 1 ? f.y : 1.0 - f.y);
    same = same && gap[k] <= 0.05 * z;
    if (gap[k] < gap[nearest]) nearest = k;
  }
  return same ? light[0] * weight[0] + light[1] * weight[1] + light[2] * weight[2] + light[3] * weight[3]
                   : light[nearest];
}
)";

GlTexture texture_2d(GLenum format, int width, int height, GLenum filter) {
  GlTexture texture(gl_gen(glGenTextures));
  glBindTexture(GL_TEXTURE_2D, texture.get());
  glTexStorage2D(GL_TEXTURE_2D, 1, format, width, height);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

void check_complete(const char* what) {
  if (const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER); status != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::no_gl, fmt::format("the GL cannot make {} (framebuffer status 0x{:x})", what, status));
}
}  // namespace

ReducedResolutionTarget::ReducedResolutionTarget()
    : over_(kUpsample) {}

void ReducedResolutionTarget::allocate(int width, int height) {
  width_ = width;
  height_ = height;
  // The frame's depth format (render/frame_target.cpp): blits copy depth only between equal formats.
  depth_ = texture_2d(GL_DEPTH_COMPONENT24, width, height, GL_NEAREST);
  depth_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, depth_fbo_.get());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth_.get(), 0);
  glDrawBuffer(GL_NONE);
  glReadBuffer(GL_NONE);
  check_complete("the frame's depth for the half-size sprites");
  const int w = reduced(width), h = reduced(height);
  low_colour_ = texture_2d(GL_RGBA32F, w, h, GL_NEAREST);
  low_depth_ = texture_2d(GL_DEPTH_COMPONENT24, w, h, GL_NEAREST);
  low_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, low_fbo_.get());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, low_colour_.get(), 0);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, low_depth_.get(), 0);
  check_complete(fmt::format("a {}×{} target for half-size sprites", w, h).c_str());
  check_gl(fmt::format("allocating the {}×{} target for half-size sprites", w, h));
}

void ReducedResolutionTarget::begin(GLuint frame, int width, int height) {
  if (width != width_ || height != height_) allocate(width, height);
  const int w = reduced(width), h = reduced(height);
  // The frame's samples resolve to one (a multisampled blit takes depth as it
  // is: an equal-size copy), then point sampled to half size.
  glBindFramebuffer(GL_READ_FRAMEBUFFER, frame);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, depth_fbo_.get());
  glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_DEPTH_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, depth_fbo_.get());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, low_fbo_.get());
  glBlitFramebuffer(0, 0, width, height, 0, 0, w, h, GL_DEPTH_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, low_fbo_.get());
  glViewport(0, 0, w, h);
  const GLfloat clear[4] = {0, 0, 0, 0};
  glClearBufferfv(GL_COLOR, 0, clear);
  check_gl("starting the half-size sprites");
}

void ReducedResolutionTarget::composite(GLuint frame, float near_plane, float far_plane) {
  glBindFramebuffer(GL_FRAMEBUFFER, frame);
  glViewport(0, 0, width_, height_);
  over_.composite([&](const GlProgram& program) {
    const auto bind = [&](GLuint unit, const GlTexture& texture, const char* name) {
      glActiveTexture(GL_TEXTURE0 + unit);
      glBindTexture(GL_TEXTURE_2D, texture.get());
      glUniform1i(uniform(program, name), GLint(unit));
    };
    bind(0, low_colour_, "u_low");
    bind(1, low_depth_, "u_low_depth");
    bind(2, depth_, "u_depth");
    glActiveTexture(GL_TEXTURE0);
    glUniform2f(uniform(program, "u_scale"), float(reduced(width_)) / float(width_),
                float(reduced(height_)) / float(height_));
    glUniform2f(uniform(program, "u_near_far"), near_plane, far_plane);
  });
  check_gl("compositing the half-size sprites");
}

}  // namespace fxsim
