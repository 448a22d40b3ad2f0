#include "core/effects/explosion/fireball_images.h"

#include <algorithm>
#include <cmath>
#include <glm/vec3.hpp>

#include "core/noise.h"
#include "core/scalar_math.h"

namespace fxsim {

namespace {
// Temperature 0..1 to sRGB colour: smoke, dark red, orange, yellow, white.
glm::vec3 heat_color(float t) {
  static const glm::vec3 kStops[] = {{0.22f, 0.198f, 0.176f}, {0.55f, 0.10f, 0.03f}, {1.0f, 0.45f, 0.06f},
                                     {1.0f, 0.82f, 0.30f}, {1.0f, 0.98f, 0.85f}};
  const float x = std::clamp(t, 0.0f, 1.0f) * 4.0f;
  const int i = std::min(int(x), 3);
  const float f = x - float(i);
  return kStops[i] + (kStops[i + 1] - kStops[i]) * f;
}

}  // namespace

std::vector<Image> fireball_flipbook(int frames, int size, uint64_t seed) {
  std::vector<Image> out;
  const uint32_t s = uint32_t(seed ^ (seed >> 32));
  for (int f = 0; f < frames; ++f) {
    const float p = (float(f) + 0.5f) / float(frames);  // progress through the explosion
    Image image{size, size, std::vector<uint8_t>(size_t(size) * size_t(size) * 4)};
    // The ball fills its square's circle from the start (the sprite's own
    // diameter, `scale` at the end, grows with the explosion) and billows out
    // a little more: at 0.6 of the square it read as a blast 0.6 its size.
    const float radius = 0.8f + 0.12f * p;
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x) {
        const float u = (float(x) + 0.5f) / float(size) * 2.0f - 1.0f;
        const float v = (float(y) + 0.5f) / float(size) * 2.0f - 1.0f;
        const float r = std::sqrt(u * u + v * v);
        // Past the square's circle the density below is 0 whatever the
        // noise (its second smoothstep): the texel stays transparent black,
        // and the fifth of the square that lies there costs no noise.
        if (r >= 1.0f) continue;
        // Billowy noise (|noise| octaves): puffs of flame and smoke.
        float n = 0, amplitude = 0.5f, frequency = 2.5f;
        for (int octave = 0; octave < 4; ++octave, amplitude *= 0.5f, frequency *= 2.0f)
          n += amplitude * std::fabs(gradient_noise_3d(s + uint32_t(octave), glm::vec3(u, -v, p * 1.5f) * frequency).value);
        n = n * 2.0f - 0.5f;
        // The billows roughen the rim; inside, where they cut holes the
        // background showed through, they only colour.
        const float edge = r + 0.5f * n * r * r;
        // (Within the circle the square holds: billows past it were cut straight.)
        const float density = smoothstep(radius, radius * 0.7f, edge) * smoothstep(1.0f, 0.88f, r);
        // Hot in the middle and early, cooling outward (slowly, then fast
        // towards the edge) and with time, the billowy noise roughening both.
        const float e = std::max(edge / radius, 0.0f);
        // (Cooling as p², and flat across most of the ball: cooled as p from
        // the start, the flames shrank to the middle half by mid-life, a
        // blast reading as half its size against the night.)
        // Inside the ball no colder than dark red while it burns: the noise's
        // troughs drew grey smoke there, dark holes in a bright ball.
        const float heat = std::max((1.0f - e * e * e * e) * 0.85f + 0.8f * n + 0.25f - 1.1f * p * p,
                                    (1.0f - e * e) * 0.45f * (1.0f - p));
        const glm::vec3 color = heat_color(heat);
        const float alpha = std::clamp(density * (0.8f + 0.2f * smoothstep(0.1f, 0.4f, heat)), 0.0f, 1.0f);
        uint8_t* px = &image.rgba[(size_t(y) * size_t(size) + size_t(x)) * 4];
        for (int c = 0; c < 3; ++c) px[c] = uint8_t(std::lround(255.0f * color[c] * alpha));
        px[3] = uint8_t(std::lround(255.0f * alpha));
      }
    out.push_back(std::move(image));
  }
  return out;
}

std::vector<Image> keyed_flipbook(const Image& sheet, int rows, int columns, const Color& key) {
  const int w = sheet.width / columns, h = sheet.height / rows;
  std::vector<Image> out;
  for (int row = 0; row < rows; ++row)
    for (int column = 0; column < columns; ++column) {
      Image frame{w, h, std::vector<uint8_t>(size_t(w) * size_t(h) * 4)};
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const uint8_t* src = &sheet.rgba[(size_t(row * h + y) * size_t(sheet.width) + size_t(column * w + x)) * 4];
          float distance = 0;
          for (int c = 0; c < 3; ++c) distance = std::max(distance, std::fabs(float(src[c]) / 255.0f - key.srgb[c]));
          // Within 0.1 of the key: gone; beyond 0.25: as drawn; soft in between.
          const float alpha = float(src[3]) / 255.0f * smoothstep(0.1f, 0.25f, distance);
          uint8_t* dst = &frame.rgba[(size_t(y) * size_t(w) + size_t(x)) * 4];
          for (int c = 0; c < 3; ++c) dst[c] = uint8_t(std::lround(float(src[c]) * alpha));
          dst[3] = uint8_t(std::lround(255.0f * alpha));
        }
      out.push_back(std::move(frame));
    }
  return out;
}

}  // namespace fxsim
