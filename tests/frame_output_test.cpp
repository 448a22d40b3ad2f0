#include <gtest/gtest.h>

#include "core/frame_output.h"

using namespace fxsim;

TEST(FramePath, PadsToTheRunOfHashes) {
  EXPECT_EQ(frame_path("out/snow_####.png", 7), "out/snow_0007.png");
  EXPECT_EQ(frame_path("f#.png", 12), "f12.png");
  EXPECT_EQ(frame_path("a_##_b.png", 3), "a_03_b.png");
  EXPECT_EQ(frame_path("still.png", 3), "still.png");
}

TEST(FrameRange, ParsesOneFrameOrARange) {
  EXPECT_EQ(parse_frame_range("5")->first, 5);
  EXPECT_EQ(parse_frame_range("5")->last, 5);
  EXPECT_EQ(parse_frame_range("3-9")->first, 3);
  EXPECT_EQ(parse_frame_range("3-9")->last, 9);
  EXPECT_FALSE(parse_frame_range("9-3"));
  EXPECT_FALSE(parse_frame_range("0"));
  EXPECT_FALSE(parse_frame_range("a"));
  EXPECT_FALSE(parse_frame_range("3-"));
}
