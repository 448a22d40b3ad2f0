// `fxsim bench` runs every measurement on both backends and prints each
// figure beside the baseline it is held against, measured in the same run:
// steps against a memory copy, drawing against the blended fill rate of the
// same target. (The figures are not checked: a noisy machine would make such
// a test flaky; only that they are there, positive and consistent.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <string>
#include <sys/wait.h>

#include "cli_runner.h"

using namespace fxsim::test;

namespace {
// A 64x64 scene of 2000 still flakes a metre and a half wide, filling the
// view many times over, of this opacity, `frames` frames long.
std::string wall_of_flakes(int frames, double opacity) {
  return fmt::format(R"({{"fxsim": 1, "seed": 3, "output": {{"width": 64, "height": 64, "frames": {}, "background": "#000000"}},
    "camera": {{"position": [0, 2, 10], "target": [0, 2, 0], "fov": 30}}, "environment": {{"ground": null}},
    "emitters": [{{"type": "snow", "max_particles": 2000, "size": 1.5, "opacity": {}, "color": "#ffffff",
      "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0], "sway": null,
      "region": {{"center": [0, 2, 0], "size": [6, 6, 1]}}}}]}})", frames, opacity);
}
}  // namespace

TEST(BenchCommand, PrintsEveryFigureBesideItsBaselineOnBothBackends) {
  const bool software = fxsim_gl_is_software();
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
    // On a software GL, the CPU rasteriser and auto's choice too, and how
    // many batches auto gave the CPU: all of these small flakes made on the
    // CPU, none of those made on the GPU (auto leaves them where they are).
    if (software) {  // (a hardware GPU does not print the line)
      ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(sprites drawn by the GL rasteriser +([0-9.]+) ms, by the CPU rasteriser +([0-9.]+) ms \([0-9.e+-]+x GL's time\), by auto's choice +([0-9.]+) ms \([^\n]*: ([0-9]+) of ([0-9]+) batches, so auto drew as (GL|the CPU rasteriser) did)")))
          << r.out;
      EXPECT_GT(std::stod(m[3]), 0.0) << backend;
      EXPECT_GT(std::stoi(m[5]), 0) << backend;
      EXPECT_EQ(m[4], backend == std::string("cpu") ? m[5].str() : "0") << backend;
      EXPECT_EQ(m[6], backend == std::string("cpu") ? "the CPU rasteriser" : "GL") << backend;
    }
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

// With --fill-resolution left to auto (and compute shaders to measure the
// batches' coverage with), every batch at full size is measured against
// auto's choice, each frame drawn both ways in turn by one renderer; the line
// says how many batches auto drew at half size. A wall of translucent flakes
// covering the frame many times over is fill-bound: auto draws it at half
// size, in about a third of the time here (not checked: a noisy machine).
TEST(BenchCommand, FullSizeAndAutosFillResolutionAreMeasuredInTurn) {
  TempDir dir("bench-fill");
  write_text_file(dir / "wall.json", wall_of_flakes(2, 0.3));
  const CliResult r = run_fxsim(fmt::format("bench --scene '{}' --frames 2", (dir / "wall.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(sprites drawn at full size +([0-9.]+) ms, fill-bound batches at half size \(--fill-resolution auto\) +([0-9.]+) ms: ([0-9.e+-]+)x the time; auto drew (\d+) of (\d+) batches at half size, each frame drawn by both in turn)")))
      << r.out;
  EXPECT_GT(std::stod(m[1]), 0.0);
  EXPECT_GT(std::stod(m[2]), 0.0);
  EXPECT_EQ(m[4], "2") << r.out;  // the wall, on both frames
  EXPECT_EQ(m[5], "2") << r.out;
}

TEST(BenchCommand, PartsBehindTilesTheNewerPartsTurnedOpaqueListNoPairsThere) {
  // 2000 opaque flakes a metre and a half wide filling the view, in parts
  // of 256: the newest parts cover the frame many times over, and the
  // tiles they close take no pairs from the parts behind.
  TempDir dir("bench-parts");
  write_text_file(dir / "wall.json", wall_of_flakes(1, 1));
  double pairs[2] = {0, 0};
  int draws[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const CliResult r = run_fxsim(fmt::format("bench --scene '{}' --steps 1 --frames 1 --rasteriser compute "
                                              "--part-sprites {}", (dir / "wall.json").string(), k == 0 ? 0 : 256));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(sprites in ([0-9.e+-]+) M \(tile, sprite\) pairs; \d+ of (\d+) draws)")))
        << r.out;
    pairs[k] = std::stod(m[1]);
    draws[k] = std::stoi(m[2]);
  }
  EXPECT_EQ(draws[1], draws[0] * 8);  // 2000 flakes: 8 parts a frame
  EXPECT_LT(pairs[1], pairs[0] * 0.8) << pairs[0] << " M pairs whole, " << pairs[1] << " M in parts";
}

// --tile-lists reaches the compute rasteriser: the stages say how many draws'
// lists held records (auto's choice needs 1.4 M sprites a draw: not here).
TEST(BenchCommand, ASceneIsMeasuredAtItsOwnSizeUnlessToldOtherwise) {
  // It was drawn at 640x360, the synthetic effects' size, whatever it said.
  TempDir dir("bench-size");
  write_text_file(dir / "small.json", R"({"fxsim": 1, "seed": 3, "output": {"width": 48, "height": 30, "frames": 1},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 40},
    "emitters": [{"type": "snow", "max_particles": 300, "region": {"center": [0, 2, 0], "size": [6, 4, 4]}}]})");
  const auto frame_size = [&](const std::string& size) {
    const CliResult r = run_fxsim(fmt::format("bench --scene '{}' --steps 1 --frames 1 --rasteriser gl "
                                              "--fill-resolution full {}", (dir / "small.json").string(), size));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    return std::regex_search(r.out, m, std::regex(R"(frame at (\d+x\d+))")) ? m[1].str() : r.out;
  };
  EXPECT_EQ(frame_size(""), "48x30");
  EXPECT_EQ(frame_size("--width 40"), "40x30");
  EXPECT_EQ(frame_size("--width 40 --height 20"), "40x20");
  // The synthetic effects keep 640x360.
  const CliResult effect = run_fxsim("bench --effect snow --particles 200 --steps 1 --frames 1 --rasteriser gl "
                                     "--fill-resolution full --no-turbulence");
  EXPECT_NE(effect.out.find("frame at 640x360"), std::string::npos) << effect.out;
}

namespace {
// What bench prints for 2 000 particles of `effect` drawn by the compute
// rasteriser at 64x36 with `options`.
std::string compute_bench_output(const std::string& effect, const std::string& options) {
  const CliResult r = run_fxsim(fmt::format("bench --effect {} --particles 2000 --steps 1 --frames 1 --width 64 "
                                            "--height 36 --rasteriser compute --fill-resolution full {}",
                                            effect, options));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}
}  // namespace

TEST(BenchCommand, TheTileListsChosenAreTheOnesDrawn) {
  for (const char* form : {"records", "indices", "auto"}) {
    const std::string out = compute_bench_output("rain", fmt::format("--tile-lists {}", form));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(; (\d+) of (\d+) draws' lists held the sprites' records)")))
        << out;
    EXPECT_GT(std::stoi(m[2]), 0) << form;
    EXPECT_EQ(std::stoi(m[1]), std::string(form) == "records" ? std::stoi(m[2]) : 0) << form << ": " << m[0];
  }
}

// --coverage reaches the blend: the stages say how many draws found coverage
// from edge planes (auto's choice needs a million sprites drawn: not here).
TEST(BenchCommand, TheCoverageChosenIsTheOneDrawn) {
  for (const char* walk : {"planes", "corners", "auto"}) {
    const std::string out = compute_bench_output("snow", fmt::format("--coverage {}", walk));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        out, m, std::regex(R"(of (\d+) draws' lists held the sprites' records; (\d+) found coverage from edge planes)")))
        << out;
    EXPECT_GT(std::stoi(m[1]), 0) << walk;
    EXPECT_EQ(std::stoi(m[2]), std::string(walk) == "planes" ? std::stoi(m[1]) : 0) << walk << ": " << m[0];
  }
}

// A device is an EGL device: a CPU step alone opens none, so naming one is
// refused rather than silently ignored.
TEST(BenchCommand, ADeviceNamedForACpuStepAloneIsRefused) {
  const CliResult r = run_fxsim("bench --effect snow --particles 2000 --steps 1 --frames 0 --device 5");
  EXPECT_EQ(r.exit_code, 64) << r.out;
  EXPECT_NE(r.err.find("--device 5: a CPU step with --frames 0 uses no GL device"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "nothing measured";
}

TEST(BenchCommand, AnInterruptLeavesNoFolderOfFrames) {
  // The end-to-end stage writes its frames as PNG files in a temporary
  // folder: SIGTERM left it there with every frame written so far. (300
  // frames: the per-frame figures draw them all first, 3 s here; the
  // end-to-end stage then takes as long, and the interrupt comes at its fifth.)
  TempDir dir("bench_interrupt");
  const std::string tmp = (dir / "tmp").string();
  std::filesystem::create_directories(tmp);
  const std::string script =
      "TMPDIR='" + tmp + "' '" FXSIM_EXE "' bench --effect snow --particles 5000 --frames 300 --steps 1 --width 32 "
      "--height 18 --threads 1 --rasteriser gl --fill-resolution full >/dev/null 2>&1 & pid=$!\n"
      "for i in $(seq 1 1200); do [ -e '" + tmp + "'/fxsim-bench-$pid/frame_000005.png ] && break; sleep 0.05; done\n"
      "kill -TERM $pid; wait $pid; exit $?\n";
  write_text_file(dir / "bench.sh", script);
  const int status = std::system(("bash '" + (dir / "bench.sh").string() + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
}
