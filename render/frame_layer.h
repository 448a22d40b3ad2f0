#pragma once
// What the rasterisers that draw a batch outside GL's pipeline (the compute
// rasteriser and the CPU's) share with the frame: its multisampling, read
// from the bound draw framebuffer, and the layer a batch is drawn into, put
// "over" the frame.
#include <vector>

#include <glm/vec2.hpp>

#include "render/gl_objects.h"
#include "render/over_frame.h"

namespace fxsim {

struct BoundFrameSamples {
  std::vector<glm::vec2> positions;  // within the pixel, one per sample
  bool clamped = false;              // a fixed-point frame: GL clamps each fragment's colour to [0, 1]
};
BoundFrameSamples bound_frame_samples();

// A premultiplied RGBA32F layer the size of the frame: (colour, coverage) per pixel.
class FrameLayer {
 public:
  FrameLayer();
  // Its texture, width × height (made again when the size changes).
  GLuint texture(int width, int height);
  // Its light "over" the bound draw framebuffer (what drawing its sprites
  // there in order gives: "over" is associative; additive light has coverage 0).
  void composite_over_frame();

 private:
  GlTexture texture_;
  int width_ = 0, height_ = 0;
  OverFrame over_;
};

}  // namespace fxsim
