#pragma once
// The frame's grading in linear half float, between the resolve and the
// read-back: bloom (output.bloom) and the exposure (camera.exposure):
//   graded = (frame + strength · bloom) · 2^exposure
// into a half-float image, or, when only the display image is wanted
// (FrameGrading::display8), through the tone curve (core/tone.h, copied
// here) into an 8-bit sRGB one.
// Bloom: the light above `threshold` (the pixel's colour scaled by
// max(0, l − threshold) / l, l its brightest channel) blurred by a pyramid of
// halvings (each level the mean of 4×4 texels of the one above) added back up
// with a tent filter, averaged over its levels; the number of levels gives
// its reach, about `radius` × the image height. Alpha is kept.
#include <optional>
#include <vector>

#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {
struct FrameGrading;
}

namespace fxsim {

// A float texture (RGBA16F by default), linear filtering, clamped at the edges.
GlTexture half_float_texture(int width, int height, GLenum format = GL_RGBA16F);

class GradePass {
 public:
  GradePass(int width, int height, const FrameGrading& grading);
  // Grades `frame` (a single-sample RGBA16F texture of this size) into the
  // pass's own image and returns its framebuffer, to read from.
  GLuint apply(GLuint frame);
  int levels() const { return int(levels_.size()); }

 private:
  struct Level {
    int width, height;
    GlTexture texture;
    GlFramebuffer fbo;
  };
  int width_, height_;
  float gain_;
  std::optional<OutputSettings::Bloom> bloom_;
  bool display_, filmic_;
  GlProgram down_, up_, composite_;
  GlVertexArray vao_;
  std::vector<Level> levels_;
  GlTexture graded_;
  GlFramebuffer graded_fbo_;
};

}  // namespace fxsim
