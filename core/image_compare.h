#pragma once
// Image comparison with the conventions of OpenImageIO's idiff, for golden
// tests, `fxsim compare` and `fxsim test`. Differences are in 0..1 of full
// scale (one 8-bit step is 1/255 ≈ 0.0039); a pixel's error is its largest
// channel difference.
//   fail, warn           a pixel fails (warns) when its error exceeds this
//   fail_percent, ...    the comparison fails (warns) when more than this
//                        percentage of the pixels fail (warn)
//   hard_fail, hard_warn ... or when any one pixel's error exceeds this
// Images of different sizes cannot be compared: a failure of its own.
// 16-bit data (depth, motion vectors) is compared in its own steps: for
// `fxsim test` a threshold of k/255 there means k steps of 1/65535, so one
// tolerance reads the same for 8-bit frames and 16-bit layers; for `fxsim
// compare`, as for idiff, an error is its fraction of full scale (steps / 65535).
// The mean, RMS and PSNR average over the images' own channels (RGB without
// alpha, grey as one), as idiff does, not over the RGBA they are read into.
#include <cstddef>
#include <limits>
#include <string>

#include "core/image.h"

namespace fxsim {

struct CompareThresholds {
  double fail = 1e-6, fail_percent = 0, hard_fail = std::numeric_limits<double>::infinity();
  double warn = 1e-6, warn_percent = 0, hard_warn = std::numeric_limits<double>::infinity();
};

enum class CompareVerdict { pass, warning, failure, different_size };
const char* verdict_name(CompareVerdict v);  // "PASS", "WARNING", "FAILURE", "FAILURE (sizes differ)"

struct ImageComparison {
  int width_a = 0, height_a = 0, width_b = 0, height_b = 0;
  size_t pixels = 0;
  double mean = 0, rms = 0, psnr = 0;  // mean and RMS over every channel of every pixel; PSNR in dB (inf: identical)
  double max = 0;                      // the largest error, at (max_x, max_y) in channel max_channel (R, G, B, A)
  int max_x = 0, max_y = 0;
  char max_channel = 'R';
  size_t fail_pixels = 0, warn_pixels = 0;
  CompareVerdict verdict = CompareVerdict::pass;
  int bits = 8;  // of the samples compared: max and the errors count steps of 1/255 or 1/65535
  bool same_size() const { return width_a == width_b && height_a == height_b; }
  double fail_percent() const { return pixels ? 100.0 * double(fail_pixels) / double(pixels) : 0; }
  double warn_percent() const { return pixels ? 100.0 * double(warn_pixels) / double(pixels) : 0; }
};

// Which of the RGBA read (read_png, read_png16 with 4) a comparison counts,
// from the two files' channel counts (their file_channels: 1 grey, 2 grey and
// alpha, 3 RGB, 4 RGBA): the colour as R alone where both are grey (G and B are
// its copies), and alpha only where either file has it.
struct ComparedChannels {
  bool colour = true, alpha = true;
};
ComparedChannels compared_channels(int channels_a, int channels_b);

ImageComparison compare_images(const Image& a, const Image& b, const CompareThresholds& thresholds,
                               ComparedChannels channels = {});
// Two 16-bit PNGs' samples, 4 a pixel (read_png16 with 4); errors in steps / 255
// (fxsim test's layers) or, with `full_scale`, in steps / 65535 (fxsim compare).
ImageComparison compare_images(const Samples16& a, const Samples16& b, const CompareThresholds& thresholds,
                               ComparedChannels channels = {}, bool full_scale = false);

// A heat map of the differences: black where equal, then blue → green →
// yellow → red as the error grows to `full_scale` (default: the largest error
// in the image), over a faint copy of `a` so the picture stays readable.
Image difference_heat_map(const Image& a, const Image& b, double full_scale = 0);
// The same from 16-bit samples (4 a pixel): the smallest step shows.
Image difference_heat_map(const Samples16& a, const Samples16& b);

}  // namespace fxsim
