#pragma once
// Rain and snow in physical units (docs/scene-format.md, "Weather in
// physical units"). Both fall as an exponential size distribution
//   N(D) = N0 · e^(−Λ D)   per m³ per mm of diameter D, kept to [D_min, D_max]
// so that N_total = N0 / Λ · (e^(−Λ D_min) − e^(−Λ D_max)) drops or flakes a m³.
//
// Rain of intensity R mm/h (Marshall and Palmer 1948):
//   N0 = 8000 m⁻³ mm⁻¹, Λ = 4.1 R^(−0.21) mm⁻¹, D in 0.5..6 mm (smaller
//   drops are too faint to see, larger ones break up), each drop falling at
//   the terminal velocity of its size, the fit of Atlas, Srivastava and Sekhon
//   (1973) to Gunn and Kinzer's (1949) measurements:
//   v(D) = 9.65 − 10.3 · e^(−0.6 D) m/s  (4.0 m/s at 1 mm, 6.5 at 2 mm, 9.1 at 5 mm).
// Snow of intensity R mm/h of melted water (Sekhon and Srivastava 1970, in
//   melted diameters d): N0 = 2500 R^(−0.94) m⁻³ mm⁻¹, Λ = 2.29 R^(−0.45) mm⁻¹,
//   d in 0.1..10 mm; a flake of bulk density 0.05 g/cm³ is (1 / 0.05)^(1/3) ≈
//   2.71 times its melted diameter across, and falls at Locatelli and Hobbs's
//   (1974) speed for unrimed aggregates, v(D) = 0.8 · D^0.16 m/s (D the flake's
//   diameter in mm: 0.8 m/s at 1 mm, 1.0 at 4 mm, 1.15 at 10 mm).
// Snow given by visibility V m: the R whose extinction, by Koschmieder's law
//   β = 3.912 / V, equals the flakes' geometric extinction (twice their cross
//   section, the large-particle limit): β = 2 · ∫ π D² / 4 · N(d) dd.
#include <cstdint>

namespace fxsim {

enum class Precipitate { rain, snow };

struct SizeDistribution {
  Precipitate kind = Precipitate::rain;
  float n0 = 0;                 // m⁻³ mm⁻¹
  float lambda = 1;             // mm⁻¹
  float d_min = 0, d_max = 1;   // mm (melted, for snow)
  double per_cubic_metre() const;
  // The diameter (mm, melted for snow) at quantile u in [0, 1).
  float diameter(float u) const;
  // Across as drawn, m (a snowflake's size, a drop's width).
  float drawn_size(float diameter) const;
  float fall_speed(float diameter) const;  // m/s
  // The mean over the distribution of fall_speed (numerical).
  double mean_fall_speed() const;
};

SizeDistribution rain_of_intensity(double mm_per_hour);
SizeDistribution snow_of_intensity(double mm_per_hour);
// Snow of the intensity whose visibility is `metres` (at most 100 km).
SizeDistribution snow_of_visibility(double metres);
// Koschmieder's visibility of snow of this distribution, m.
double visibility_of(const SizeDistribution& snow);

inline constexpr double kSnowDiameterPerMelted = 2.7144;  // (1 / 0.05)^(1/3)
// The snow intensities (mm/h) and visibilities (m) the fit is used for: real
// snowfall rarely passes 10 mm/h of water.
inline constexpr double kMaxSnowIntensity = 30;
inline constexpr double kMinSnowVisibility = 250, kMaxSnowVisibility = 10000;

}  // namespace fxsim
