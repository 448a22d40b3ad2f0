#pragma once
// Small scalar helpers several CPU effects share, written once so they agree
// (and so a unity build, which compiles files together, sees one definition).
#include <algorithm>

namespace fxsim {

// 2π as the nearest float (the literal every effect used before it moved here).
inline constexpr float kTwoPi = 6.283185307179586f;

// GLSL's smoothstep: 0 below lo, 1 above hi, a cubic ease between.
inline float smoothstep(float lo, float hi, float x) {
  const float t = std::clamp((x - lo) / (hi - lo), 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

}  // namespace fxsim
