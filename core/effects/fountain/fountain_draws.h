#pragma once
// The random draws of fountains (draw d of RandomDraws keyed by the
// particle), for the CPU system and, as GLSL constants, its compute shader.
#include <cstdint>
#include <string>

#include "core/glsl_constants.h"

// A drop's birth, keyed by its spawn index (stream birth); kMistSpin is a mist
// particle's spin, keyed by its parent drop's spawn index (stream secondary).
#define FXSIM_FOUNTAIN_DRAWS(X) \
  X(kDropConeCos) X(kDropConeAngle) X(kDropDiscRadius) X(kDropDiscAngle) X(kDropSize) X(kDropSpeed) X(kMistSpin)

namespace fxsim {

enum FountainDraw : uint32_t { FXSIM_FOUNTAIN_DRAWS(FXSIM_ENUMERATOR) };

inline std::string fountain_draws_glsl() { return glsl_streams() FXSIM_FOUNTAIN_DRAWS(FXSIM_GLSL_CONSTANT); }

}  // namespace fxsim
