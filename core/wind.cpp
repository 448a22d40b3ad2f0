#include "core/wind.h"

#include <algorithm>
#include <cmath>

#include "core/noise.h"
#include "core/rng.h"

namespace fxsim {

namespace {
// Scales the curl of unit gradient noise so that its RMS speed is about 1
// (measured over 10^5 random points: RMS |curl| ≈ 1.9 before scaling).
constexpr float kCurlNormalisation = 1.0f / 1.9f;
}  // namespace

WindField::WindField(const WindSettings& settings, uint64_t scene_seed) : steady_(settings.velocity) {
  const uint64_t base = mix64(scene_seed ^ 0x57494E44ull);  // "WIND"
  gust_seed_ = uint32_t(mix64(base + uint64_t(Stream::wind_gust)));
  turbulence_seed_ = uint32_t(mix64(base + uint64_t(Stream::wind_turbulence)));
  if (settings.gust) {
    gust_amplitude_ = settings.gust->amplitude;
    gust_period_ = settings.gust->period;
  }
  if (settings.turbulence && settings.turbulence->strength > 0) {
    turbulence_strength_ = settings.turbulence->strength;
    turbulence_scale_ = settings.turbulence->scale;
    // The pattern renews itself in about the time the air takes to cross two features.
    turbulence_period_ = std::max(0.5, 2.0 * turbulence_scale_ / turbulence_strength_);
  }
}

glm::vec3 WindField::gust(double t) const {
  if (gust_amplitude_ == glm::vec3(0)) return glm::vec3(0);
  const double x = t / gust_period_;
  return {gust_amplitude_.x * value_noise_1d(gust_seed_ + 0, x),
          gust_amplitude_.y * value_noise_1d(gust_seed_ + 1, x + 17.0),
          gust_amplitude_.z * value_noise_1d(gust_seed_ + 2, x + 41.0)};
}

glm::vec3 WindField::curl_at_slice(glm::vec3 q, int64_t slice) const {
  const uint32_t s = hash_u32(turbulence_seed_ ^ uint32_t(slice * 3));
  glm::vec3 g[3];  // gradients of the potential's components ψx, ψy, ψz
  gradient_noise_3d_x3(s, q, g);
  return {g[2].y - g[1].z, g[0].z - g[2].x, g[1].x - g[0].y};
}

void WindField::turbulence_slice(double t, int64_t& slice, float& blend) const {
  const double phase = t / turbulence_period_;
  const double whole = std::floor(phase);
  slice = int64_t(whole);
  blend = float(phase - whole);
}

glm::vec3 WindField::turbulence(glm::vec3 p, double t) const {
  if (turbulence_strength_ <= 0) return glm::vec3(0);
  const glm::vec3 q = p / turbulence_scale_;
  const double phase = t / turbulence_period_;
  const double slice = std::floor(phase);
  float blend = float(phase - slice);
  blend = blend * blend * (3.0f - 2.0f * blend);
  const glm::vec3 a = curl_at_slice(q, int64_t(slice));
  const glm::vec3 b = curl_at_slice(q, int64_t(slice) + 1);
  return (a + (b - a) * blend) * (turbulence_strength_ * kCurlNormalisation);
}

}  // namespace fxsim
