#pragma once
// Fill-bound sprites (a fountain's mist, fire and smoke puffs, large near
// flakes) drawn off screen at half the frame's resolution and composited back
// (GPU Gems 3, chapter 23, "High-Speed, Off-Screen Particles"): a quarter of
// the fragments for a look that is soft anyway.
//
// begin() copies the depth the frame's occluders (ground, plate) wrote into
// a full-size texture and, point sampled, into the half-size target's depth,
// so the sprites drawn there are hidden as in the frame; it clears the half
// target's light to (0, 0, 0, 0). The sprites are then drawn into it as into
// the frame (premultiplied "over" keeps light and coverage; additive light
// adds no coverage). composite() puts it over the frame, premultiplied "over"
// (which gives what drawing the sprites in order onto the frame gives), with
// a depth-aware upsample: the four nearest half-size texels, bilinear where
// their occluders' depth matches the pixel's, else the texel of nearest depth,
// so a puff behind an edge does not bleed across it.
#include "render/gl_objects.h"
#include "render/over_frame.h"

namespace fxsim {

class ReducedResolutionTarget {
 public:
  ReducedResolutionTarget();
  // The half-size image of a width × height frame (odd sizes round up).
  static int reduced(int size) { return (size + 1) / 2; }
  // `frame`: the frame's framebuffer, bound for drawing, width × height.
  // Leaves the half-size target bound for drawing, its viewport set.
  void begin(GLuint frame, int width, int height);
  // Composites the half-size light over `frame` and leaves `frame` bound with
  // its viewport. near and far: the camera's planes (to compare depths in metres).
  void composite(GLuint frame, float near_plane, float far_plane);

 private:
  void allocate(int width, int height);

  int width_ = 0, height_ = 0;
  GlTexture depth_;                      // the frame's occluders, full size (single-sampled)
  GlTexture low_colour_, low_depth_;     // the half-size target
  GlFramebuffer depth_fbo_, low_fbo_;
  OverFrame over_;
};

}  // namespace fxsim
