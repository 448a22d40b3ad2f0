#pragma once
// The scene as plain data: what the user wrote, with defaults filled in and
// every value validated (see scene_parser.h). Runtime objects are built from it.
// The defaults below are the ones of docs/scene-format.md.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/color.h"
#include "core/png_writer.h"
#include "core/effects/registry.h"

namespace fxsim {

struct OutputSettings {
  int width = 640;
  int height = 360;
  double fps = 24;
  int substeps = 1;
  int frames = 48;
  std::string path;  // '#' runs are the frame number
  Color background{{0, 0, 0, 1}};
  int samples = 4;
  int png_level = kDefaultPngLevel;  // zlib level of the PNG frames, 0..9
  int bit_depth = 8;                 // of PNG frames: 8 or 16
  // Ground-truth layers written with each frame (docs/scene-format.md).
  bool depth_layer = false;  // "depth": view distance of the nearest particle covering a pixel
  bool mask_layers = false;  // "mask": each emitter's coverage on its own
  bool motion_layer = false; // "motion": screen-space motion of the particles, pixels per frame
  bool plate_layer = false;  // "plate": the clean plate copied beside each frame
  // A background plate drawn behind the particles ('#' runs: the frame
  // number), and its depth (metres along the view) hiding particles behind
  // the plate's geometry. Resolved against the scene file's folder.
  std::filesystem::path plate, plate_depth;
  float plate_soft = 0;  // m: sprites fade out over this distance in front of the plate's depth (soft particles)
  // A plate, or its depth alone (a holdout): the plate pass runs.
  bool has_plate_pass() const { return !plate.empty() || !plate_depth.empty(); }
  // Display: `filmic` maps light above 1 smoothly into the frame (core/tone.h);
  // `clip` cuts it off. Bloom spreads light above `threshold` around it.
  enum class Tone { clip, filmic } tone = Tone::clip;
  struct Bloom {
    float strength = 0.04f, threshold = 1, radius = 0.03f;  // radius: fraction of the image height
  };
  std::optional<Bloom> bloom;
  // A background with alpha below 1 ("transparent" is #00000000): the frames
  // carry the effect's coverage as alpha, for compositing.
  bool transparent() const { return background.srgb.a < 1; }
};

struct CameraKey {
  double time = 0;
  glm::vec3 position{0};
  glm::vec3 target{0};
};

struct CameraSettings {
  glm::vec3 position{0, 2, 10};
  glm::vec3 target{0, 2, 0};
  glm::vec3 up{0, 1, 0};
  float fov = 50;  // vertical, degrees
  float near_plane = 0.1f;
  float far_plane = 1000;
  std::vector<CameraKey> keys;  // already completed: missing fields carried forward
  // The exposure (docs/scene-format.md, "camera"): none of these changes the simulation.
  std::optional<float> shutter;         // open fraction of the frame interval: motion streaks
  std::optional<float> aperture;        // f-number: depth of field (a 24 mm high sensor)
  std::optional<float> focus_distance;  // m; default: the distance to the target
  float exposure = 0;                   // stops: light × 2^exposure
};

struct Gust {
  glm::vec3 amplitude{0};
  double period = 4;
};

struct Turbulence {
  float strength = 0;  // m/s
  float scale = 1;     // m
};

struct WindSettings {
  glm::vec3 velocity{0};
  std::optional<Gust> gust;
  std::optional<Turbulence> turbulence;
};

struct Ground {
  float height = 0;
  std::optional<Color> color;  // drawn only when given
  float soft = 0;  // m: sprites fade out over this distance in front of the ground (soft particles)
};

// Distance fog (docs/scene-format.md): extinction `density` per metre at
// height `base`, falling off as exp(-height_falloff × (h - base)) above it.
struct Fog {
  Color color{{0.75f, 0.78f, 0.82f, 1}};
  float density = 0.02f;       // 1/m
  float height_falloff = 0;    // 1/m; 0: the same density at every height
  float base = 0;              // m
};

// A light (docs/scene-format.md, "lights"; core/lighting.h has the model).
enum class LightType { directional, point, spot };
struct Light {
  LightType type = LightType::point;
  glm::vec3 position{0, 5, 0};     // point, spot
  glm::vec3 direction{0, -1, 0};   // directional: the way the light travels; spot: its axis
  Color color{{1, 1, 1, 1}};
  float intensity = 1;             // directional: illuminance; point, spot: at 1 m
  float range = 30;                // m: the light fades smoothly to nothing there (point, spot)
  float inner_cone = 25, outer_cone = 35;  // spot: half-angles in degrees, full inside, none outside
  float size = 0;  // m: the source drawn as a glowing disc this wide (0: unseen)
  // Carried by the camera (headlights): position and direction in the
  // camera's frame, x right, y up, z backward (the view is along −z).
  bool follow_camera = false;
};

// Lit particles: on when `ambient` or `lights` is given; otherwise every
// particle shows its own colour, unlit.
struct Lighting {
  Color ambient_color{{1, 1, 1, 1}};
  float ambient = 0;  // sky light reaching every particle from all around
  std::vector<Light> lights;
};

// A vertical gradient behind everything, from the horizon to the zenith.
struct Sky {
  Color horizon, zenith;
};

struct Environment {
  glm::vec3 gravity{0, -9.81f, 0};
  std::optional<Ground> ground = Ground{};
  WindSettings wind;
  std::optional<Fog> fog;  // none unless given
  std::optional<Lighting> lighting;
  std::optional<Sky> sky;
};

// The light a fire or an explosion gives off (its `light`), a point light at
// the effect while it is active (core/lighting.h, effect_lights).
struct EffectLight {
  Color color{{1.0f, 0.6f, 0.3f, 1}};
  float intensity = 10;  // at 1 m, at its brightest
  float range = 15;
};

struct EmitterSettings {
  EmitterParams params;  // the type's own parameters: its type is the variant's alternative
  std::string name;
  uint64_t seed = 0;
  int64_t max_particles = 0;
  double start = 0;
  std::optional<double> duration;
  Color color;
  float opacity = 1;
  float size = 0.05f;
  float size_variation = 0;
  BlendMode blend = BlendMode::alpha;
  BillboardMode billboard = BillboardMode::screen;
  std::optional<EffectLight> light;  // fire and explosions only

  template <class P>
  bool is() const { return std::holds_alternative<P>(params); }
  template <class P>
  const P& as() const { return std::get<P>(params); }
  // Snow's or rain's parameters (both are precipitation); throws for another type.
  const PrecipitationParams& precipitation() const;
  bool is_precipitation() const { return is<SnowParams>() || is<RainParams>(); }
  const char* type_name() const;
};

struct Scene {
  std::filesystem::path file;  // where it was read from
  uint64_t seed = 1;
  OutputSettings output;
  CameraSettings camera;
  Environment environment;
  std::vector<EmitterSettings> emitters;
  // SHA-256 (hex) of what the simulation depends on: the scene after its
  // overrides, without the output settings other than fps and substeps (a
  // checkpoint made at another size or into another folder still fits).
  std::string simulation_key;
  // SHA-256 (hex) of what a frame's pixels depend on besides: the whole scene
  // after its overrides but for where the frames go, how many there are, how
  // hard PNGs are compressed and the image size (checked on its own): frames
  // of another exposure, fog or colour are of another look, though of the
  // same simulation.
  std::string look_key;
  // Every texture file the emitters read (resolved against the scene's
  // folder, each once): with the plates, what core/input_digest.h hashes.
  std::vector<std::filesystem::path> texture_files;
  // What the parser accepted but the user should hear (a particle count capped).
  std::vector<std::string> warnings;
  // The command line's overrides, (pointer, label) in the order applied, so a
  // problem found after parsing (memory, a plate) names the flag that set
  // its value instead of the file's place.
  std::vector<std::pair<std::string, std::string>> overridden;

  double step_seconds() const { return 1.0 / (output.fps * output.substeps); }
  // The simulation's time at frame `frame` (its last step's end), as Simulation::time() says it there.
  double frame_seconds(int frame) const { return double(int64_t(frame) * output.substeps) * step_seconds(); }
};

}  // namespace fxsim
