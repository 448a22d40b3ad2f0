#pragma once
// Explosion pictures: the procedural fireball flipbook (seeded noise: a hot
// core that grows, cools through yellow and red to dark smoke and fades) and
// a user's PNG flipbook cut into frames with its key colour made transparent.
// All premultiplied, one image per frame, in playing order.
#include <cstdint>
#include <vector>

#include "core/color.h"
#include "core/image.h"

namespace fxsim {

std::vector<Image> fireball_flipbook(int frames, int size, uint64_t seed);

// Cuts `sheet` into rows × columns frames (read left to right, top to bottom);
// pixels near `key` become transparent (soft over a small colour distance).
std::vector<Image> keyed_flipbook(const Image& sheet, int rows, int columns, const Color& key);

}  // namespace fxsim
