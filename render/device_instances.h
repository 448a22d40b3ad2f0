#pragma once
// Sprite instances that already lie in GPU memory: the GPU backend builds them
// there and the sprite pass draws from them directly. Core code carries only a
// pointer to this (SpriteBatch::device_instances), never a GL name.
#include <cstddef>

#include "render/gl_objects.h"

namespace fxsim {

struct DeviceInstances {
  GlBuffer buffer;  // SpriteInstance layout, one per slot
  size_t capacity_bytes = 0;
};

}  // namespace fxsim
