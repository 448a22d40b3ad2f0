#pragma once
// Procedural textures other than snowflakes, premultiplied white on
// transparent black: the rain streak of paper 001 section 2.5 (one texture for
// all drops: soft across, tapered at both ends) and a soft round droplet.
#include "render/image.h"

namespace fxsim {

// width × length texels; v runs along the streak.
Image rain_streak_image(int width, int length);
Image droplet_image(int size);

}  // namespace fxsim
