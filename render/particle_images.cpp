#include "render/particle_images.h"

#include <algorithm>
#include <cmath>

namespace fxsim {

namespace {
Image grey_alpha(int width, int height, float (*alpha)(float u, float v)) {
  Image image{width, height, std::vector<uint8_t>(size_t(width) * size_t(height) * 4)};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float u = (float(x) + 0.5f) / float(width) * 2.0f - 1.0f;   // across, -1..1
      const float v = (float(y) + 0.5f) / float(height) * 2.0f - 1.0f;  // along, -1..1
      const auto a = uint8_t(std::lround(255.0f * std::clamp(alpha(u, v), 0.0f, 1.0f)));
      uint8_t* p = &image.rgba[(size_t(y) * size_t(width) + size_t(x)) * 4];
      p[0] = p[1] = p[2] = p[3] = a;
    }
  return image;
}
}  // namespace

Image rain_streak_image(int width, int length) {
  return grey_alpha(width, length, [](float u, float v) {
    const float across = std::exp(-u * u * 4.0f);                  // soft across
    const float taper = 1.0f - std::pow(std::fabs(v), 4.0f);        // fading towards both ends
    return across * taper * (0.75f + 0.25f * (v + 1.0f) * 0.5f);    // a touch brighter at the head
  });
}

Image droplet_image(int size) {
  return grey_alpha(size, size, [](float u, float v) {
    const float r2 = u * u + v * v;
    return r2 >= 1.0f ? 0.0f : (1.0f - r2) * (1.0f - r2);
  });
}

}  // namespace fxsim
