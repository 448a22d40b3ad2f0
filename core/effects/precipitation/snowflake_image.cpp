#include "core/effects/precipitation/snowflake_image.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rng.h"

namespace fxsim {

namespace {
constexpr float kPi = 3.14159265358979f;

struct Segment {
  float ax, ay, bx, by;
  float width_a, width_b;  // half-widths at each end (arms taper)
};

// Distance from p to the segment minus its (interpolated) half-width.
float segment_distance(float px, float py, const Segment& s) {
  const float dx = s.bx - s.ax, dy = s.by - s.ay;
  const float len2 = dx * dx + dy * dy;
  const float h = len2 > 0 ? std::clamp(((px - s.ax) * dx + (py - s.ay) * dy) / len2, 0.0f, 1.0f) : 0.0f;
  const float ex = px - (s.ax + dx * h), ey = py - (s.ay + dy * h);
  return std::sqrt(ex * ex + ey * ey) - (s.width_a + (s.width_b - s.width_a) * h);
}

// Distance to a regular hexagon of circumradius r (vertices on the arms), negative inside.
float hexagon_distance(float x, float y, float r) {
  const float apothem = r * std::cos(kPi / 6);
  float d = -1e9f;
  for (int k = 0; k < 6; ++k) {
    const float a = kPi / 6 + float(k) * kPi / 3;  // edge normals sit between the arms
    d = std::max(d, x * std::cos(a) + y * std::sin(a) - apothem);
  }
  return d;
}
}  // namespace

Image snowflake_image(int size, uint64_t seed, uint32_t shape) {
  RandomDraws r(seed, 0, Stream::texture, shape);
  uint32_t draw = 0;
  auto next = [&] { return r.unit(draw++); };

  // One arm along +x, in units of the half-texture (1 = edge); mirrored six ways.
  const float arm = 0.78f + 0.14f * next();
  const float arm_width = 0.025f + 0.035f * next();
  std::vector<Segment> segments{{0, 0, arm, 0, arm_width, arm_width * 0.45f}};
  const int branches = 1 + int(next() * 3.999f);
  const float branch_angle = kPi / 3 * (0.8f + 0.3f * next());  // about 60°, like real dendrites
  for (int b = 0; b < branches; ++b) {
    const float at = arm * (0.25f + 0.6f * (float(b) + next()) / float(branches));
    const float length = (arm - at) * (0.35f + 0.55f * next());
    const float w = arm_width * (0.5f + 0.4f * next());
    segments.push_back({at, 0, at + length * std::cos(branch_angle), length * std::sin(branch_angle), w, w * 0.5f});
  }
  const bool plate = next() < 0.5f;
  const float plate_radius = plate ? 0.18f + 0.22f * next() : 0.0f;
  const float ring = next() < 0.35f ? 0.5f + 0.2f * next() : 0.0f;  // a faint hexagonal rim on some plates

  Image image{size, size, std::vector<uint8_t>(size_t(size) * size_t(size) * 4)};
  const int kSub = 3;  // 3×3 supersampling
  const float texel = 2.0f / float(size);
  const float soft = texel * 0.9f;  // edge softness: about one texel
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      float coverage = 0;
      for (int sy = 0; sy < kSub; ++sy) {
        for (int sx = 0; sx < kSub; ++sx) {
          const float u = (float(x) + (float(sx) + 0.5f) / kSub) * texel - 1.0f;
          const float v = (float(y) + (float(sy) + 0.5f) / kSub) * texel - 1.0f;
          // Fold into the 0..30° wedge: six-fold rotation, then the mirror.
          const float radius = std::sqrt(u * u + v * v);
          if (radius > 0.98f) continue;  // outside the round sprite: adds 0 (a quarter of the samples)
          float angle = std::atan2(v, u);
          angle = std::fmod(angle + 2 * kPi, kPi / 3);
          if (angle > kPi / 6) angle = kPi / 3 - angle;
          const float fx = radius * std::cos(angle), fy = radius * std::sin(angle);
          float d = 1e9f;
          for (const auto& s : segments) d = std::min(d, segment_distance(fx, fy, s));
          if (plate) {
            const float hex = hexagon_distance(u, v, plate_radius);
            d = std::min(d, hex);
          }
          float value = std::clamp(0.5f - d / soft, 0.0f, 1.0f);
          if (plate) value = std::max(value, 0.45f * std::clamp(0.5f - hexagon_distance(u, v, plate_radius * 0.92f) / soft, 0.0f, 1.0f));
          if (ring > 0) {
            const float rim = std::fabs(hexagon_distance(u, v, plate_radius * ring + 0.1f)) - arm_width * 0.4f;
            value = std::max(value, 0.7f * std::clamp(0.5f - rim / soft, 0.0f, 1.0f));
          }
          // A faint glow around the crystal so it reads at small sizes.
          value = std::max(value, 0.25f * std::exp(-std::max(d, 0.0f) * 18.0f));
          coverage += value;
        }
      }
      const uint8_t a = uint8_t(std::lround(255.0f * coverage / float(kSub * kSub)));
      uint8_t* px = &image.rgba[(size_t(y) * size_t(size) + size_t(x)) * 4];
      px[0] = px[1] = px[2] = px[3] = a;
    }
  }
  return image;
}

}  // namespace fxsim
