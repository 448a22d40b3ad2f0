#pragma once
// Distance fog: the fraction of light that crosses the air between the eye
// and a point. With extinction σ(h) = density · e^(−k (h − base)) (k the
// height falloff) the optical depth along the straight path of length d
// from height h_e to height h_p is
//   τ = density · d · e^(−k (h_e − base)) · (1 − e^(−k Δh)) / (k Δh),  Δh = h_p − h_e
// (τ = density · d · e^(−k (h_e − base)) when k Δh → 0; τ = density · d when
// k = 0), and the transmittance is T = e^(−τ). A particle of premultiplied
// colour c and coverage a is seen as c · T + fog · a · (1 − T); additive
// light as c · T. render/fog_glsl.h is the shaders' copy of this formula.
#include <glm/vec3.hpp>

#include "core/scene.h"

namespace fxsim {

// Exponents of this size or less (the eye's height over the base, the rise,
// each times k) are evaluated as the formula reads; beyond it, where e^x
// overflows or underflows a float (88), in logarithms. kFogGlsl's
// FXSIM_FOG_EXPONENT_LIMIT is the same.
constexpr float kFogExponentLimit = 80.0f;

float fog_transmittance(const Fog& fog, glm::vec3 eye, glm::vec3 point);

}  // namespace fxsim
