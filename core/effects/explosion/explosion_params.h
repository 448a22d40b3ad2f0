#pragma once
// Explosions: their parameters (defaults in the initialisers) and their
// descriptor. An explosion lasts 1.5 s unless its `duration` says otherwise.
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

struct ExplosionParams {
  static constexpr double default_duration = 1.5;  // s, when the emitter gives no `duration`
  glm::vec3 position{0, 1, 0};
  float scale = 2;                     // final diameter (m)
  std::optional<std::filesystem::path> texture;  // a flipbook PNG instead of the procedural fireball
  int flipbook_rows = 1, flipbook_columns = 1;
  Color key_color{{1, 1, 1, 1}};       // keyed out of `texture`
  int debris = 0;                      // sparks thrown out at `start`
};

FXSIM_EFFECT(ExplosionParams, "explosion", {0, "#ffffff", 1.0, 0.04, BlendMode::alpha, BillboardMode::viewpoint, true,
                                            false, "debris", false});

}  // namespace fxsim
