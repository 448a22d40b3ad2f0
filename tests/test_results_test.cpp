// What `fxsim test` says of a frame's comparison (core/test_results.h).
#include <gtest/gtest.h>

#include "core/image_compare.h"
#include "core/test_results.h"
#include "core/test_suite.h"
#include "core/utf8.h"

using namespace fxsim;

TEST(TestResults, AWarningNamesTheWarnFiguresThatMadeIt) {
  // 10 of 100 pixels off by 2/255: under the fail threshold, over the warn one.
  Image golden{10, 10, std::vector<uint8_t>(400, 100)}, actual = golden;
  for (size_t p = 0; p < 10; ++p) actual.rgba[p * 4] = 102;
  CompareThresholds t;
  t.fail = 3.0 / 255, t.fail_percent = 1, t.warn = 1.0 / 255, t.warn_percent = 5;
  const ImageComparison c = compare_images(golden, actual, t);
  ASSERT_EQ(c.verdict, CompareVerdict::warning);
  const std::string said = describe_comparison(c, t);
  EXPECT_NE(said.find("0.00 % of pixels over 3/255 (1 % allowed)"), std::string::npos) << said;
  EXPECT_NE(said.find("warned: 10.00 % over 1/255 (5 % allowed)"), std::string::npos) << said;
  // A pass says nothing of warnings.
  t.warn_percent = 20;
  EXPECT_EQ(describe_comparison(compare_images(golden, actual, t), t).find("warned"), std::string::npos);
}

TEST(TestResults, ARenderThatFailedIsAJUnitErrorAndAFrameThatDiffersAFailure) {
  SuiteCheck suite;
  suite.name = std::string("s");  // (the literal assigned: GCC 12 at -O3 warned of a memcpy of 2^63 bytes, falsely)
  SceneCheck broken;
  broken.name = "broken";
  broken.render_error = "fxsim render exited with 70: <GL lost>";
  SceneCheck differs;
  differs.name = "differs";
  FrameCheck frame;
  frame.frame = 6;
  frame.status = CheckStatus::fail;
  frame.message = "max 9/255";
  differs.frames.push_back(frame);
  suite.scenes = {broken, differs};
  const std::string xml = junit_xml({suite});
  EXPECT_NE(xml.find("<testsuite name=\"s\" tests=\"2\" failures=\"1\" errors=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuites name=\"fxsim test\" tests=\"2\" failures=\"1\" errors=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error type=\"render\" message=\"fxsim render exited with 70: &lt;GL lost&gt;\">"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"image\" message=\"FAIL: max 9/255\">"), std::string::npos) << xml;
}

TEST(TestResults, NamesThatAreNotUtf8AreWellFormedXml) {
  // A suite's file names are bytes: one that is not UTF-8 went into the
  // JUnit file as it was, and no XML parser read the file.
  SuiteCheck suite;
  suite.name = std::string("s\xff");
  SceneCheck scene;
  scene.name = "c\xc3(d";  // a lead byte without its continuation
  scene.render_error = "\x80";
  suite.scenes = {scene};
  const std::string xml = junit_xml({suite});
  EXPECT_TRUE(is_utf8(xml)) << xml;
  EXPECT_NE(xml.find("classname=\"s\xEF\xBF\xBD.c\xEF\xBF\xBD(d\""), std::string::npos) << xml;
}

TEST(Utf8, ValidTextIsKeptAndEachBadByteBecomesOneReplacement) {
  EXPECT_EQ(valid_utf8("snow \xE2\x9D\x84 \xF0\x9F\x8C\xA7"), "snow \xE2\x9D\x84 \xF0\x9F\x8C\xA7");
  EXPECT_EQ(valid_utf8("a\xC0\xAF" "b"), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");  // an overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xE2\x9D"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
  EXPECT_TRUE(is_utf8("plain"));
  EXPECT_FALSE(is_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
}

TEST(GoldenNames, TheFrameOfAGoldensFileNameIsReadBack) {
  // Goldens of frames a suite no longer checks are found by their names.
  for (const int frame : {1, 24, 9999, 10000, 123456})
    for (const std::string layer : {"", "depth", "mask.rain", "motion"})
      EXPECT_EQ(fxsim::golden_frame_of(fxsim::golden_frame_name(frame, layer)), frame) << frame << layer;
  for (const char* other : {"frame_24.png", "frame_0000.png", "frame_00024.png", "frame_0024.exr", "frame_0024png",
                            "diff_frame_0024.png", "frame_abcd.png", "state-hashes.txt", "frame_0024_.png"})
    EXPECT_FALSE(fxsim::golden_frame_of(other)) << other;
}
