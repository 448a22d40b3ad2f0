#pragma once
// The screen-space quad of a streak (a rain drop's travel during the
// exposure): from the projected tail to the projected head, as wide as the
// drop, with round-ended caps half a width long. The sprite vertex shader
// builds the same quad (kept in step with this function; the tests check both).
#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace fxsim {

struct StreakQuad {
  bool visible = false;
  // Window pixels: corners[0..1] at the tail (left, right of the direction of
  // travel), corners[2..3] at the head.
  glm::vec2 corners[4];
  glm::vec2 tail, head;    // the projected segment, pixels
  float alpha_scale = 1;   // < 1 when the drop is thinner than the minimum width
};

StreakQuad streak_quad(const glm::mat4& view, const glm::mat4& projection, glm::vec2 viewport, float near_plane,
                       glm::vec3 head, glm::vec3 tail, float width, float min_width_pixels);

}  // namespace fxsim
