#include "core/weather.h"

#include <algorithm>
#include <cmath>

namespace fxsim {

double SizeDistribution::per_cubic_metre() const {
  return double(n0) / lambda * (std::exp(-double(lambda) * d_min) - std::exp(-double(lambda) * d_max));
}

float SizeDistribution::diameter(float u) const {
  // The inverse of the truncated exponential's distribution function.
  const double span = 1.0 - std::exp(-double(lambda) * (d_max - d_min));
  return float(double(d_min) - std::log(1.0 - double(u) * span) / lambda);
}

float SizeDistribution::drawn_size(float d) const {
  return float(kind == Precipitate::snow ? d * kSnowDiameterPerMelted : d) * 1e-3f;
}

float SizeDistribution::fall_speed(float d) const {
  if (kind == Precipitate::rain) return std::max(0.1f, 9.65f - 10.3f * std::exp(-0.6f * d));
  return 0.8f * std::pow(float(d * kSnowDiameterPerMelted), 0.16f);
}

double SizeDistribution::mean_fall_speed() const {
  constexpr int n = 4096;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += fall_speed(diameter((float(i) + 0.5f) / n));
  return sum / n;
}

SizeDistribution rain_of_intensity(double r) {
  return {Precipitate::rain, 8000.0f, float(4.1 * std::pow(r, -0.21)), 0.5f, 6.0f};
}

SizeDistribution snow_of_intensity(double r) {
  return {Precipitate::snow, float(2500.0 * std::pow(r, -0.94)), float(2.29 * std::pow(r, -0.45)), 0.1f, 10.0f};
}

double visibility_of(const SizeDistribution& s) {
  // β = 2 · Σ π D² / 4 = (π / 2) · k² · 1e-6 · ∫ d² N0 e^(−Λ d) dd over [d_min, d_max] (mm² → m²).
  constexpr int n = 2048;
  const double step = double(s.d_max - s.d_min) / n;
  double integral = 0;
  for (int i = 0; i < n; ++i) {
    const double d = s.d_min + (i + 0.5) * step;
    integral += d * d * s.n0 * std::exp(-double(s.lambda) * d) * step;
  }
  const double beta = 3.14159265358979 / 2 * kSnowDiameterPerMelted * kSnowDiameterPerMelted * 1e-6 * integral;
  return 3.912 / beta;
}

SizeDistribution snow_of_visibility(double metres) {
  // Visibility falls as the intensity rises (up to about 50 mm/h, beyond
  // which the fit saturates): bisection on log R in 0.001..30 mm/h.
  double lo = std::log(1e-3), hi = std::log(kMaxSnowIntensity);
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (visibility_of(snow_of_intensity(std::exp(mid))) > metres ? lo : hi) = mid;
  }
  return snow_of_intensity(std::exp(0.5 * (lo + hi)));
}

}  // namespace fxsim
