// The compute rasteriser's choice of coverage walk for a draw
// (render/compute_rasteriser.h coverage_by_planes): the draws measured on
// the device fall on the side they were measured faster on.
#include <gtest/gtest.h>

#include "render/compute_rasteriser.h"

using namespace fxsim;

TEST(CoverageChoice, PlanesForDrawsOfAMillionSpritesUnlessTallInScreenOrder) {
  // Rain 100 M's parts and rain 10 M: tall, in no screen order (records).
  EXPECT_TRUE(coverage_by_planes(11184896, 6044306, true, 9803232));
  EXPECT_TRUE(coverage_by_planes(10000000, 5405655, true, 8765681));
  // The 5 M fountain's mist (not tall, in jet order): planes; its drops (tall, in jet order): corners.
  EXPECT_TRUE(coverage_by_planes(5000000, 3565876, false, 1881282));
  EXPECT_FALSE(coverage_by_planes(5000000, 3022062, true, 1550762));
  // Under a million drawn: corners, whatever else (battlefield's draws; rain 100 M's small parts).
  EXPECT_FALSE(coverage_by_planes(6000, 3328, false, 5279));
  EXPECT_FALSE(coverage_by_planes(11184768, 124589, true, 9803692));
  // The edges of the rule: a million drawn, and jumps of exactly half the slots.
  EXPECT_TRUE(coverage_by_planes(2000000, 1000000, true, 1000000));
  EXPECT_FALSE(coverage_by_planes(2000000, 999999, false, 2000000));
  EXPECT_FALSE(coverage_by_planes(2000001, 1000000, true, 1000000));
}
