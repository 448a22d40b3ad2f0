#pragma once
// A batch the compute rasteriser (render/compute_rasteriser.h) draws in
// parts, its newest part first: the light gathered in front and the light
// from behind still let through, per pixel; the tiles that let (nearly)
// nothing more through, whose pairs the parts behind them leave out; and,
// once every part is in, the whole "over" the frame.
//
// Drawn oldest first, each part's layer went over the frame, and every part
// was blended whole. Front to back, a part behind pixels already opaque is
// skipped there, and a tile opaque all over costs it no pairs: a billion
// rain streaks at 1080p are 119 parts, and the first few cover the frame.
// "Over" is associative, so the sum is the same light, summed in float
// instead of in the frame's format after each part.
#include <cstddef>

#include "render/compute.h"
#include "render/frame_layer.h"
#include "render/gl_objects.h"

namespace fxsim {

// A pixel lets nothing more through once less than this share of the light
// behind it does (the blend stops there: render/compute_rasteriser.cpp).
constexpr const char* kOpaqueBelowGlsl = "(1.0 / 4096.0)";

class PartsFrontToBack {
 public:
  static constexpr int kTile = 16;  // pixels a side of a tile: the compute rasteriser's
  PartsFrontToBack();
  // Nothing carried yet (no light gathered, all of it let through), for a
  // frame of width × height.
  void begin(int width, int height);
  // Per pixel (colour gathered, coverage) as a layer, RGBA32F: the blend
  // reads the coverage to stop where the parts in front turned the pixel opaque.
  GLuint texture() { return carried_.texture(width_, height_); }
  // Whether a part has been added: the blend of the front part reads nothing.
  bool started() const { return !first_; }
  // A word a tile, row by row: 0 where every pixel lets less than
  // kOpaqueBelowGlsl through (meaningful once a part is in: started()).
  const DeviceBuffer& open() const { return open_; }
  // A part's layer (premultiplied colour, coverage) put behind what is
  // carried; the open tiles found again.
  void add_behind(GLuint layer);
  // What is carried "over" the bound draw framebuffer.
  void composite_over_frame() { carried_.composite_over_frame(); }

 private:
  FrameLayer carried_;
  int width_ = 0, height_ = 0;
  size_t tiles_ = 0;
  bool first_ = true;
  DeviceBuffer open_;
  ComputeKernel behind_;
};

}  // namespace fxsim
