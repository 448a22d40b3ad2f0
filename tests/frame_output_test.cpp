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

TEST(FramePath, FindsEachRunOfHashes) {
  const auto runs = hash_runs("a##/b#c###");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].at, 1u);
  EXPECT_EQ(runs[0].length, 2u);
  EXPECT_EQ(runs[1].at, 5u);
  EXPECT_EQ(runs[1].length, 1u);
  EXPECT_EQ(runs[2].at, 7u);
  EXPECT_EQ(runs[2].length, 3u);
  EXPECT_TRUE(hash_runs("still.png").empty());
  EXPECT_EQ(replace_hash_runs("#x##", [](size_t n) { return std::to_string(n); }), "1x2");
}

TEST(FramePath, WarnsWhereTheNumbersOutgrowTheHashesInSomeNamesOnly) {
  EXPECT_EQ(frame_padding_warning("o/f_#.png", 9, 12),
            "o/f_#.png: frame 12's number has 2 digits, more than its 1 '#', and frame 9's fewer: the files' names will "
            "not sort in frame order (o/f_##.png would pad them all)");
  EXPECT_NE(frame_padding_warning("####/f_##.png", 1, 240).find("(####/f_###.png would pad them all)"),
            std::string::npos);
  EXPECT_EQ(frame_padding_warning("f_#.png", 1, 9), "");     // one digit each
  EXPECT_EQ(frame_padding_warning("f_#.png", 10, 99), "");   // two digits each: they sort
  EXPECT_EQ(frame_padding_warning("f_####.png", 1, 9999), "");
  EXPECT_EQ(frame_padding_warning("still.png", 1, 100), "");  // no '#'
}

TEST(FrameSelection, IsWrittenAsItIsRead) {
  for (const char* text : {"5", "3-9", "1-239:2,300", "40-48,1,24,45", "1-9:4"})
    EXPECT_EQ(format_frame_selection(*parse_frame_selection(text)), text);
  // A render's frames (sharded, less those written) as the manifest writes them.
  EXPECT_EQ(format_frame_selection(FrameSelection::of({1, 2, 3, 7, 9, 11, 20})), "1-3,7-11:2,20");
  const std::vector<int> frames{2, 4, 6, 7, 8, 30};
  EXPECT_EQ(parse_frame_selection(format_frame_selection(FrameSelection::of(frames)))->frames(), frames);
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
  // Frames as output.frames allows them: up to ten million (two thousand
  // million was a list of them in memory, then exit 70 "out of memory").
  EXPECT_EQ(parse_frame_selection("1-10000000")->last(), 10000000);
  EXPECT_FALSE(parse_frame_selection("1-10000001"));
  EXPECT_FALSE(parse_frame_selection("1-2000000000"));
  EXPECT_FALSE(parse_frame_selection("1-20:10000001"));
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

TEST(FrameSelection, OfMakesOneRangeOfEachRunWithACommonStep) {
  // What a resumed render asks for: the frames not yet written.
  const FrameSelection strided = FrameSelection::of({1, 3, 5, 7, 8, 9, 20});
  ASSERT_EQ(strided.ranges.size(), 3u);
  EXPECT_EQ(strided.ranges[0].first, 1);
  EXPECT_EQ(strided.ranges[0].last, 7);
  EXPECT_EQ(strided.ranges[0].step, 2);
  EXPECT_EQ(strided.ranges[1].first, 8);
  EXPECT_EQ(strided.ranges[1].last, 9);
  EXPECT_EQ(strided.ranges[2].first, 20);
  EXPECT_EQ(strided.frames(), (std::vector<int>{1, 3, 5, 7, 8, 9, 20}));
  EXPECT_EQ(strided.count(), 7);
  EXPECT_FALSE(strided.contains(2));
  EXPECT_TRUE(strided.contains(9));
  // Every other frame of a long range stays one range, as it was given.
  std::vector<int> odd;
  for (int f = 1; f <= 2'000'001; f += 2) odd.push_back(f);
  const FrameSelection many = FrameSelection::of(odd);
  EXPECT_EQ(many.ranges.size(), 1u);
  EXPECT_EQ(many.count(), 1'000'001);
  EXPECT_EQ(many.frames(), odd);
}

TEST(FrameSelection, FramesAreEachSelectedFrameOnceInOrder) {
  const auto overlapping = parse_frame_selection("10-20:5,1-12,15");
  ASSERT_TRUE(overlapping);
  EXPECT_EQ(overlapping->frames(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20}));
  EXPECT_EQ(overlapping->count(), 14);
  // A range ending at the largest frame number ends there.
  const auto top = parse_frame_selection("9999990-10000000:3");
  ASSERT_TRUE(top);
  EXPECT_EQ(top->frames(), (std::vector<int>{9999990, 9999993, 9999996, 9999999}));
}
