#include "core/effects/fire/flame_texture.h"

#include <algorithm>
#include <cmath>

#include "core/noise.h"

namespace fxsim {

namespace {
constexpr float kFeature = 0.3f;      // of the plane's width
constexpr float kGain = 1.8f;         // heat to drawn intensity
constexpr float kRise = 2.5f;         // features a second (a campfire's 1.5 m a second)
constexpr float kSway = 0.2f;         // of the width, at the top
constexpr float kCooling = 0.4f;      // drawn intensity lost from base to top
constexpr float kTongues = 1.2f;      // how unevenly
constexpr float kSideCooling = 1.5f;  // per unit of |u − 0.5|, at the top
constexpr float kThreshold = 0.1f;    // below which nothing is drawn
constexpr float kBase = 0.1f;         // of the height: the base fades in over this
constexpr float kBaseRound = 0.06f;   // the fade starts this much higher at the sides
constexpr float kBaseRagged = 0.02f;  // and wavers by this much
// The grid's intensity at (u across, v up), both 0..1, bilinear between cell
// centres, the bottom row (the seeds) left out.
float heat_at(const FireGrid& grid, float u, float v) {
  const int top_rows = std::max(1, grid.rows() - 1);  // rows 0 … rows − 2
  const float r = std::clamp((1.0f - v) * float(top_rows) - 0.5f, 0.0f, float(top_rows - 1));
  const float c = std::clamp(u * float(grid.columns()) - 0.5f, 0.0f, float(grid.columns() - 1));
  const int r0 = int(r), c0 = int(c);
  const int r1 = std::min(r0 + 1, top_rows - 1), c1 = std::min(c0 + 1, grid.columns() - 1);
  const float fr = r - float(r0), fc = c - float(c0);
  const float a = grid.at(r0, c0) + (grid.at(r0, c1) - grid.at(r0, c0)) * fc;
  const float b = grid.at(r1, c0) + (grid.at(r1, c1) - grid.at(r1, c0)) * fc;
  return a + (b - a) * fr;
}
}  // namespace

FlameTexture flame_texture(const FireGrid& grid, const FireParams& fire, double time, uint32_t seed) {
  FlameTexture out;
  const float aspect = fire.size.y / fire.size.x;
  out.width = std::max(grid.columns(), 128);  // (columns are at most 1024)
  // (The plane's shape clamped as a float: a ratio of 10^9 does not fit an int.)
  out.height = std::max(grid.rows(), int(std::lround(std::clamp(float(out.width) * aspect, 16.0f, 1024.0f))));
  out.texels.resize(size_t(out.width) * size_t(out.height) * 4);
  // The noise starts afresh every 4096 s (68 minutes) of burning: beyond
  // that its float coordinates would step visibly from frame to frame.
  const float t = float(std::fmod(time, 4096.0));
  const float rows_of_features = fire.size.y / (2.0f * kFeature * fire.size.x);  // up the plane
  for (int i = 0; i < out.height; ++i) {
    const float v = (float(i) + 0.5f) / float(out.height);
    for (int j = 0; j < out.width; ++j) {
      const float u = (float(j) + 0.5f) / float(out.width);
      // Noise features kFeature of the width across and twice that tall,
      // rising kRise of them a second (whatever the plane's shape: a tall,
      // narrow flame's small features would otherwise strobe) and changing
      // as they rise.
      const glm::vec3 p{(u - 0.5f) / kFeature, v * rows_of_features - t * kRise, t * 0.7f};
      const float sway = gradient_noise_3d(seed, p).value;
      const float tongues = gradient_noise_3d(seed + 1, glm::vec3(p.x * 2.5f, p.y * 2.0f, p.z * 1.5f)).value;
      const float heat = heat_at(grid, u, v) / fire.max_intensity;
      // The grid's heat (about 0.45 of MAX near the base) scaled to burn
      // yellow to white there, inside the outline, swayed more the higher it
      // is; cooled with height (unevenly: the top breaks into tongues) and
      // towards the sides.
      // The base fades in, rounded at the corners and ragged: cut square, the
      // grid's hottest row drew a glowing straight edge under every fire.
      const float side = 2.0f * std::fabs(u - 0.5f);
      const float base = std::clamp((v - kBaseRound * side * side + kBaseRagged * tongues) / kBase, 0.0f, 1.0f);
      const float drawn = std::min(kGain * heat, 1.2f) * flame_mask(u + kSway * v * sway, v) * base * base * (3.0f - 2.0f * base) -
                          kCooling * v * (1.0f + kTongues * tongues) - kSideCooling * std::fabs(u - 0.5f) * v -
                          kThreshold;
      glm::vec4 c = fire_color(std::max(drawn, 0.0f) * fire.max_intensity, fire.max_intensity);
      uint8_t* px = &out.texels[(size_t(i) * size_t(out.width) + size_t(j)) * 4];
      for (int k = 0; k < 3; ++k) px[k] = uint8_t(std::lround(255.0f * c[k] * c.a));
      px[3] = uint8_t(std::lround(255.0f * c.a));
    }
  }
  return out;
}

}  // namespace fxsim
