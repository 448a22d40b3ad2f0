#pragma once
// Snow and rain: their parameters (defaults in the initialisers; rain's own
// differences in RainParams) and their descriptors. docs/scene-format.md has the keys.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/color.h"
#include "core/effects/effect.h"
#include "core/weather.h"

namespace fxsim {

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
  // Physical units (`intensity`, snow's `visibility`): each particle's size
  // (and a drop's fall speed) drawn from this distribution (core/weather.h).
  std::optional<SizeDistribution> sizes;
};

// Snow and rain are two types with one system: distinct types, so that a
// dispatch over the types (std::visit) sees both.
struct SnowParams : PrecipitationParams {};
struct RainParams : PrecipitationParams {
  RainParams();  // rain's own defaults: faster, less drag, no sway, one shape, streaks
};

FXSIM_EFFECT(SnowParams, "snow", {20000, "#ffffff", 0.9, 0.05, BlendMode::alpha, BillboardMode::screen});

FXSIM_EFFECT(RainParams, "rain", {50000, "#aab4c8", 0.35, 0.01, BlendMode::alpha, BillboardMode::screen});

}  // namespace fxsim
