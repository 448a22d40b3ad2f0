#include "core/image_compare.h"

#include <algorithm>
#include <cstdlib>

namespace fxsim {

ImageDifference compare_images(const Image& a, const Image& b, int threshold) {
  ImageDifference d;
  if (a.width != b.width || a.height != b.height) {
    d.same_size = false;
    d.max_difference = 255;
    d.mean_difference = 255;
    d.fraction_over = 1;
    return d;
  }
  const size_t pixels = size_t(a.width) * size_t(a.height);
  uint64_t sum = 0, over = 0;
  for (size_t i = 0; i < pixels; ++i) {
    int pixel_max = 0;
    for (int c = 0; c < 4; ++c) {
      const int diff = std::abs(int(a.rgba[i * 4 + c]) - int(b.rgba[i * 4 + c]));
      pixel_max = std::max(pixel_max, diff);
      sum += uint64_t(diff);
    }
    d.max_difference = std::max(d.max_difference, pixel_max);
    if (pixel_max > threshold) ++over;
  }
  d.mean_difference = pixels ? double(sum) / double(pixels * 4) : 0;
  d.fraction_over = pixels ? double(over) / double(pixels) : 0;
  return d;
}

Image difference_image(const Image& a, const Image& b) {
  Image out{a.width, a.height, std::vector<uint8_t>(a.rgba.size())};
  const bool comparable = a.width == b.width && a.height == b.height;
  for (size_t i = 0; i < a.rgba.size() / 4; ++i) {
    int diff = 0;
    for (int c = 0; c < 3 && comparable; ++c) diff = std::max(diff, std::abs(int(a.rgba[i * 4 + c]) - int(b.rgba[i * 4 + c])));
    const uint8_t grey = uint8_t((a.rgba[i * 4] + a.rgba[i * 4 + 1] + a.rgba[i * 4 + 2]) / 12);
    out.rgba[i * 4 + 0] = diff ? uint8_t(std::min(255, 64 + diff * 4)) : grey;
    out.rgba[i * 4 + 1] = diff ? 0 : grey;
    out.rgba[i * 4 + 2] = diff ? 0 : grey;
    out.rgba[i * 4 + 3] = 255;
  }
  return out;
}

}  // namespace fxsim
