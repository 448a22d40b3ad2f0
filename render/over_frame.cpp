#include "render/over_frame.h"

#include <array>
#include <optional>

#include "render/shader.h"

namespace fxsim {

namespace {
constexpr const char* kFragmentMain = R"(
out vec4 out_color;
void main() { out_color = layer_colour(gl_FragCoord.xy); }
)";

// GL blending's sum, src · 1 + dst · (1 − src.a), with the product rounded
// before the sum (precise: no fused multiply-add) as llvmpipe's blending
// rounds it, so its frames are the same bytes both ways. NVIDIA's blending
// fuses the two (H200): a float there can differ in its last place; its 8-bit
// frames of fountain, battlefield, rain and campfire were the same bytes.
constexpr const char* kKernelMain = R"(
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform image2DMS u_frame;
uniform ivec4 u_viewport;  // x, y, width, height
uniform int u_samples;
void main() {
  ivec2 offset = ivec2(gl_GlobalInvocationID.xy);
  if (offset.x >= u_viewport.z || offset.y >= u_viewport.w) return;
  ivec2 pixel = u_viewport.xy + offset;
  vec4 light = layer_colour(vec2(pixel) + 0.5);
  for (int s = 0; s < u_samples; ++s) {
    precise vec4 behind = imageLoad(u_frame, pixel, s) * (1.0 - light.a);
    precise vec4 over = light + behind;
    imageStore(u_frame, pixel, s, over);
  }
}
)";

// The bound draw framebuffer's colour when a kernel can blend it: a
// multisampled texture of 32-bit float RGBA (FrameTarget's float frame).
struct WritableFrame {
  GLuint texture;
  int samples;
};
std::optional<WritableFrame> writable_frame() {
  if (epoxy_gl_version() < 43) return std::nullopt;
  const auto attachment = [](GLenum what) {
    GLint value = 0;
    glGetFramebufferAttachmentParameteriv(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, what, &value);
    return value;
  };
  GLint samples = 0, image_samples = 0;
  glGetIntegerv(GL_SAMPLES, &samples);
  glGetIntegerv(GL_MAX_IMAGE_SAMPLES, &image_samples);
  if (samples < 2 || image_samples < samples || attachment(GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) != GL_TEXTURE ||
      attachment(GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) != GL_FLOAT)
    return std::nullopt;
  for (GLenum size : {GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE, GL_FRAMEBUFFER_ATTACHMENT_GREEN_SIZE,
                      GL_FRAMEBUFFER_ATTACHMENT_BLUE_SIZE, GL_FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE})
    if (attachment(size) != 32) return std::nullopt;
  return WritableFrame{GLuint(attachment(GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME)), int(samples)};
}
}  // namespace

bool OverFrame::uses_kernel() { return writable_frame().has_value(); }

OverFrame::OverFrame(const std::string& layer_glsl)
    : layer_glsl_(layer_glsl), empty_vao_(gl_gen(glGenVertexArrays)) {}

void OverFrame::composite(const std::function<void(const GlProgram&)>& set_uniforms) {
  std::array<GLint, 4> viewport{};
  glGetIntegerv(GL_VIEWPORT, viewport.data());
  glDisable(GL_DEPTH_TEST);
  if (const std::optional<WritableFrame> frame = writable_frame()) {
    if (!kernel_.get()) kernel_ = link_compute_program("#version 430\n" + layer_glsl_ + kKernelMain);
    glUseProgram(kernel_.get());
    set_uniforms(kernel_);
    glUniform4iv(uniform(kernel_, "u_viewport"), 1, viewport.data());
    glUniform1i(uniform(kernel_, "u_samples"), frame->samples);
    glBindImageTexture(0, frame->texture, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);  // after image stores to the frame (FrameTarget's clear)
    glDispatchCompute(GLuint((viewport[2] + 15) / 16), GLuint((viewport[3] + 15) / 16), 1);
    // What reads the frame next: drawing and blits, kernels' image loads.
    glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
    return;
  }
  if (!raster_.get()) raster_ = link_program(kFullScreenTriangleVertex, "#version 330 core\n" + layer_glsl_ + kFragmentMain);
  glUseProgram(raster_.get());
  set_uniforms(raster_);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glBindVertexArray(empty_vao_.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glDisable(GL_BLEND);
}

}  // namespace fxsim
