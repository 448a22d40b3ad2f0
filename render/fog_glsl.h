#pragma once
// The shaders' fog (core/fog.h has the formula and its CPU twin): declares
// the uniforms u_fog_on, u_fog (linear colour, density), u_fog_height
// (falloff, base) and u_eye_position, and `float fog_transmittance(vec3 point)`.
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

constexpr const char* kFogGlsl = R"(
#define FXSIM_FOG_EXPONENT_LIMIT 80.0
uniform bool u_fog_on;
uniform vec4 u_fog;         // linear rgb, density (1/m)
uniform vec2 u_fog_height;  // falloff (1/m), base height (m)
uniform vec3 u_eye_position;
float fog_transmittance(vec3 point) {
  if (!u_fog_on) return 1.0;
  float d = length(point - u_eye_position);
  float depth = u_fog.a * d;
  if (!(depth > 0.0)) return 1.0;
  float k = u_fog_height.x;
  if (k > 0.0) {
    float above = k * (u_eye_position.y - u_fog_height.y), rise = k * (point.y - u_eye_position.y);
    if (abs(above) <= FXSIM_FOG_EXPONENT_LIMIT && abs(rise) <= FXSIM_FOG_EXPONENT_LIMIT) {
      depth *= exp(-above);
      if (abs(rise) > 1e-4) depth *= (1.0 - exp(-rise)) / rise;
    } else {  // (core/fog.cpp: the same in logarithms, where the exponents over- or underflow)
      float lowest = min(above, above + rise), span = abs(rise);
      float mean = span > 1e-4 ? (1.0 - exp(-span)) / span : 1.0;
      depth = exp(log(depth) - lowest) * mean;
    }
  }
  return exp(-depth);
}
)";

// Sets those uniforms of `program` (fog off when `fog` is empty).
void set_fog_uniforms(const GlProgram& program, const std::optional<Fog>& fog, glm::vec3 eye);

}  // namespace fxsim
