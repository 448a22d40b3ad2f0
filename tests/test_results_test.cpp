// What `fxsim test` says of a frame's comparison (core/test_results.h).
#include <gtest/gtest.h>

#include "core/image_compare.h"
#include "core/test_results.h"
#include "core/test_suite.h"

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

TEST(GoldenNames, TheFrameOfAGoldensFileNameIsReadBack) {
  // Goldens of frames a suite no longer checks are found by their names.
  for (const int frame : {1, 24, 9999, 10000, 123456})
    for (const std::string layer : {"", "depth", "mask.rain", "motion"})
      EXPECT_EQ(fxsim::golden_frame_of(fxsim::golden_frame_name(frame, layer)), frame) << frame << layer;
  for (const char* other : {"frame_24.png", "frame_0000.png", "frame_00024.png", "frame_0024.exr", "frame_0024png",
                            "diff_frame_0024.png", "frame_abcd.png", "state-hashes.txt", "frame_0024_.png"})
    EXPECT_FALSE(fxsim::golden_frame_of(other)) << other;
}
