#pragma once
// The offscreen image: a multisampled colour buffer with depth, resolved into
// a single-sample one and read back. Frames are drawn in 32-bit float linear
// light (renderer.cpp says why); an 8-bit display image is graded and
// sRGB-encoded on the GPU and read back as 8 bits. The sRGB8 format remains
// for the GL tests' small targets.
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/scene.h"
#include <glm/vec4.hpp>

#include "render/gl_objects.h"
#include "render/grade_pass.h"
#include "core/image.h"

namespace fxsim {

// Throws FxError(invalid_scene) naming the GL's limit when it cannot draw an
// image of this size.
void check_image_size(int width, int height);

// Read-back is asynchronous: start_read() resolves the samples and queues a
// copy into a pixel buffer with a fence, so the GPU goes on to the next frame
// while this one travels; finish_read() waits for the oldest such copy and
// returns its image. At most kReadsInFlight reads are outstanding.
// The frame as read back: 8-bit sRGB (straight alpha), and with a float
// target also the linear, premultiplied image it came from.
// Ground-truth layers of a frame, one float a pixel, rows top to bottom.
// Screen-space motion since the previous frame, pixels per frame (x right,
// y down), the coverage-weighted mean of the particles over each pixel; 0
// where none with a previous position covers it (coverage 0).
struct MotionLayer {
  std::vector<float> x, y, coverage;
};
struct FrameLayers {
  std::optional<std::vector<float>> depth;  // metres along the view; +infinity where no particle covers
  std::vector<std::pair<std::string, std::vector<float>>> masks;  // (emitter name, coverage 0..1)
  std::optional<MotionLayer> motion;
  bool empty() const { return !depth && masks.empty() && !motion; }
};

struct RenderedFrame {
  Image image;
  std::optional<LinearImage> linear;
  FrameLayers layers;
};

enum class TargetFormat {
  srgb8,   // 8-bit sRGB, blending in linear light (GL_FRAMEBUFFER_SRGB)
  float32  // 32-bit float, linear: every frame fxsim renders
};

// What happens to the light between the drawing and the image (float
// targets only): bloom and exposure on the GPU (render/grade_pass.h), the
// tone curve on the way to the display image (core/tone.h).
struct FrameGrading {
  float exposure = 0;  // stops
  std::optional<OutputSettings::Bloom> bloom;
  OutputSettings::Tone tone = OutputSettings::Tone::clip;
  // Only an opaque 8-bit display image is wanted (8-bit PNG, video): the GPU
  // tone maps and encodes it, and only its 8 bits are read back.
  bool display8 = false;
  bool on_gpu() const {
    return exposure != 0 || (bloom && bloom->strength > 0) || display8;
  }
};

class FrameTarget {
 public:
  static constexpr size_t kReadsInFlight = 3;
  // `opaque`: the background is opaque, so every pixel read back must be
  // covered (a read-back that did not happen shows as transparent pixels).
  FrameTarget(int width, int height, int samples, TargetFormat format = TargetFormat::srgb8, bool opaque = true,
              const FrameGrading& grading = {});
  ~FrameTarget();
  void bind_for_drawing() const;
  // Sets every sample of the bound frame to `colour` (premultiplied, linear)
  // and its depth to the far plane's.
  void clear(const glm::vec4& colour);
  bool clears_with_kernel() const { return color_texture_.get() != 0; }
  void start_read();
  size_t reads_pending() const { return pending_.size(); }
  // The oldest started read's frame (top row first). Refuses (no_gl) an
  // opaque image with pixels never drawn.
  RenderedFrame finish_read();
  // start_read() then finish_read()'s 8-bit image.
  Image read();
  // Samples per pixel as the GL made them (a count it has not is rounded up
  // to one it has; more than it has, down to its most).
  int samples() const { return samples_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  struct PendingRead {
    size_t buffer;  // index into pixel_buffers_
    GLsync fence;
  };
  // Whether the read-back is the linear half-float frame (else 8-bit sRGB).
  bool reads_linear() const { return format_ == TargetFormat::float32 && !(grade_ && grading_.display8); }
  size_t pixel_bytes() const { return reads_linear() ? 16 : 4; }
  bool checks_finite() const;
  void count_non_finite(size_t slot);

  int width_, height_;
  TargetFormat format_;
  bool opaque_;
  int samples_;
  GlRenderbuffer color_, depth_, resolved_;
  // A float frame's colour where kernels can write it (instead of color_):
  // clear() fills it with a kernel.
  GlTexture color_texture_;
  GlProgram clear_program_;
  GlTexture resolved_texture_;  // instead of resolved_ when graded on the GPU
  GlFramebuffer draw_fbo_, resolve_fbo_;
  FrameGrading grading_;
  std::unique_ptr<GradePass> grade_;
  // An 8-bit read-back cannot show a NaN or infinity (it comes back black or
  // white): where the frame is graded to 8 bits on the GPU, a kernel counts
  // the resolved frame's non-finite pixels into a slot a pixel buffer.
  GlProgram finite_program_;
  GlBuffer non_finite_counts_;
  std::vector<GlBuffer> pixel_buffers_;
  size_t next_buffer_ = 0;
  std::deque<PendingRead> pending_;
};

}  // namespace fxsim
