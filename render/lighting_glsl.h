#pragma once
// The shaders' lighting (core/lighting.h has the model and its CPU twin):
// declares the uniforms and
//   vec3 lit_factor(vec3 point, vec3 eye)   the particle's (u_scatter: its phase function)
//   vec3 ground_lit_factor(vec3 point)      the ground's (Lambertian, facing up)
// both 1 when the scene has no lighting.
#include <optional>

#include "core/lighting.h"
#include "core/scene.h"
#include "render/gl_objects.h"

namespace fxsim {

constexpr const char* kLightingGlsl = R"(
#define MAX_LIGHTS 16
uniform bool u_lit;
uniform vec3 u_ambient;                            // colour × intensity, linear
uniform int u_light_count;
uniform vec4 u_light_position[MAX_LIGHTS];         // xyz; w: 0 directional, 1 point, 2 spot
uniform vec4 u_light_direction[MAX_LIGHTS];        // xyz: travel (directional) or axis (spot); w: range
uniform vec3 u_light_color[MAX_LIGHTS];            // colour × intensity, linear
uniform vec2 u_light_cone[MAX_LIGHTS];             // cos outer, cos inner
uniform vec4 u_scatter;                            // isotropic, forward, g, lit (0: emits its own light)
uniform vec2 u_scatter_back;                       // backward, g_back

float henyey_greenstein(float g, float mu) {
  float denominator = 1.0 + g * g - 2.0 * g * mu;
  return (1.0 - g * g) / (denominator * sqrt(denominator));
}

vec3 light_arriving(int i, vec3 point, out vec3 to_light) {
  vec4 p = u_light_position[i];
  if (p.w < 0.5) { to_light = -u_light_direction[i].xyz; return u_light_color[i]; }
  vec3 d = p.xyz - point;
  float r2 = dot(d, d), r = sqrt(r2);
  to_light = r > 1e-6 ? d / r : vec3(0.0, 1.0, 0.0);
  float q = r / u_light_direction[i].w;
  float window = pow(clamp(1.0 - q * q * q * q, 0.0, 1.0), 2.0);
  float e = window / max(r2, 0.01);
  if (p.w > 1.5) {
    vec2 cone = u_light_cone[i];
    float t = clamp((dot(-to_light, u_light_direction[i].xyz) - cone.x) / (cone.y - cone.x), 0.0, 1.0);
    e *= t * t * (3.0 - 2.0 * t);
  }
  return u_light_color[i] * e;
}

vec3 lit_factor(vec3 point, vec3 eye) {
  if (!u_lit || u_scatter.w < 0.5) return vec3(1.0);
  vec3 sum = u_ambient;
  vec3 to_eye = normalize(eye - point);
  for (int i = 0; i < u_light_count; ++i) {
    vec3 to_light;
    vec3 e = light_arriving(i, point, to_light);
    float mu = -dot(to_light, to_eye);
    sum += e * (u_scatter.x + u_scatter.y * henyey_greenstein(u_scatter.z, mu) +
                u_scatter_back.x * henyey_greenstein(u_scatter_back.y, mu));
  }
  return sum;
}

vec3 ground_lit_factor(vec3 point) {
  if (!u_lit) return vec3(1.0);
  vec3 sum = u_ambient;
  for (int i = 0; i < u_light_count; ++i) {
    vec3 to_light;
    vec3 e = light_arriving(i, point, to_light);
    sum += e * max(0.0, to_light.y);
  }
  return sum;
}
)";

// Sets the lights' uniforms of `program` (unlit when `lighting` is empty).
void set_lighting_uniforms(const GlProgram& program, const std::optional<Lighting>& lighting);
// Sets the phase function of the particles drawn next.
void set_scattering_uniform(const GlProgram& program, const Scattering& scattering);

}  // namespace fxsim
