#pragma once
// Procedural snowflakes: six-fold symmetric crystals (paper 001 section 2.5
// draws each flake with one of several textures). Every shape is drawn from
// its own seeded draws: arm length and width, side branches (position, length,
// angle of growth) and an optional hexagonal plate at the centre, rendered as a
// distance field with soft edges and a faint glow, supersampled. Pure CPU code.
#include <cstdint>

#include "core/image.h"

namespace fxsim {

// A white flake on transparent black, premultiplied (rgb = alpha), size×size texels.
Image snowflake_image(int size, uint64_t seed, uint32_t shape);

}  // namespace fxsim
