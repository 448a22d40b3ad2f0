#include "core/image_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace fxsim {

const char* verdict_name(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::pass: return "PASS";
    case CompareVerdict::warning: return "WARNING";
    case CompareVerdict::failure: return "FAILURE";
    case CompareVerdict::different_size: return "FAILURE (sizes differ)";
  }
  return "?";
}

ComparedChannels compared_channels(int channels_a, int channels_b) {
  const auto grey = [](int n) { return n == 1 || n == 2; };
  const auto alpha = [](int n) { return n == 2 || n == 4; };
  return {!(grey(channels_a) && grey(channels_b)), alpha(channels_a) || alpha(channels_b)};
}

namespace {
// The comparison of the samples `counted` of 4 a pixel, errors counted in
// steps of the samples and reported as steps / unit (255: an 8-bit image's
// full scale; 65535, a 16-bit image's).
template <class Sample>
ImageComparison compare_samples(const std::vector<Sample>& a, const std::vector<Sample>& b, ComparedChannels counted,
                                double unit, double steps_full_scale, ImageComparison c, const CompareThresholds& t) {
  if (!c.same_size()) {
    c.verdict = CompareVerdict::different_size;
    return c;
  }
  c.pixels = size_t(c.width_a) * size_t(c.height_a);
  std::vector<size_t> channels = counted.colour ? std::vector<size_t>{0, 1, 2} : std::vector<size_t>{0};
  if (counted.alpha) channels.push_back(3);
  uint64_t sum = 0, sum_squares = 0;
  int64_t largest = -1;
  constexpr size_t n = 4;
  for (size_t i = 0; i < c.pixels; ++i) {
    int64_t pixel = 0;
    for (const size_t ch : channels) {
      const int64_t d = std::abs(int64_t(a[i * n + ch]) - int64_t(b[i * n + ch]));
      sum += uint64_t(d);
      sum_squares += uint64_t(d) * uint64_t(d);
      pixel = std::max(pixel, d);
      if (d > largest) {
        largest = d;
        c.max_x = int(i % size_t(c.width_a));
        c.max_y = int(i / size_t(c.width_a));
        c.max_channel = "RGBA"[ch];
      }
    }
    const double e = double(pixel) / unit;
    c.fail_pixels += e > t.fail;
    c.warn_pixels += e > t.warn;
  }
  const double samples = double(c.pixels) * double(channels.size());
  c.max = double(std::max<int64_t>(largest, 0)) / unit;
  c.mean = c.pixels ? double(sum) / samples / unit : 0;
  c.rms = c.pixels ? std::sqrt(double(sum_squares) / samples) / unit : 0;
  const double full_scale = steps_full_scale / unit;  // PSNR against the samples' own full scale
  c.psnr = c.rms > 0 ? 20 * std::log10(full_scale / c.rms) : std::numeric_limits<double>::infinity();
  if (c.fail_percent() > t.fail_percent || c.max > t.hard_fail) c.verdict = CompareVerdict::failure;
  else if (c.warn_percent() > t.warn_percent || c.max > t.hard_warn) c.verdict = CompareVerdict::warning;
  return c;
}
}  // namespace

ImageComparison compare_images(const Image& a, const Image& b, const CompareThresholds& t, ComparedChannels channels) {
  ImageComparison c;
  c.width_a = a.width, c.height_a = a.height, c.width_b = b.width, c.height_b = b.height;
  return compare_samples(a.rgba, b.rgba, channels, 255.0, 255.0, c, t);
}

ImageComparison compare_images(const Samples16& a, const Samples16& b, const CompareThresholds& t,
                               ComparedChannels channels, bool full_scale) {
  ImageComparison c;
  c.width_a = a.width, c.height_a = a.height, c.width_b = b.width, c.height_b = b.height;
  c.bits = 16;
  if (a.channels != 4 || b.channels != 4) throw std::invalid_argument("compare_images: 16-bit samples not 4 a pixel");
  return compare_samples(a.samples, b.samples, channels, full_scale ? 65535.0 : 255.0, 65535.0, c, t);
}

namespace {
// `shift` brings a sample to 8 bits for the faint copy of a.
template <class Sample>
Image heat_map(int width, int height, const std::vector<Sample>& a, const std::vector<Sample>& b, int shift,
               double full_scale_steps) {
  const size_t pixels = size_t(width) * size_t(height);
  Image out{width, height, std::vector<uint8_t>(pixels * 4, 0)};
  std::vector<int> error(pixels);
  int largest = 0;
  for (size_t i = 0; i < pixels; ++i) {
    for (int ch = 0; ch < 4; ++ch)
      error[i] = std::max(error[i], std::abs(int(a[i * 4 + size_t(ch)]) - int(b[i * 4 + size_t(ch)])));
    largest = std::max(largest, error[i]);
  }
  const double scale = full_scale_steps > 0 ? full_scale_steps : std::max(largest, 1);
  for (size_t i = 0; i < pixels; ++i) {
    uint8_t* o = &out.rgba[i * 4];
    o[3] = 255;
    if (error[i] == 0) {  // a faint copy of a
      const int grey = ((a[i * 4] >> shift) + (a[i * 4 + 1] >> shift) + (a[i * 4 + 2] >> shift)) / 12;
      o[0] = o[1] = o[2] = uint8_t(grey);
      continue;
    }
    // 0 → blue, 1/3 → green, 2/3 → yellow, 1 → red; the smallest error still shows.
    const double x = std::clamp(0.15 + 0.85 * error[i] / scale, 0.0, 1.0);
    const double r = std::clamp(3 * x - 1, 0.0, 1.0), g = x < 2.0 / 3 ? std::clamp(3 * x, 0.0, 1.0) : 3 - 3 * x,
                 bl = std::clamp(1 - 3 * x, 0.0, 1.0);
    o[0] = uint8_t(std::lround(255 * r));
    o[1] = uint8_t(std::lround(255 * std::clamp(g, 0.0, 1.0)));
    o[2] = uint8_t(std::lround(255 * bl));
  }
  return out;
}
}  // namespace

Image difference_heat_map(const Image& a, const Image& b, double full_scale) {
  if (a.width != b.width || a.height != b.height) return Image{a.width, a.height, std::vector<uint8_t>(a.rgba.size(), 0)};
  return heat_map(a.width, a.height, a.rgba, b.rgba, 0, full_scale * 255);
}

Image difference_heat_map(const Samples16& a, const Samples16& b) {
  if (a.width != b.width || a.height != b.height || a.channels != 4 || b.channels != 4)
    return Image{a.width, a.height, std::vector<uint8_t>(size_t(a.width) * size_t(a.height) * 4, 0)};
  return heat_map(a.width, a.height, a.samples, b.samples, 8, 0);
}

}  // namespace fxsim
