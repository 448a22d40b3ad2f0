// `fxsim bench` runs every measurement on both backends and prints each
// figure beside the baseline it is held against, measured in the same run:
// steps against a memory copy, drawing against the blended fill rate of the
// same target. (The figures are not checked: a noisy machine would make such
// a test flaky; only that they are there, positive and consistent.)
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <regex>
#include <string>

#include "cli_runner.h"

using namespace fxsim::test;

TEST(BenchCommand, PrintsEveryFigureBesideItsBaselineOnBothBackends) {
  for (const char* backend : {"cpu", "gpu"}) {
    const CliResult r = run_fxsim(fmt::format(
        "bench --effect snow --particles 2000 --steps 2 --frames 2 --width 64 --height 36 --compare-rasterisers "
        "--backend {}", backend));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("memory copy (baseline)"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(step[^\n]*M particle-steps/s[^\n]*of copy)"))) << r.out;
    if (backend == std::string("cpu")) {  // and STREAM's triad, measured in the same run
      EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(STREAM triad [0-9.]+ GB/s)"))) << r.out;
      EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(step[^\n]*of copy, [0-9.]+ of triad)"))) << r.out;
    }
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(draw wrote ([0-9.e+-]+) M samples \(([0-9.e+-]+) G samples/s\) against a blended fill rate of ([0-9.e+-]+) G samples/s measured on the same target: ([0-9.e+-]+) % of it)")))
        << r.out;
    EXPECT_GT(std::stod(m[1]), 0.0) << backend;  // at least the snow drew something
    EXPECT_GT(std::stod(m[3]), 0.0) << backend;
    // Both rasterisers on the same frames, and their ratio.
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(sprites drawn by the GL rasteriser +([0-9.]+) ms, by the compute rasteriser +([0-9.]+) ms: compute takes ([0-9.e+-]+)x GL's time)")))
        << r.out;
    EXPECT_GT(std::stod(m[1]), 0.0) << backend;
    EXPECT_GT(std::stod(m[2]), 0.0) << backend;
    EXPECT_NE(r.out.find("end to end with PNG files"), std::string::npos) << r.out;
  }
}

// A rasteriser and a fill resolution chosen on the command line are measured
// alone (no side-by-side runs, which at a billion particles take minutes on a
// GPU), and the compute rasteriser's stages are still printed.
TEST(BenchCommand, ARasteriserChosenIsMeasuredAloneWithItsStages) {
  const CliResult r = run_fxsim(
      "bench --effect snow --particles 2000 --steps 1 --frames 2 --width 64 --height 36 --rasteriser compute "
      "--fill-resolution full");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(compute rasteriser, a frame: setup ([0-9.]+) ms[^\n]* blend ([0-9.]+) ms[^\n]*; ([0-9.e+-]+) M sprites)")))
      << r.out;
  EXPECT_GT(std::stod(m[2]), 0.0);
  EXPECT_GT(std::stod(m[3]), 0.0);
  EXPECT_EQ(r.out.find("sprites drawn by the GL rasteriser"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fill-bound batches at half size"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("end to end with PNG files"), std::string::npos) << r.out;
}

// --tile-lists reaches the compute rasteriser: the stages say how many draws'
// lists held records (auto's choice needs 1.4 M sprites a draw: not here).
TEST(BenchCommand, TheTileListsChosenAreTheOnesDrawn) {
  for (const char* form : {"records", "indices", "auto"}) {
    const CliResult r = run_fxsim(fmt::format(
        "bench --effect rain --particles 2000 --steps 1 --frames 1 --width 64 --height 36 --rasteriser compute "
        "--fill-resolution full --tile-lists {}", form));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(; (\d+) of (\d+) draws' lists held the sprites' records)")))
        << r.out;
    EXPECT_GT(std::stoi(m[2]), 0) << form;
    EXPECT_EQ(std::stoi(m[1]), std::string(form) == "records" ? std::stoi(m[2]) : 0) << form << ": " << m[0];
  }
}
