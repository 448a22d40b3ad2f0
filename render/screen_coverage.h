#pragma once
// How much of the frame a batch of sprites covers, measured on the GPU before
// it is drawn: each sprite's quad through the drawing's own vertex code
// (render/sprite_glsl.h: billboards, streaks, the minimum size, the lens),
// its area in pixels within the frame, summed in integers (so the figure is
// the same whatever order the GPU adds in). Batches larger than
// kCoverageSample are measured on every k-th sprite (the same ones every
// time) and scaled: on llvmpipe measuring all of 250 000 sprites took 77 ms,
// a tenth of drawing them. It decides which batches are fill-bound and drawn
// at half resolution (render/reduced_resolution.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "render/compute.h"

namespace fxsim {

struct SpriteCoverage {
  uint64_t pixels = 0;   // Σ of the drawn sprites' areas within the frame
  uint64_t sprites = 0;  // sprites with any area in front of the near plane
};

// A batch is fill-bound when its sprites are large (a mean area of at least
// kFillBoundMeanPixels: 8 × 8 pixels, 4 × 4 at half size, still a soft blob)
// and together cover the frame kFillBoundFrames times or more: then the
// fragments are the cost, and a quarter of them is worth the two extra passes.
// Rain streaks, sparks and distant flakes stay at full size (their sharpness
// is their look).
constexpr double kFillBoundMeanPixels = 64;
constexpr size_t kCoverageSample = 4096;
constexpr double kFillBoundFrames = 1;
bool fill_bound(const SpriteCoverage& coverage, int width, int height);

class ScreenCoverage {
 public:
  // `defines`: the sprite look's parts (render/sprite_pass.cpp look_defines).
  explicit ScreenCoverage(const std::string& defines);
  // The program, to set the sprites' geometry uniforms on (as for drawing).
  const GlProgram& program() const { return kernel_.program(); }
  // The coverage of instances [0, count) (SpriteInstance) on a width × height frame; waits for the GPU.
  SpriteCoverage measure(const DeviceBuffer& instances, size_t count);

 private:
  ComputeKernel kernel_;
  DeviceCounters sums_;
};

}  // namespace fxsim
