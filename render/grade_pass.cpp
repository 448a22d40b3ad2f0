#include "render/grade_pass.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "render/frame_target.h"
#include "render/gl_checks.h"
#include "render/shader.h"

namespace fxsim {

namespace {
// A level from the one above: four bilinear taps, the mean of 4×4 texels;
// from the frame itself, only the light above the threshold.
constexpr const char* kDownShader = R"(#version 330 core
uniform sampler2D u_source;
uniform vec2 u_target_size;
uniform float u_threshold;  // < 0: no threshold (a level of the pyramid)
out vec4 out_color;
vec3 bright(vec3 c) {
  if (u_threshold < 0.0) return c;
  float l = max(c.r, max(c.g, c.b));
  return l > 0.0 ? c * (max(l - u_threshold, 0.0) / l) : vec3(0.0);
}
void main() {
  vec2 uv = gl_FragCoord.xy / u_target_size;
  vec2 t = 0.25 / u_target_size;  // a quarter of a target texel: a source texel's half-width at 2× size
  vec3 sum = bright(texture(u_source, uv + vec2(-t.x, -t.y)).rgb) + bright(texture(u_source, uv + vec2(t.x, -t.y)).rgb) +
             bright(texture(u_source, uv + vec2(-t.x, t.y)).rgb) + bright(texture(u_source, uv + vec2(t.x, t.y)).rgb);
  out_color = vec4(sum * 0.25, 1.0);
}
)";

// The next smaller level, tent-filtered (nine bilinear taps), added to this one.
constexpr const char* kUpShader = R"(#version 330 core
uniform sampler2D u_source;
uniform vec2 u_target_size;
out vec4 out_color;
void main() {
  vec2 uv = gl_FragCoord.xy / u_target_size;
  vec2 t = 1.0 / u_target_size;
  vec3 sum = 4.0 * texture(u_source, uv).rgb;
  sum += 2.0 * (texture(u_source, uv + vec2(t.x, 0.0)).rgb + texture(u_source, uv - vec2(t.x, 0.0)).rgb +
                texture(u_source, uv + vec2(0.0, t.y)).rgb + texture(u_source, uv - vec2(0.0, t.y)).rgb);
  sum += texture(u_source, uv + t).rgb + texture(u_source, uv - t).rgb + texture(u_source, uv + vec2(t.x, -t.y)).rgb +
         texture(u_source, uv + vec2(-t.x, t.y)).rgb;
  out_color = vec4(sum / 16.0, 1.0);
}
)";

constexpr const char* kCompositeShader = R"(#version 330 core
uniform sampler2D u_frame;
uniform sampler2D u_bloom;
uniform vec2 u_target_size;
uniform float u_strength;  // strength / levels (the pyramid sums its levels)
uniform float u_gain;      // 2^exposure
uniform bool u_filmic;     // the display image through core/tone.h's curve (opaque: straight = premultiplied)
out vec4 out_color;
vec3 filmic(vec3 x) {
  x = max(x, vec3(0.0));
  return clamp(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}
void main() {
  vec4 c = texelFetch(u_frame, ivec2(gl_FragCoord.xy), 0);
  vec3 bloom = u_strength > 0.0 ? texture(u_bloom, gl_FragCoord.xy / u_target_size).rgb : vec3(0.0);
  vec3 graded = (c.rgb + u_strength * bloom) * u_gain;
  out_color = vec4(u_filmic ? filmic(graded) : graded, c.a);
}
)";

}  // namespace

GlTexture half_float_texture(int width, int height, GLenum format) {
  GlTexture texture(gl_gen(glGenTextures));
  glBindTexture(GL_TEXTURE_2D, texture.get());
  glTexImage2D(GL_TEXTURE_2D, 0, GLint(format), width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

namespace {
GlFramebuffer framebuffer_of(const GlTexture& texture) {
  GlFramebuffer fbo(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, fbo.get());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.get(), 0);
  return fbo;
}

void draw_into(GLuint fbo, int width, int height) {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, width, height);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}
}  // namespace

GradePass::GradePass(int width, int height, const FrameGrading& grading)
    : width_(width), height_(height), gain_(std::exp2(grading.exposure)), bloom_(grading.bloom),
      display_(grading.display8), filmic_(grading.display8 && grading.tone == OutputSettings::Tone::filmic) {
  down_ = link_program(kFullScreenTriangleVertex, kDownShader);
  up_ = link_program(kFullScreenTriangleVertex, kUpShader);
  composite_ = link_program(kFullScreenTriangleVertex, kCompositeShader);
  vao_ = GlVertexArray(gl_gen(glGenVertexArrays));
  if (bloom_ && bloom_->strength > 0) {
    // Each level doubles the reach: log2 of the radius in pixels, at least one, while a level is 2 pixels or more.
    const float reach = std::max(2.0f, bloom_->radius * float(height));
    const int wanted = std::clamp(int(std::lround(std::log2(reach))), 1, 12);
    int w = width, h = height;
    for (int i = 0; i < wanted && w >= 4 && h >= 4; ++i) {
      w /= 2;
      h /= 2;
      GlTexture texture = half_float_texture(w, h);
      GlFramebuffer fbo = framebuffer_of(texture);
      levels_.push_back({w, h, std::move(texture), std::move(fbo)});
    }
  }
  if (display_) {  // written through GL_FRAMEBUFFER_SRGB: linear light in, sRGB bytes stored
    graded_ = GlTexture(gl_gen(glGenTextures));
    glBindTexture(GL_TEXTURE_2D, graded_.get());
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  } else {
    graded_ = half_float_texture(width, height);
  }
  graded_fbo_ = framebuffer_of(graded_);
  check_gl(fmt::format("allocating the {}×{} grading images ({} bloom levels)", width, height, levels_.size()));
}

GLuint GradePass::apply(GLuint frame) {
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glDepthMask(GL_FALSE);
  glBindVertexArray(vao_.get());
  glActiveTexture(GL_TEXTURE0);
  if (!levels_.empty()) {
    glUseProgram(down_.get());
    glUniform1i(uniform(down_, "u_source"), 0);
    for (size_t i = 0; i < levels_.size(); ++i) {
      glBindTexture(GL_TEXTURE_2D, i == 0 ? frame : levels_[i - 1].texture.get());
      glUniform2f(uniform(down_, "u_target_size"), float(levels_[i].width), float(levels_[i].height));
      glUniform1f(uniform(down_, "u_threshold"), i == 0 ? bloom_->threshold : -1.0f);
      draw_into(levels_[i].fbo.get(), levels_[i].width, levels_[i].height);
    }
    glUseProgram(up_.get());
    glUniform1i(uniform(up_, "u_source"), 0);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    for (size_t i = levels_.size() - 1; i-- > 0;) {
      glBindTexture(GL_TEXTURE_2D, levels_[i + 1].texture.get());
      glUniform2f(uniform(up_, "u_target_size"), float(levels_[i].width), float(levels_[i].height));
      draw_into(levels_[i].fbo.get(), levels_[i].width, levels_[i].height);
    }
    glDisable(GL_BLEND);
  }
  glUseProgram(composite_.get());
  glBindTexture(GL_TEXTURE_2D, frame);
  glUniform1i(uniform(composite_, "u_frame"), 0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, levels_.empty() ? frame : levels_[0].texture.get());
  glUniform1i(uniform(composite_, "u_bloom"), 1);
  glActiveTexture(GL_TEXTURE0);
  glUniform2f(uniform(composite_, "u_target_size"), float(width_), float(height_));
  glUniform1f(uniform(composite_, "u_strength"), levels_.empty() ? 0.0f : bloom_->strength / float(levels_.size()));
  glUniform1f(uniform(composite_, "u_gain"), gain_);
  glUniform1i(uniform(composite_, "u_filmic"), filmic_);
  glEnable(GL_FRAMEBUFFER_SRGB);
  draw_into(graded_fbo_.get(), width_, height_);
  glBindVertexArray(0);
  glDepthMask(GL_TRUE);
  check_gl("grading the frame (bloom, exposure)");
  return graded_fbo_.get();
}

}  // namespace fxsim
