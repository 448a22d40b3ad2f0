#pragma once
// The filmic tone curve of output.tone (docs/scene-format.md): linear light
// of any brightness onto the display's 0..1, with a toe and a soft shoulder
// (Narkowicz's fit of the ACES reference rendering transform):
//   f(x) = x (2.51 x + 0.03) / (x (2.43 x + 0.59) + 0.14),  clamped to 0..1
// f(0) = 0, f is increasing for x ≥ 0, f(1) ≈ 0.80 and f → 1 as x grows.
// Only display images (8- and 16-bit PNG, video) are tone mapped: an EXR keeps
// the linear, unclipped light.
#include "core/image.h"

namespace fxsim {

float filmic(float x);

// Each pixel's straight colour through the curve, premultiplied again (pure
// emission, alpha 0, through the curve as it is).
LinearImage tone_mapped(const LinearImage& image);
// One pixel's premultiplied `rgba` as tone_mapped maps it.
void tone_map_pixel(float* rgba);

}  // namespace fxsim
