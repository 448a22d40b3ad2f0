#pragma once
// The random draws of snow and rain (draw d of RandomDraws keyed by the
// particle), for the CPU system and, as GLSL constants, its compute shader.
#include <cstdint>
#include <string>

#include "core/glsl_constants.h"

// A flake's or drop's birth, keyed by its spawn index (stream birth).
#define FXSIM_FLAKE_DRAWS(X) \
  X(kFlakePosX) X(kFlakePosY) X(kFlakePosZ) X(kFlakeVelX) X(kFlakeVelY) X(kFlakeVelZ) X(kFlakeSize) X(kFlakeShape) \
  X(kFlakePhase) X(kFlakeHeading)
// A splash droplet, keyed by its slot (stream secondary); the draws of the step
// it is thrown in start at step × kSplashDrawsPerStep.
#define FXSIM_SPLASH_DRAWS(X) \
  X(kSplashAzimuth) X(kSplashElevation) X(kSplashSpeed) X(kSplashSize) X(kSplashJitterX) X(kSplashJitterZ)

namespace fxsim {

enum FlakeDraw : uint32_t { FXSIM_FLAKE_DRAWS(FXSIM_ENUMERATOR) };
enum SplashDraw : uint32_t { FXSIM_SPLASH_DRAWS(FXSIM_ENUMERATOR) kSplashDraws };
inline constexpr uint32_t kSplashDrawsPerStep = 8;
static_assert(kSplashDraws <= kSplashDrawsPerStep, "a step's splash draws fit in the numbers set aside for it");

inline std::string precipitation_draws_glsl() {
  return glsl_streams() FXSIM_FLAKE_DRAWS(FXSIM_GLSL_CONSTANT) FXSIM_SPLASH_DRAWS(FXSIM_GLSL_CONSTANT) +
         glsl_uint("kSplashDrawsPerStep", kSplashDrawsPerStep);
}

}  // namespace fxsim
