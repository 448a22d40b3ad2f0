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
};

struct Environment {
  glm::vec3 gravity{0, -9.81f, 0};
  std::optional<Ground> ground = Ground{};
  WindSettings wind;
};

enum class EmitterType { snow, rain, fountain, fire, explosion };
enum class BlendMode { alpha, additive };
enum class BillboardMode { screen, viewpoint, axial };
enum class Recycle { wrap, respawn };
enum class Motion { wind, constant };
enum class DepthScale { perspective, exp };

struct Region {
  glm::vec3 center{0, 5, 0};
  glm::vec3 size{20, 10, 20};
};

struct Sway {
  float amplitude = 0.3f;  // m
  float frequency = 0.8f;  // Hz
};

struct Splash {
  int count = 4;          // droplets per drop that reaches the ground
  float speed = 1.5f;     // m/s, about
  float size = 0.02f;     // m
  float lifetime = 0.25f; // s
};

// Precipitation: snow's keys; rain shares most of them (docs/scene-format.md).
struct PrecipitationParams {
  Region region;
  bool follow_camera = false;
  Recycle recycle = Recycle::wrap;
  bool prewarm = true;
  Motion motion = Motion::wind;
  glm::vec3 velocity{0, -1, 0};
  glm::vec3 velocity_variation{0.3f, 0.2f, 0.3f};
  float drag = 8;
  float gravity_scale = 1;
  Sway sway;
  DepthScale depth_scale = DepthScale::perspective;
  float depth_k = 1;
  int shapes = 6;
  std::vector<std::filesystem::path> textures;  // absolute, resolved against the scene file
  // Rain only.
  std::optional<Splash> splash;
  float streak = 0;  // exposure in frames: drops are drawn as their travel over streak / fps seconds
};

struct Nozzle {
  glm::vec3 position{0};
  glm::vec3 direction{0, 1, 0};  // normalised
  float speed = 8;               // m/s
  float speed_variation = 0.02f; // each drop's speed is speed × (1 + v × r), r in (-1, 1) (extension)
  float spread = 3;              // degrees, half-angle of the cone of directions
  float radius = 0.03f;          // m, jet thickness
  double rate = 20000;           // drops per second
};

struct Mist {
  float probability = 0.4f;  // per second at 8 m/s, scaled by (speed / 8)²
  float drag = 3;
  float size = 0.25f;
  float opacity = 0.06f;
  float lifetime = 2.5f;
};

struct FountainParams {
  std::vector<Nozzle> nozzles;  // the `nozzles` list, then those the `ring` adds
  float drag = 0.1f;
  float gravity_scale = 1;
  std::optional<Mist> mist = Mist{};
};

struct FireParams {
  glm::vec3 position{0};        // centre of the plane's bottom edge
  glm::vec2 size{1, 1.5f};      // width, height (m)
  int rows = 48, columns = 32;  // the grid: m rows (row m is the bottom), n columns
  float max_intensity = 255;
  float seed_fraction = 0.667f; // middle fraction of the bottom row re-seeded each update
  double update_rate = 30;      // grid updates per second
  double embers = 0;            // sparks per second
};

struct ExplosionParams {
  glm::vec3 position{0, 1, 0};
  float scale = 2;                     // final diameter (m)
  std::optional<std::filesystem::path> texture;  // a flipbook PNG instead of the procedural fireball
  int flipbook_rows = 1, flipbook_columns = 1;
  Color key_color{{1, 1, 1, 1}};       // keyed out of `texture`
  int debris = 0;                      // sparks thrown out at `start`
};

struct EmitterSettings {
  EmitterType type = EmitterType::snow;
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
  PrecipitationParams precipitation;  // for snow and rain
  FountainParams fountain;            // for fountain
  FireParams fire;                    // for fire
  ExplosionParams explosion;          // for explosion
};

struct Scene {
  std::filesystem::path file;  // where it was read from
  uint64_t seed = 1;
  OutputSettings output;
  CameraSettings camera;
  Environment environment;
  std::vector<EmitterSettings> emitters;

  double step_seconds() const { return 1.0 / (output.fps * output.substeps); }
};

const char* to_string(EmitterType type);

}  // namespace fxsim
