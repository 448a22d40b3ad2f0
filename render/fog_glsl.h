#pragma once
// The shaders' fog (core/fog.h has the formula and its CPU twin): declares
// the uniforms u_fog_on, u_fog (linear colour, density), u_fog_height
// (falloff, base) and u_eye_position, and `float fog_transmittance(vec3 point)`.
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

constexpr const char* kFogGlsl = R"(
uniform bool u_fog_on;
uniform vec4 u_fog;         // linear rgb, density (1/m)
uniform vec2 u_fog_height;  // falloff (1/m), base height (m)
uniform vec3 u_eye_position;
float fog_transmittance(vec3 point) {
  if (!u_fog_on) return 1.0;
  float d = length(point - u_eye_position);
  float depth = u_fog.a * d;
  float k = u_fog_height.x;
  if (k > 0.0) {
    float rise = k * (point.y - u_eye_position.y);
    depth *= exp(-k * (u_eye_position.y - u_fog_height.y));
    if (abs(rise) > 1e-4) depth *= (1.0 - exp(-rise)) / rise;
  }
  return exp(-depth);
}
)";

// Sets those uniforms of `program` (fog off when `fog` is empty).
void set_fog_uniforms(const GlProgram& program, const std::optional<Fog>& fog, glm::vec3 eye);

}  // namespace fxsim
