#include <gtest/gtest.h>

#include <glm/geometric.hpp>

#include "core/camera_path.h"

using namespace fxsim;

namespace {
CameraSettings three_keys() {
  CameraSettings c;
  c.keys = {{0, {0, 2, 10}, {0, 2, 0}}, {2, {5, 2, 5}, {0, 2, 0}}, {6, {10, 3, 0}, {0, 1, 0}}};
  return c;
}
}  // namespace

TEST(CameraPath, PassesThroughEveryKeyAndClampsAtTheEnds) {
  const CameraSettings c = three_keys();
  for (const auto& k : c.keys) {
    EXPECT_LT(glm::distance(camera_at(c, k.time).position, k.position), 1e-5f);
    EXPECT_LT(glm::distance(camera_at(c, k.time).target, k.target), 1e-5f);
  }
  EXPECT_EQ(camera_at(c, -1).position, c.keys.front().position);
  EXPECT_EQ(camera_at(c, 100).position, c.keys.back().position);
}

TEST(CameraPath, IsContinuousBetweenKeys) {
  const CameraSettings c = three_keys();
  glm::vec3 previous = camera_at(c, 0).position;
  for (double t = 0.01; t <= 6; t += 0.01) {
    const glm::vec3 p = camera_at(c, t).position;
    EXPECT_LT(glm::distance(p, previous), 0.1f) << t;
    previous = p;
  }
}

TEST(CameraPath, ViewMatrixPutsTheTargetAhead) {
  CameraPose pose{{0, 2, 10}, {0, 2, 0}, {0, 1, 0}, 50, 0.1f, 1000};
  const glm::vec4 target = pose.view() * glm::vec4(0, 2, 0, 1);
  EXPECT_NEAR(target.x, 0, 1e-5f);
  EXPECT_NEAR(target.y, 0, 1e-5f);
  EXPECT_NEAR(target.z, -10, 1e-5f);
  const glm::mat3 b = pose.basis();
  EXPECT_NEAR(b[0].x, 1, 1e-6f);  // right = +x
  EXPECT_NEAR(b[1].y, 1, 1e-6f);  // up = +y
}
