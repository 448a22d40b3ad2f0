#include <gtest/gtest.h>

#include "core/frame_output.h"

using namespace fxsim;

TEST(FramePath, PadsToTheRunOfHashes) {
  EXPECT_EQ(frame_path("out/snow_####.png", 7), "out/snow_0007.png");
  EXPECT_EQ(frame_path("f#.png", 12), "f12.png");
  EXPECT_EQ(frame_path("a_##_b.png", 3), "a_03_b.png");
  EXPECT_EQ(frame_path("still.png", 3), "still.png");
  // Every run, each padded to its own length (a folder a frame, and the frame in it).
  EXPECT_EQ(frame_path("out_##/f_####.png", 3), "out_03/f_0003.png");
  EXPECT_EQ(frame_path("##/#.png", 123), "123/123.png");
}

TEST(FrameSelection, ParsesOneFrameARangeOrAList) {
  const auto one = parse_frame_selection("5");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->first(), 5);
  EXPECT_EQ(one->last(), 5);
  EXPECT_EQ(one->count(), 1);
  const auto range = parse_frame_selection("3-9");
  EXPECT_EQ(range->first(), 3);
  EXPECT_EQ(range->last(), 9);
  EXPECT_EQ(range->count(), 7);
  const auto list = parse_frame_selection("40-48,1,24,45");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->first(), 1);
  EXPECT_EQ(list->last(), 48);
  EXPECT_EQ(list->count(), 11);
  EXPECT_TRUE(list->contains(24));
  EXPECT_FALSE(list->contains(25));
  EXPECT_FALSE(parse_frame_selection("9-3"));
  EXPECT_FALSE(parse_frame_selection("0"));
  EXPECT_FALSE(parse_frame_selection("a"));
  EXPECT_FALSE(parse_frame_selection("3-"));
  EXPECT_FALSE(parse_frame_selection("1,,2"));
  EXPECT_FALSE(parse_frame_selection(""));
}

TEST(FrameSelection, StepsTakeEverySthFrameOfARange) {
  const auto stepped = parse_frame_selection("1-240:2,300");
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->count(), 121);
  EXPECT_TRUE(stepped->contains(1));
  EXPECT_FALSE(stepped->contains(2));
  EXPECT_TRUE(stepped->contains(239));
  EXPECT_FALSE(stepped->contains(240));
  EXPECT_TRUE(stepped->contains(300));
  EXPECT_EQ(stepped->last(), 300);
  // The last frame is the last the step reaches, so nothing is simulated past it.
  const auto short_step = parse_frame_selection("1-10:4");
  EXPECT_EQ(short_step->last(), 9);
  EXPECT_EQ(short_step->count(), 3);
  EXPECT_FALSE(parse_frame_selection("5:2"));   // a step needs a range
  EXPECT_FALSE(parse_frame_selection("1-9:0"));
  EXPECT_FALSE(parse_frame_selection("1-9:"));
  EXPECT_FALSE(parse_frame_selection("1-9:x"));
}
