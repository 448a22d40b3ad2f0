#pragma once
// Image comparison for golden tests and `fxsim compare`.
#include "core/image.h"

namespace fxsim {

struct ImageDifference {
  bool same_size = true;
  int max_difference = 0;       // largest per-channel difference, 0..255
  double mean_difference = 0;   // mean per-channel difference over all pixels
  double fraction_over = 0;     // fraction of pixels with a channel differing by more than the threshold
};

// `threshold`: a pixel counts as different when any channel differs by more.
ImageDifference compare_images(const Image& a, const Image& b, int threshold);

// A visualisation: differing pixels red, scaled by the difference, over a dimmed copy of `a`.
Image difference_image(const Image& a, const Image& b);

}  // namespace fxsim
