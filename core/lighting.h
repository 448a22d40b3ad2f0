#pragma once
// How particles are lit (docs/scene-format.md, "Light"). A light reaching a
// point x gives the irradiance
//   directional: E = intensity
//   point, spot: E = intensity / max(r², 0.01) · (clamp(1 − (r/range)⁴, 0, 1))²  (r: distance to the light)
//   spot also:   × smoothstep(cos outer, cos inner, cos of the angle off its axis)
// and a particle scatters it towards the eye by its effect's phase function,
// a mix of isotropic scattering and Henyey–Greenstein lobes, normalised so
// that isotropic scattering is 1:
//   P(μ) = w_iso + w_forward · HG(g, μ) + w_backward · HG(g_back, μ),
//   HG(g, μ) = (1 − g²) / (1 + g² − 2 g μ)^(3/2)
// with μ the cosine between the light's travel and the direction to the eye
// (1: the particle is between the eye and the light, backlit). The particle
// shows its colour × (ambient colour · ambient + Σ light colour · E · P(μ)).
// render/lighting_glsl.h is the shaders' copy.
#include <optional>
#include <vector>

#include <glm/vec3.hpp>

#include "core/camera_path.h"
#include "core/scene.h"

namespace fxsim {

// The phase function of a kind of particle.
struct Scattering {
  float isotropic = 1, forward = 0, g = 0;
  float backward = 0, g_back = 0;  // a second lobe, backwards (g_back < 0): a drop's rainbow and glory
  bool lit = true;  // false: it emits its own light (fire, explosions, additive sparks)
};

// Snow: mostly diffuse (flakes face every way), some forward scattering, so a
// backlit flake glows. Drops: dim but for a strong, narrow forward glint (a
// drop refracts a light behind it towards the eye) and a broad backward lobe
// (the light a drop sends back towards its source, at the rainbow's and the
// glory's angles: drops light up in headlights). Mist: fine droplets scatter
// forward in a broad lobe.
inline constexpr Scattering kSnowScattering{0.8f, 0.2f, 0.6f};
inline constexpr Scattering kDropScattering{0.1f, 0.75f, 0.85f, 0.15f, -0.5f};
inline constexpr Scattering kMistScattering{0.35f, 0.65f, 0.7f};
inline constexpr Scattering kEmitted{1, 0, 0, 0, 0, false};

// The lights where they are at a frame: those following the camera moved
// from its frame into the world.
Lighting lighting_at(const Lighting& lighting, const CameraPose& camera);

// The point lights of the fires and explosions with a `light`, at time t:
//   fire: at its plane's centre (0.4 of its height up) while it burns,
//     intensity × (1 + 0.12 sin(2π · 1.7 t + φ) + 0.08 sin(2π · 4.3 t + 2φ)),
//     φ from the emitter's seed (a flicker, the same every run);
//   explosion: at its centre during its duration T, intensity × τ / 0.1 for
//     τ = (t − start) / T < 0.1, then × e^(−4 (τ − 0.1) / 0.9) (a flash
//     fading with the fireball).
std::vector<Light> effect_lights(const Scene& scene, double t);

// Whether the scene's particles are lit: it has an ambient, lights or an
// effect with a light (else each shows its own colour).
bool is_lit(const Scene& scene);

// Everything lighting the frame at time t (the scene's lights where they are,
// and the effects'), or none when the scene has no ambient, lights or effect
// light (its particles then show their own colours).
std::optional<Lighting> frame_lighting(const Scene& scene, const CameraPose& camera, double t);

// The model of a batch of an emitter's sprites.
Scattering scattering_of(const EmitterSettings& emitter, SpriteLook look, BlendMode blend);

// The irradiance a light gives at `point` (linear colour × E) and the unit
// vector from the point towards the light.
struct Incoming {
  glm::vec3 irradiance{0};
  glm::vec3 to_light{0, 1, 0};
};
Incoming light_arriving(const Light& light, glm::vec3 point);

float phase(const Scattering& s, float mu);

// A point or spot light's source seen from `eye` as a disc `size` wide: its
// radiance, colour × intensity × max(cone towards the eye, kSourceSpill) /
// (π (size / 2)²) (the intensity it sends towards the eye spread over the
// disc; a spot's housing still glows a little outside its cone).
inline constexpr float kSourceSpill = 0.02f;
glm::vec3 source_radiance(const Light& light, glm::vec3 eye);

// The factor a particle's linear colour is multiplied by at `point` seen from `eye`.
glm::vec3 lit_factor(const Lighting& lighting, const Scattering& s, glm::vec3 point, glm::vec3 eye);

// The ground's (Lambertian, facing up): ambient + Σ E · max(0, n·l).
glm::vec3 ground_lit_factor(const Lighting& lighting, glm::vec3 point);

}  // namespace fxsim
