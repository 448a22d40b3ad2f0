#pragma once
// The offscreen image: a multisampled sRGB colour buffer with depth, resolved
// into a single-sample sRGB buffer and read back as 8-bit RGBA. Blending
// happens in linear light (GL_FRAMEBUFFER_SRGB); the bytes read back are sRGB.
#include "render/gl_objects.h"
#include "core/image.h"

namespace fxsim {

// Throws FxError(invalid_scene) naming the GL's limit when it cannot draw an
// image of this size.
void check_image_size(int width, int height);

class FrameTarget {
 public:
  FrameTarget(int width, int height, int samples);
  void bind_for_drawing() const;
  // Resolves the samples and reads the image (top row first).
  Image read() const;
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_, height_;
  GlRenderbuffer color_, depth_, resolved_;
  GlFramebuffer draw_fbo_, resolve_fbo_;
};

}  // namespace fxsim
