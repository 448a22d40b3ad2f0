#include <gtest/gtest.h>

#include <cmath>
#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include "core/camera_path.h"
#include "core/streak_geometry.h"
#include "core/window_position.h"

using namespace fxsim;

namespace {
const CameraPose kStreakCamera{{0, 1.5f, 8}, {0, 1.5f, 0}, {0, 1, 0}, 50, 0.1f, 100};
const glm::vec2 kViewport{640, 360};

glm::vec2 streak_camera_pixel(glm::vec3 p) {
  const glm::mat4 vp = kStreakCamera.projection(kViewport.x / kViewport.y) * kStreakCamera.view();
  return window_position(vp * glm::vec4(p, 1.0f), kViewport);
}

StreakQuad quad_for(glm::vec3 head, glm::vec3 velocity, float exposure, float width) {
  return streak_quad(kStreakCamera.view(), kStreakCamera.projection(kViewport.x / kViewport.y), kViewport, kStreakCamera.near_plane,
                     head, head - velocity * exposure, width, 1.5f);
}
}  // namespace

TEST(StreakQuad, SpansTheProjectedTravelOfTheDrop) {
  // A drop 8 m in front of the camera falling at 7.5 m/s, blown sideways at 3 m/s, 1/24 s exposure.
  const glm::vec3 head{0.5f, 1.0f, 0}, velocity{3, -7.5f, 0};
  const float exposure = 1.0f / 24.0f;
  const StreakQuad q = quad_for(head, velocity, exposure, 0.01f);
  ASSERT_TRUE(q.visible);
  const glm::vec2 expected_head = streak_camera_pixel(head), expected_tail = streak_camera_pixel(head - velocity * exposure);
  EXPECT_NEAR(q.head.x, expected_head.x, 1e-3f);
  EXPECT_NEAR(q.head.y, expected_head.y, 1e-3f);
  EXPECT_NEAR(q.tail.x, expected_tail.x, 1e-3f);
  EXPECT_NEAR(q.tail.y, expected_tail.y, 1e-3f);
  // The quad's centre line: mid-points of its two ends, minus the caps.
  const glm::vec2 tail_mid = (q.corners[0] + q.corners[1]) * 0.5f, head_mid = (q.corners[2] + q.corners[3]) * 0.5f;
  const glm::vec2 axis = head_mid - tail_mid;
  const float width_tail = glm::distance(q.corners[0], q.corners[1]);
  const float width_head = glm::distance(q.corners[2], q.corners[3]);
  const glm::vec2 expected = expected_head - expected_tail;
  EXPECT_NEAR(glm::length(axis) - 0.5f * (width_tail + width_head), glm::length(expected), 1e-3f);
  EXPECT_NEAR(std::atan2(axis.y, axis.x), std::atan2(expected.y, expected.x), 1e-4f);
  // Screen-space numbers by hand: focal length 180 / tan(25°) = 386.0 px at 8 m:
  // the drop moves 0.3125 m down and 0.125 m right: 15.1 px down, 6.0 px right
  // (window pixels: y up).
  EXPECT_NEAR(expected.y, -0.3125f * 386.02f / 8.0f, 0.05f);
  EXPECT_NEAR(expected.x, 0.125f * 386.02f / 8.0f, 0.05f);
  // Its sides are parallel to the axis and as wide as the drop (at least the minimum).
  EXPECT_NEAR(width_head, 1.5f, 1e-4f);
  EXPECT_NEAR(glm::dot(glm::normalize(q.corners[0] - q.corners[1]), glm::normalize(axis)), 0.0f, 1e-4f);
  EXPECT_NEAR(q.alpha_scale, 0.01f * 386.02f / 8.0f / 1.5f, 1e-3f);
}

TEST(StreakQuad, WideDropsKeepTheirWidthAndFullAlpha) {
  const StreakQuad q = quad_for({0, 1.5f, 4}, {0, -8, 0}, 1.0f / 24.0f, 0.05f);
  ASSERT_TRUE(q.visible);
  EXPECT_NEAR(glm::distance(q.corners[2], q.corners[3]), 0.05f * 386.02f / 4.0f, 1e-2f);
  EXPECT_EQ(q.alpha_scale, 1.0f);
}

TEST(StreakQuad, IsClippedAtTheNearPlaneAndHiddenBehindTheEye) {
  // Entirely behind the camera: invisible.
  EXPECT_FALSE(quad_for({0, 1.5f, 9}, {0, -8, 0}, 0.04f, 0.01f).visible);
  // Crossing the near plane: the visible part ends at it, in front of the eye.
  const StreakQuad q = quad_for({0, 1.0f, 7.5f}, {0, 0, -20}, 0.1f, 0.01f);
  ASSERT_TRUE(q.visible);
  EXPECT_TRUE(std::isfinite(q.tail.x) && std::isfinite(q.tail.y));
}
