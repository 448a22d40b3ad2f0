#include "core/lighting.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include "core/scalar_math.h"

namespace fxsim {

Lighting lighting_at(const Lighting& lighting, const CameraPose& camera) {
  Lighting out = lighting;
  const glm::mat3 basis = camera.basis();
  for (Light& light : out.lights)
    if (light.follow_camera) {
      light.position = camera.position + basis * light.position;
      light.direction = glm::normalize(basis * light.direction);
    }
  return out;
}

std::vector<Light> effect_lights(const Scene& scene, double t) {
  std::vector<Light> out;
  for (const EmitterSettings& e : scene.emitters) {
    if (!e.light || t < e.start) continue;
    const double age = t - e.start;
    Light light;
    light.color = e.light->color;
    light.range = e.light->range;
    float gain = 0;
    if (e.is<FireParams>()) {
      if (e.duration && age >= *e.duration) continue;
      const FireParams& f = e.as<FireParams>();
      light.position = f.position + glm::vec3(0, 0.4f * f.size.y, 0);
      const double phi = double(e.seed % 6283) / 1000.0;
      gain = float(1 + 0.12 * std::sin(2 * 3.14159265358979 * 1.7 * t + phi) +
                   0.08 * std::sin(2 * 3.14159265358979 * 4.3 * t + 2 * phi));
    } else {
      const double duration = e.duration.value_or(ExplosionParams::default_duration);
      if (age >= duration) continue;
      light.position = e.as<ExplosionParams>().position;
      const double tau = age / duration;
      gain = float(tau < 0.1 ? tau / 0.1 : std::exp(-4 * (tau - 0.1) / 0.9));
    }
    light.intensity = e.light->intensity * gain;
    out.push_back(light);
  }
  return out;
}

bool is_lit(const Scene& scene) {
  return scene.environment.lighting || std::any_of(scene.emitters.begin(), scene.emitters.end(),
                                                   [](const EmitterSettings& e) { return e.light.has_value(); });
}

std::optional<Lighting> frame_lighting(const Scene& scene, const CameraPose& camera, double t) {
  if (!is_lit(scene)) return std::nullopt;
  const std::vector<Light> effects = effect_lights(scene, t);
  Lighting lighting = scene.environment.lighting ? lighting_at(*scene.environment.lighting, camera) : Lighting{};
  lighting.lights.insert(lighting.lights.end(), effects.begin(), effects.end());  // the parser keeps them within kMaxLights
  return lighting;
}

Scattering scattering_of(const EmitterSettings& emitter, SpriteLook look, BlendMode blend) {
  if (blend == BlendMode::additive || emitter.is<FireParams>() || emitter.is<ExplosionParams>()) return kEmitted;
  if (emitter.is<SnowParams>()) return kSnowScattering;
  if (emitter.is<FountainParams>() && look == SpriteLook::secondary) return kMistScattering;
  return kDropScattering;  // rain, its splashes, fountain drops
}

namespace {
// A spot's share of its light along `travel` (a unit vector from the light):
// 1 inside the inner cone, 0 outside the outer, smoothstep of the cosine between.
float spot_cone(const Light& spot, glm::vec3 travel) {
  const float c = glm::dot(travel, spot.direction);
  const float lo = std::cos(glm::radians(spot.outer_cone)), hi = std::cos(glm::radians(spot.inner_cone));
  return smoothstep(lo, hi, c);
}
}  // namespace

Incoming light_arriving(const Light& light, glm::vec3 point) {
  const glm::vec3 color = glm::vec3(light.color.linear()) * light.intensity;
  if (light.type == LightType::directional) return {color, -light.direction};
  const glm::vec3 d = light.position - point;
  const float r2 = glm::dot(d, d), r = std::sqrt(r2);
  const glm::vec3 to_light = r > 1e-6f ? d / r : glm::vec3(0, 1, 0);
  const float q = r / light.range;
  const float window = std::pow(std::clamp(1.0f - q * q * q * q, 0.0f, 1.0f), 2.0f);
  float e = window / std::max(r2, 0.01f);
  if (light.type == LightType::spot) e *= spot_cone(light, -to_light);
  return {color * e, to_light};
}

namespace {
float henyey_greenstein(float g, float mu) {
  const float denominator = 1 + g * g - 2 * g * mu;
  return (1 - g * g) / (denominator * std::sqrt(denominator));
}
}  // namespace

float phase(const Scattering& s, float mu) {
  return s.isotropic + s.forward * henyey_greenstein(s.g, mu) + s.backward * henyey_greenstein(s.g_back, mu);
}

glm::vec3 source_radiance(const Light& light, glm::vec3 eye) {
  if (light.type == LightType::directional || light.size <= 0) return glm::vec3(0);
  float cone = 1;
  if (light.type == LightType::spot) {
    const glm::vec3 d = eye - light.position;
    cone = glm::length(d) > 1e-6f ? spot_cone(light, glm::normalize(d)) : 1.0f;
  }
  const float r = 0.5f * light.size;
  return glm::vec3(light.color.linear()) * light.intensity * std::max(cone, kSourceSpill) / (3.14159265f * r * r);
}

glm::vec3 lit_factor(const Lighting& lighting, const Scattering& s, glm::vec3 point, glm::vec3 eye) {
  if (!s.lit) return glm::vec3(1);
  glm::vec3 sum = glm::vec3(lighting.ambient_color.linear()) * lighting.ambient;
  const glm::vec3 to_eye = glm::normalize(eye - point);
  for (const Light& light : lighting.lights) {
    const Incoming in = light_arriving(light, point);
    sum += in.irradiance * phase(s, -glm::dot(in.to_light, to_eye));
  }
  return sum;
}

glm::vec3 ground_lit_factor(const Lighting& lighting, glm::vec3 point) {
  glm::vec3 sum = glm::vec3(lighting.ambient_color.linear()) * lighting.ambient;
  for (const Light& light : lighting.lights) {
    const Incoming in = light_arriving(light, point);
    sum += in.irradiance * std::max(0.0f, in.to_light.y);
  }
  return sum;
}

}  // namespace fxsim
