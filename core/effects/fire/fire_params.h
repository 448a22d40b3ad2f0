#pragma once
// Fire: its parameters (defaults in the initialisers) and its descriptor. Its
// `size` is the plane's [width, height], not a sprite diameter.
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

struct FireParams {
  glm::vec3 position{0};        // centre of the plane's bottom edge
  glm::vec2 size{1, 1.5f};      // width, height (m)
  int rows = 48, columns = 32;  // the grid: m rows (row m is the bottom), n columns
  float max_intensity = 255;
  float seed_fraction = 0.667f; // middle fraction of the bottom row re-seeded each update
  double update_rate = 30;      // grid updates per second
  double embers = 0;            // sparks per second
};

FXSIM_EFFECT(FireParams, "fire", {4000, "#ffffff", 1.0, 0.03, BlendMode::additive, BillboardMode::screen, false, false,
                                  "embers"});

}  // namespace fxsim
