#include "render/frame_target.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "core/exit_codes.h"
#include "core/tone.h"
#include "render/gl_checks.h"
#include "render/shader.h"

namespace fxsim {

void check_image_size(int width, int height) {
  // The largest image is the smallest of the GL's limits on what it can draw into.
  GLint renderbuffer = 0, viewport[2] = {0, 0}, framebuffer_width = 0, framebuffer_height = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &framebuffer_width);
  glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &framebuffer_height);
  const auto limit = [](GLint v, GLint fallback) { return v > 0 ? v : fallback; };
  const GLint max_width = std::min({limit(renderbuffer, 4096), limit(viewport[0], 4096), limit(framebuffer_width, 1 << 30)});
  const GLint max_height = std::min({limit(renderbuffer, 4096), limit(viewport[1], 4096), limit(framebuffer_height, 1 << 30)});
  if (width > max_width || height > max_height)
    throw FxError(ExitCode::invalid_scene,
                  fmt::format("{}×{} is larger than this GL can draw: at most {}×{} pixels (GL_MAX_RENDERBUFFER_SIZE "
                              "{}, GL_MAX_VIEWPORT_DIMS {}×{}); lower output.width/height or --width/--height",
                              width, height, max_width, max_height, renderbuffer, viewport[0], viewport[1]));
}

namespace {
// A kernel can write the frame's colour: a multisampled float format (image
// stores have no sRGB; a frame of one sample stays a renderbuffer, which
// llvmpipe resolved without the kernel's values) where the GL has compute
// shaders and multisampled images of as many samples.
bool kernels_can_clear(TargetFormat format, int samples) {
  if (format != TargetFormat::float32 || samples < 2 || epoxy_gl_version() < 43) return false;
  GLint image_samples = 0;
  glGetIntegerv(GL_MAX_IMAGE_SAMPLES, &image_samples);
  return image_samples >= samples;
}

// An image too large in bytes for the GL: the scene's size is the problem, not the GL.
FxError image_too_large(int width, int height, int samples, TargetFormat format, const std::string& how) {
  const size_t sample_bytes = (format == TargetFormat::float32 ? 16 : 4) + 4;  // colour and depth
  return FxError(ExitCode::invalid_scene,
                 fmt::format("the GL cannot make a {}×{} image with {} samples per pixel ({} MB; {}): lower the image "
                             "size or output.samples",
                             width, height, samples,
                             size_t(width) * size_t(height) * size_t(samples) * sample_bytes / 1000000, how));
}

// Every sample of the frame's colour to u_colour.
constexpr const char* kClearKernel = R"(#version 430
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform writeonly image2DMS u_frame;
uniform vec4 u_colour;
uniform ivec2 u_size;
uniform int u_samples;
void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (pixel.x >= u_size.x || pixel.y >= u_size.y) return;
  for (int s = 0; s < u_samples; ++s) imageStore(u_frame, pixel, s, u_colour);
}
)";

// Counts the resolved frame's pixels with a NaN or infinity into bad[u_slot].
constexpr const char* kFiniteKernel = R"(#version 430
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform readonly image2D u_frame;
layout(std430, binding = 0) buffer Counts { uint bad[]; };
uniform ivec2 u_size;
uniform int u_slot;
void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (pixel.x >= u_size.x || pixel.y >= u_size.y) return;
  vec4 c = imageLoad(u_frame, pixel);
  if (any(isnan(c)) || any(isinf(c))) atomicAdd(bad[u_slot], 1u);
}
)";
}  // namespace

FrameTarget::FrameTarget(int width, int height, int samples, TargetFormat format, bool opaque,
                         const FrameGrading& grading)
    : width_(width), height_(height), format_(format), opaque_(opaque), grading_(grading) {
  if (format != TargetFormat::float32 && (grading.on_gpu() || grading.tone != OutputSettings::Tone::clip))
    throw FxError(ExitCode::internal, "grading needs a float frame target");
  const GLenum color_format = format == TargetFormat::float32 ? GL_RGBA32F : GL_SRGB8_ALPHA8;
  check_image_size(width, height);
  GLint max_samples = 1;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples = std::min(samples, int(max_samples));
  samples_ = samples;
  // One sample is a single-sampled image: storage of 1 sample is a request
  // for the least the GL multisamples with (llvmpipe: 4), and samples 1 gave
  // 4-sample edges that no single-sampled mask matched.
  const GLsizei storage_samples = samples <= 1 ? 0 : samples;
  if (kernels_can_clear(format, samples)) {
    color_texture_ = GlTexture(gl_gen(glGenTextures));
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, color_texture_.get());
    glTexStorage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, samples, color_format, width, height, GL_TRUE);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, 0);
    // Where a renderbuffer's storage leaves the framebuffer incomplete, a
    // texture's is refused at once as out of memory (llvmpipe, 16384×16384
    // with 4 samples): the image's message, not check_gl's general one.
    try {
      check_gl("allocating the frame's colour");
    } catch (const FxError& error) {
      if (error.code() != ExitCode::invalid_scene) throw;
      throw image_too_large(width, height, samples, format, "the GL ran out of memory");
    }
  } else {
    color_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
    glBindRenderbuffer(GL_RENDERBUFFER, color_.get());
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, storage_samples, color_format, width, height);
  }
  depth_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
  glBindRenderbuffer(GL_RENDERBUFFER, depth_.get());
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, storage_samples, GL_DEPTH_COMPONENT24, width, height);
  draw_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_.get());
  if (color_texture_.get())
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D_MULTISAMPLE, color_texture_.get(), 0);
  else
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_.get());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_.get());
  check_gl(fmt::format("allocating the {}×{} image with {} samples per pixel", width, height, samples));
  // Within the size limits a GL can still refuse a buffer that is too large in
  // bytes (llvmpipe: 16384×16384 with 4 samples is 4 GiB): the image, not the GL, is the problem.
  if (const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER); status != GL_FRAMEBUFFER_COMPLETE)
    throw image_too_large(width, height, samples, format, fmt::format("framebuffer status 0x{:x}, incomplete", status));
  // What the GL made: a count it has not is rounded up to one it has (llvmpipe: 2 -> 4).
  GLint made = 0;
  glGetIntegerv(GL_SAMPLES, &made);
  samples_ = std::max(int(made), 1);

  resolve_fbo_ = GlFramebuffer(gl_gen(glGenFramebuffers));
  if (grading.on_gpu()) {  // the grading samples the resolved frame: a texture
    resolved_texture_ = half_float_texture(width, height, color_format);  // a resolve keeps the format
    glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo_.get());
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, resolved_texture_.get(), 0);
  } else {
    resolved_ = GlRenderbuffer(gl_gen(glGenRenderbuffers));
    glBindRenderbuffer(GL_RENDERBUFFER, resolved_.get());
    glRenderbufferStorage(GL_RENDERBUFFER, color_format, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, resolve_fbo_.get());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, resolved_.get());
  }
  check_gl(fmt::format("allocating the {}×{} resolved image", width, height));
  if (const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER); status != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::invalid_scene, fmt::format("the GL cannot make a {}×{} image (framebuffer status 0x{:x}, "
                                                       "incomplete): lower the image size", width, height, status));
  if (grading.on_gpu()) grade_ = std::make_unique<GradePass>(width, height, grading);
}

void FrameTarget::bind_for_drawing() const {
  glBindFramebuffer(GL_FRAMEBUFFER, draw_fbo_.get());
  if (const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER); status != GL_FRAMEBUFFER_COMPLETE)
    throw FxError(ExitCode::no_gl, fmt::format("the frame's framebuffer became incomplete (status 0x{:x})", status));
  glViewport(0, 0, width_, height_);
  glEnable(GL_FRAMEBUFFER_SRGB);
}

// NVIDIA's GL clears a multisampled float frame at its few raster units'
// pace (H200, 1920×1080 with 4 samples: 3.1 ms); a kernel writes the same
// values at memory speed (0.64 ms).
void FrameTarget::clear(const glm::vec4& colour) {
  glClearDepth(1.0);
  glDepthMask(GL_TRUE);
  if (!color_texture_.get()) {
    glClearColor(colour.r, colour.g, colour.b, colour.a);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    return;
  }
  glClear(GL_DEPTH_BUFFER_BIT);
  if (!clear_program_.get()) clear_program_ = link_compute_program(kClearKernel);
  glUseProgram(clear_program_.get());
  glUniform4f(uniform(clear_program_, "u_colour"), colour.r, colour.g, colour.b, colour.a);
  glUniform2i(uniform(clear_program_, "u_size"), width_, height_);
  glUniform1i(uniform(clear_program_, "u_samples"), samples_);
  glBindImageTexture(0, color_texture_.get(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
  glDispatchCompute(GLuint((width_ + 15) / 16), GLuint((height_ + 15) / 16), 1);
  glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT);
}

FrameTarget::~FrameTarget() {
  for (const PendingRead& r : pending_) glDeleteSync(r.fence);
}

void FrameTarget::start_read() {
  if (pending_.size() >= kReadsInFlight)
    throw FxError(ExitCode::internal, "more frame read-backs started than the pixel buffers hold");
  glBindFramebuffer(GL_READ_FRAMEBUFFER, draw_fbo_.get());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_.get());
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  const size_t buffer = next_buffer_;
  if (checks_finite()) count_non_finite(buffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, grade_ ? grade_->apply(resolved_texture_.get()) : resolve_fbo_.get());
  const size_t bytes = size_t(width_) * size_t(height_) * pixel_bytes();
  if (pixel_buffers_.empty()) {
    for (size_t i = 0; i < kReadsInFlight; ++i) {
      pixel_buffers_.emplace_back(gl_gen(glGenBuffers));
      glBindBuffer(GL_PIXEL_PACK_BUFFER, pixel_buffers_.back().get());
      glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
    }
    check_gl(fmt::format("allocating {} pixel buffers of {}×{}", kReadsInFlight, width_, height_));
  }
  next_buffer_ = (next_buffer_ + 1) % kReadsInFlight;
  glBindBuffer(GL_PIXEL_PACK_BUFFER, pixel_buffers_[buffer].get());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, reads_linear() ? GL_FLOAT : GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  check_gl("starting the frame's read-back");
  glFlush();  // the copy starts now, not at the next wait
  pending_.push_back({buffer, fence});
}

bool FrameTarget::checks_finite() const {
  return !reads_linear() && resolved_texture_.get() && epoxy_gl_version() >= 43;
}

void FrameTarget::count_non_finite(size_t slot) {
  if (!finite_program_.get()) {
    finite_program_ = link_compute_program(kFiniteKernel);
    non_finite_counts_ = GlBuffer(gl_gen(glGenBuffers));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, non_finite_counts_.get());
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(kReadsInFlight * sizeof(GLuint)), nullptr, GL_DYNAMIC_READ);
  }
  const GLuint zero = 0;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, non_finite_counts_.get());
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(slot * sizeof(GLuint)), sizeof(GLuint), &zero);
  glUseProgram(finite_program_.get());
  glUniform2i(uniform(finite_program_, "u_size"), width_, height_);
  glUniform1i(uniform(finite_program_, "u_slot"), GLint(slot));
  glBindImageTexture(0, resolved_texture_.get(), 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, non_finite_counts_.get());
  glDispatchCompute(GLuint((width_ + 15) / 16), GLuint((height_ + 15) / 16), 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  glUseProgram(0);
  check_gl("checking the frame for non-finite pixels");
}

Image FrameTarget::read() {
  start_read();
  return finish_read().image;
}

RenderedFrame FrameTarget::finish_read() {
  if (pending_.empty()) throw FxError(ExitCode::internal, "no frame read-back was started");
  const PendingRead read = pending_.front();
  pending_.pop_front();
  // The wait is in one-second steps: see wait_for_gl on NVIDIA's silent zeros.
  wait_for_fence(read.fence, "drawing the frame");
  RenderedFrame frame;
  const size_t row = size_t(width_) * pixel_bytes(), pixels = size_t(width_) * size_t(height_);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, pixel_buffers_[read.buffer].get());
  const auto* mapped =
      static_cast<const uint8_t*>(glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(row * size_t(height_)), GL_MAP_READ_BIT));
  if (mapped) {
    // GL's rows run bottom to top; images' top to bottom.
    if (reads_linear()) {
      frame.linear = LinearImage{width_, height_, std::vector<float>(pixels * 4)};
      for (int y = 0; y < height_; ++y)
        std::memcpy(frame.linear->rgba.data() + size_t(y) * size_t(width_) * 4, mapped + size_t(height_ - 1 - y) * row, row);
    } else {
      frame.image = Image{width_, height_, std::vector<uint8_t>(pixels * 4)};
      for (int y = 0; y < height_; ++y) std::memcpy(frame.image.rgba.data() + size_t(y) * row, mapped + size_t(height_ - 1 - y) * row, row);
    }
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  check_gl("reading the frame back");
  if (!mapped) throw FxError(ExitCode::no_gl, "the GL could not map the frame's pixel buffer; nothing was written for it");
  if (checks_finite()) {  // the fence has passed: the count is there
    GLuint bad = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, non_finite_counts_.get());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr(read.buffer * sizeof(GLuint)), sizeof(GLuint), &bad);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    check_gl("reading the frame's count of non-finite pixels");
    if (bad > 0)
      throw FxError(ExitCode::no_gl, fmt::format("the GL drew {} {} not finite (NaN or infinity) in the frame; "
                                                 "nothing was written for it",
                                                 bad, bad == 1 ? "pixel that is" : "pixels that are"));
  }
  if (frame.linear) {
    // A NaN or infinity would travel silently into an EXR: refused.
    size_t bad = 0;
    for (const float v : frame.linear->rgba) bad += !std::isfinite(v);
    if (bad > 0)
      throw FxError(ExitCode::no_gl, fmt::format("the GL returned {} non-finite samples (NaN or infinity) in the frame; "
                                                 "nothing was written for it", bad));
    frame.image = to_straight_srgb8(grading_.tone == OutputSettings::Tone::filmic ? tone_mapped(*frame.linear)
                                                                                  : *frame.linear);
  }
  if (!opaque_) return frame;
  // An opaque image: the background is cleared opaque and blending keeps it
  // so. The buffer starts at zero, so a read-back that did not happen (or a
  // frame that was never drawn) shows as transparent pixels: refused.
  size_t unread = 0;
  for (size_t i = 3; i < frame.image.rgba.size(); i += 4) {
    unread += frame.image.rgba[i] < 128;
    frame.image.rgba[i] = 255;
  }
  if (frame.linear)
    for (size_t i = 3; i < frame.linear->rgba.size(); i += 4) frame.linear->rgba[i] = 1.0f;
  if (unread > 0)
    throw FxError(ExitCode::no_gl, fmt::format("the GL returned an image with {} of {} pixels never drawn; nothing was "
                                               "written for it", unread, pixels));
  return frame;
}

}  // namespace fxsim
