#pragma once
#include <cstdint>

#include "core/scene_reader.h"

namespace fxsim {

// The ranges of the scene's numbers (docs/scene-format.md, "Limits"). They are
// generous for any real effect and keep every value, and what the simulation
// computes from it, finite in single precision: a world of ±10^6 m, speeds up to
// 10^4 m/s, times up to 10^7 s. A quantity the code divides by or normalises
// has a positive lower bound.
constexpr Range kCoordinate{-1e6, 1e6};      // m
constexpr Range kVelocity{-1e4, 1e4};        // m/s, per component
constexpr Range kSpeed{0, 1e4};              // m/s
constexpr Range kAcceleration{-1e3, 1e3};    // m/s²
constexpr Range kWindSpeed{-1e3, 1e3};       // m/s, per component
constexpr Range kExtent{1e-3, 1e6};          // m, a box side or a length scale
constexpr Range kSpriteSize{1e-6, 1e4};      // m
constexpr Range kRadius{0, 1e3};             // m
constexpr Range kUnit{0, 1};
constexpr Range kTime{0, 1e7};               // s
constexpr Range kDuration{1e-6, 1e7};        // s
constexpr Range kLifetime{1e-4, 1e6};        // s
constexpr Range kPeriod{1e-3, 1e6};          // s
constexpr Range kDrag{0, 1e4};               // 1/s: 0, or kLeastDrag and more
// The least drag but 0. A step takes the particle's speed towards u = wind +
// g / drag by (1 − e^(−drag dt)), and rounding e to a float errs by about
// 6e-8 × |u| a step: 6e-8 × steps a second / drag of gravity's pull. At
// 0.01 that is under 1 % up to 1 600 steps a second; at 1e-4 it was 24 % at
// 480 (and below about 1e-38 g / drag overflows: NaN). A drag this small is
// a relaxation over 100 s and more: give 0.
constexpr double kLeastDrag = 1e-2;
constexpr Range kScale{-1e3, 1e3};           // a dimensionless factor
constexpr Range kRate{0, 1e9};               // per second
constexpr Range kFrequency{0, 1e3};          // Hz
constexpr IntRange kSeed{0, INT64_MAX};

}  // namespace fxsim
