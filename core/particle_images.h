#pragma once
// Procedural textures other than snowflakes, premultiplied white on
// transparent black: the rain streak of paper 001 section 2.5 (one texture for
// all drops: soft across, tapered at both ends) and a soft round droplet.
#include <cstdint>

#include "core/image.h"

namespace fxsim {

// width × length texels; v runs along the streak.
Image rain_streak_image(int width, int length);
Image droplet_image(int size);
// A soft puff of mist: seeded, tileable gradient noise (three octaves, periods
// 4, 8 and 16 lattice cells across the texture) under a round falloff.
Image mist_image(int size, uint64_t seed);

}  // namespace fxsim
