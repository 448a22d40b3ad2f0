#pragma once
// Sprite instances that already lie in GPU memory: the GPU backend builds them
// there and the sprite pass draws from them directly. Core code carries only a
// pointer to this (SpriteBatch::device_instances), never a GL name.
#include "render/compute.h"

namespace fxsim {

struct DeviceInstances {
  DeviceBuffer buffer;  // SpriteInstance layout, one per slot
  // The motion layer: each slot's centre at the previous frame (w = 1) or
  // w = 0 where it has none, built with the instances when remembered.
  DeviceBuffer previous;
  bool has_previous = false;
};

}  // namespace fxsim
