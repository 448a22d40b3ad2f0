#include "core/tone.h"

#include <algorithm>

namespace fxsim {

float filmic(float x) {
  x = std::max(x, 0.0f);
  return std::clamp(x * (2.51f * x + 0.03f) / (x * (2.43f * x + 0.59f) + 0.14f), 0.0f, 1.0f);
}

void tone_map_pixel(float* rgba) {
  const float a = std::clamp(rgba[3], 0.0f, 1.0f);
  for (size_t c = 0; c < 3; ++c) rgba[c] = a > 0 ? filmic(rgba[c] / a) * a : filmic(rgba[c]);
}

LinearImage tone_mapped(const LinearImage& image) {
  LinearImage out = image;
  for (size_t i = 0; i < out.rgba.size(); i += 4) tone_map_pixel(&out.rgba[i]);
  return out;
}

}  // namespace fxsim
