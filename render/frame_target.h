#pragma once
// The offscreen image: a multisampled sRGB colour buffer with depth, resolved
// into a single-sample sRGB buffer and read back as 8-bit RGBA. Blending
// happens in linear light (GL_FRAMEBUFFER_SRGB); the bytes read back are sRGB.
#include <deque>
#include <vector>

#include "render/gl_objects.h"
#include "core/image.h"

namespace fxsim {

// Throws FxError(invalid_scene) naming the GL's limit when it cannot draw an
// image of this size.
void check_image_size(int width, int height);

// Read-back is asynchronous: start_read() resolves the samples and queues a
// copy into a pixel buffer with a fence, so the GPU goes on to the next frame
// while this one travels; finish_read() waits for the oldest such copy and
// returns its image. At most kReadsInFlight reads are outstanding.
class FrameTarget {
 public:
  static constexpr size_t kReadsInFlight = 3;
  FrameTarget(int width, int height, int samples);
  ~FrameTarget();
  void bind_for_drawing() const;
  void start_read();
  size_t reads_pending() const { return pending_.size(); }
  // The oldest started read's image (top row first). Refuses (no_gl) an image
  // with pixels never drawn.
  Image finish_read();
  // start_read() then finish_read().
  Image read();
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  struct PendingRead {
    size_t buffer;  // index into pixel_buffers_
    GLsync fence;
  };
  int width_, height_;
  GlRenderbuffer color_, depth_, resolved_;
  GlFramebuffer draw_fbo_, resolve_fbo_;
  std::vector<GlBuffer> pixel_buffers_;
  size_t next_buffer_ = 0;
  std::deque<PendingRead> pending_;
};

}  // namespace fxsim
