#pragma once
// How a fire's grid is drawn (beyond paper 002, which colours each cell by
// its intensity): the texture laid on the burning plane each frame.
#include <cstdint>
#include <vector>

#include "core/effects/fire/fire.h"
#include "core/effects/fire/fire_params.h"

namespace fxsim {

struct FlameTexture {
  int width = 0, height = 0;
  std::vector<uint8_t> texels;  // premultiplied sRGB-encoded RGBA, bottom row first
};

// The plane's texture at `time` seconds of burning: the grid's heat (the
// seeded bottom row, the fuel, hidden), sampled bilinearly, scaled so that
// the base burns white, cut by a flame outline that sways and breaks into
// tongues rising with gradient noise keyed by `seed`, and coloured by
// fire_color's ramp.
FlameTexture flame_texture(const FireGrid& grid, const FireParams& fire, double time, uint32_t seed);

}  // namespace fxsim
