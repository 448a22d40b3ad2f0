#include "core/particle_images.h"

#include <algorithm>
#include <cmath>

#include "core/noise.h"

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

namespace {
// 2-D gradient noise whose lattice wraps every `period` cells: tileable.
float periodic_noise(uint32_t seed, float x, float y, int period) {
  const int ix = int(std::floor(x)), iy = int(std::floor(y));
  const float fx = x - float(ix), fy = y - float(iy);
  auto fade = [](float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); };
  auto corner = [&](int cx, int cy) {
    const int wx = ((ix + cx) % period + period) % period, wy = ((iy + cy) % period + period) % period;
    const float angle = float(hash_lattice(seed, wx, wy, period) >> 8) * (6.2831853f / 16777216.0f);
    return std::cos(angle) * (fx - float(cx)) + std::sin(angle) * (fy - float(cy));
  };
  const float u = fade(fx), v = fade(fy);
  const float bottom = corner(0, 0) + (corner(1, 0) - corner(0, 0)) * u;
  const float top = corner(0, 1) + (corner(1, 1) - corner(0, 1)) * u;
  return bottom + (top - bottom) * v;
}
}  // namespace

Image mist_image(int size, uint64_t seed) {
  Image image{size, size, std::vector<uint8_t>(size_t(size) * size_t(size) * 4)};
  const uint32_t s = uint32_t(seed ^ (seed >> 32));
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const float u = (float(x) + 0.5f) / float(size), v = (float(y) + 0.5f) / float(size);
      float n = 0, amplitude = 0.5f;
      for (int octave = 0, period = 4; octave < 3; ++octave, period *= 2, amplitude *= 0.5f)
        n += amplitude * periodic_noise(s + uint32_t(octave), u * float(period), v * float(period), period);
      const float du = u * 2.0f - 1.0f, dv = v * 2.0f - 1.0f;
      const float r2 = std::min(du * du + dv * dv, 1.0f);
      const float falloff = (1.0f - r2) * (1.0f - r2);
      const float a = std::clamp((0.55f + 1.2f * n) * falloff, 0.0f, 1.0f);
      const auto byte = uint8_t(std::lround(255.0f * a));
      uint8_t* p = &image.rgba[(size_t(y) * size_t(size) + size_t(x)) * 4];
      p[0] = p[1] = p[2] = p[3] = byte;
    }
  return image;
}

Image droplet_image(int size) {
  return grey_alpha(size, size, [](float u, float v) {
    const float r2 = u * u + v * v;
    return r2 >= 1.0f ? 0.0f : (1.0f - r2) * (1.0f - r2);
  });
}

}  // namespace fxsim
