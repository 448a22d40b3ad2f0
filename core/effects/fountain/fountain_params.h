#pragma once
// Fountains: their parameters (defaults in the initialisers) and their descriptor.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/color.h"
#include "core/effects/effect.h"

namespace fxsim {

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
  // Not a key: the fraction of a frame a drop's streak shows, camera.shutter when given.
  float shutter = 0.5f;
};

FXSIM_EFFECT(FountainParams, "fountain", {200000, "#cfe3ff", 0.6, 0.04, BlendMode::alpha, BillboardMode::screen});

}  // namespace fxsim
