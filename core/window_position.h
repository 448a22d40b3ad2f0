#pragma once
// Where a clip-space point lands on the screen, in pixels: the divide by w
// and the viewport transform GL applies. Shared by every CPU path that must
// put a sprite's corners where the GL rasteriser puts them.
#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

namespace fxsim {

inline glm::vec2 window_position(glm::vec4 clip, glm::vec2 viewport) {
  return (glm::vec2(clip) / clip.w * 0.5f + 0.5f) * viewport;
}

}  // namespace fxsim
