#include "core/streak_geometry.h"

#include <cmath>
#include <glm/geometric.hpp>

#include "core/window_position.h"

namespace fxsim {

StreakQuad streak_quad(const glm::mat4& view, const glm::mat4& projection, glm::vec2 viewport, float near_plane,
                       glm::vec3 head, glm::vec3 tail, float width, float min_width_pixels) {
  StreakQuad q;
  glm::vec4 a = view * glm::vec4(tail, 1.0f), b = view * glm::vec4(head, 1.0f);
  // Clip the segment to the near plane (view space looks down -z).
  const float z_near = -near_plane * 1.001f;
  if (a.z > z_near && b.z > z_near) return q;
  if (a.z > z_near) a = a + (b - a) * ((z_near - a.z) / (b.z - a.z));
  if (b.z > z_near) b = b + (a - b) * ((z_near - b.z) / (a.z - b.z));
  const glm::vec4 ca = projection * a, cb = projection * b;
  q.tail = window_position(ca, viewport);
  q.head = window_position(cb, viewport);
  glm::vec2 along = q.head - q.tail;
  const float length = glm::length(along);
  along = length > 1e-4f ? along / length : glm::vec2(0.0f, 1.0f);
  const glm::vec2 across(-along.y, along.x);
  float width_tail = width * projection[1][1] * 0.5f * viewport.y / ca.w;
  float width_head = width * projection[1][1] * 0.5f * viewport.y / cb.w;
  if (width_head < min_width_pixels) q.alpha_scale = width_head / min_width_pixels;
  width_tail = std::max(width_tail, min_width_pixels);
  width_head = std::max(width_head, min_width_pixels);
  const glm::vec2 t = q.tail - along * (0.5f * width_tail), h = q.head + along * (0.5f * width_head);
  q.corners[0] = t + across * (0.5f * width_tail);
  q.corners[1] = t - across * (0.5f * width_tail);
  q.corners[2] = h + across * (0.5f * width_head);
  q.corners[3] = h - across * (0.5f * width_head);
  q.visible = true;
  return q;
}

}  // namespace fxsim
