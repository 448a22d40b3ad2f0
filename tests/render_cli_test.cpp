// The render command end to end: byte-identical frames across runs and
// thread counts, statistics, and the exit codes of render's refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "cli_runner.h"
#include "core/image.h"
#include "core/png_writer.h"
#include <fmt/format.h>

using namespace fxsim::test;
namespace fs = std::filesystem;

namespace {
std::vector<std::string> render_bytes(const std::string& extra, const std::string& tag) {
  TempDir dir(tag);
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow-heavy-wind.json' --frames 1-4 "
                                "--width 200 --height 112 --quiet -o '" + (dir / "f_####.png").string() + "' " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> frames;
  for (int f = 1; f <= 4; ++f) frames.push_back(read_text_file(dir / ("f_000" + std::to_string(f) + ".png")));
  return frames;
}
}  // namespace

TEST(Determinism, TwoRunsGiveIdenticalPngBytes) {
  const auto a = render_bytes("", "det-a"), b = render_bytes("", "det-b");
  ASSERT_EQ(a.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_GT(a[i].size(), 1000u);
    EXPECT_TRUE(a[i] == b[i]) << "frame " << i + 1;
  }
}

TEST(Determinism, ThreadCountDoesNotChangeThePngBytes) {
  const auto one = render_bytes("--threads 1", "thr-1"), two = render_bytes("--threads 2", "thr-2"),
             five = render_bytes("--threads 5", "thr-5");
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(one[i] == two[i]) << "frame " << i + 1;
    EXPECT_TRUE(one[i] == five[i]) << "frame " << i + 1;
  }
}

TEST(Render, WritesStatisticsAsJsonLines) {
  TempDir dir("stats");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 3-5 --width 64 --height 36 "
                                "--quiet -o '" + (dir / "f_####.png").string() + "' --stats '" +
                                (dir / "stats.jsonl").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(read_text_file(dir / "stats.jsonl"));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_NE(line.find("\"frame\":" + std::to_string(count + 2)), std::string::npos) << line;
    for (const char* key : {"\"time\":", "\"name\":\"snow\"", "\"type\":\"snow\"", "\"active\":true", "\"live\":30000",
                            "\"spawned\":", "\"died\":", "\"min\":[", "\"max\":[", "\"mean_position\":[", "\"mean_velocity\":["})
      EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  }
  EXPECT_EQ(count, 3);
  EXPECT_FALSE(fs::exists(dir / "f_0002.png"));
  EXPECT_TRUE(fs::exists(dir / "f_0003.png"));
  EXPECT_TRUE(fs::exists(dir / "f_0005.png"));
}

TEST(Render, UnwritableOutputExitsWith73AndLeavesNoPartialFile) {
  TempDir dir("unwritable");
  write_text_file(dir / "blocker", "a file where a folder should be");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 1 --width 32 --height 18 "
                                "--quiet -o '" + (dir / "blocker/f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 73) << r.err;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename(), "blocker");
}

TEST(Render, AMissingDeviceExitsWith69AndWritesNothing) {
  TempDir dir("device");
  const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 1 --device 99 --backend gpu "
                                "--quiet -o '" + (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 69) << r.err;
  EXPECT_NE(r.err.find("--device 99"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Render, OptionsOfTheComputeRasteriserAreRefusedWithAnotherOne) {
  // They were accepted and ignored with --rasteriser gl or cpu; 2^32 sprites
  // a part was then read as an int, 0, and still accepted.
  TempDir dir("idle-options");
  for (const std::string options : {"--rasteriser gl --tile-lists records", "--rasteriser cpu --part-sprites 64",
                                     "--rasteriser gl --coverage planes", "--rasteriser gl --part-sprites 4294967296"}) {
    const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow.json' --frames 1 --quiet " + options +
                                  " -o '" + (dir / "f_####.png").string() + "'");
    EXPECT_EQ(r.exit_code, 64) << options << r.err;
    EXPECT_NE(r.err.find("only the compute rasteriser"), std::string::npos) << r.err;
    const CliResult bench = run_fxsim("bench --particles 100 --frames 1 " + options);
    EXPECT_EQ(bench.exit_code, 64) << options << bench.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(Render, FramesInWhichNothingShowsAreSaid) {
  // An exposure of -20 gave black frames with exit 0 and no word.
  TempDir dir("one-colour");
  const std::string render = "render '" FXSIM_SOURCE_DIR "/scenes/snow-streetlamp.json' --frames 1-3 --width 64 "
                             "--height 36 -q -o '" + (dir / "f_####.png").string() + "'";
  const CliResult black = run_fxsim(render + " --set /camera/exposure=-20");
  EXPECT_EQ(black.exit_code, 0) << black.err;
  EXPECT_NE(black.err.find("warning: 3 of the 3 frames drawn: frames 1-3 are one colour throughout, nothing shows"),
            std::string::npos) << black.err;
  const CliResult seen = run_fxsim(render);
  EXPECT_EQ(seen.exit_code, 0) << seen.err;
  EXPECT_EQ(seen.err.find("one colour"), std::string::npos) << seen.err;
  // As written: a 16-bit frame whose float pixels differ but whose samples
  // are all white (an exposure of 20) or all black was not said.
  for (const char* written : {"--set /output/bit_depth=16 --set /camera/exposure=20",
                              "--set /output/bit_depth=16 --set /camera/exposure=-20",
                              "--set /output/bit_depth=16 --set /camera/exposure=20 --set '/output/tone=\"filmic\"'"}) {
    const CliResult r = run_fxsim(render + " " + written);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("frames 1-3 are one colour throughout"), std::string::npos) << written << ": " << r.err;
  }
  const CliResult exr = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/snow-streetlamp.json' --frames 1-3 --width 64 "
                                  "--height 36 -q --set /camera/exposure=20 -o '" + (dir / "f_####.exr").string() + "'");
  EXPECT_EQ(exr.exit_code, 0) << exr.err;
  EXPECT_EQ(exr.err.find("one colour"), std::string::npos) << exr.err;  // EXR keeps the light past white
  // One colour, but not the colour of the frame without its particles: a
  // veil of huge faint flakes over the whole frame, or a frame of one
  // pixel, were said to show nothing.
  write_text_file(dir / "veil.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "frames": 3},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0]}, "emitters": [{"type": "snow", "max_particles": 50,
    "size": 10000, "opacity": 0.01, "region": {"center": [0, 2, 0], "size": [2, 2, 2]}}]})");
  for (const std::string size : {"", " --width 1 --height 1"}) {
    const CliResult veil = run_fxsim("render '" + (dir / "veil.json").string() + "' -q" + size + " -o '" +
                                     (dir / "v_####.png").string() + "'");
    EXPECT_EQ(veil.exit_code, 0) << veil.err;
    EXPECT_EQ(veil.err.find("one colour"), std::string::npos) << size << ": " << veil.err;
    EXPECT_TRUE(one_colour(read_png(dir / "v_0003.png"))) << size;  // (one colour, as meant)
  }
  // Each frame compared with its own scenery: a camera that looks down at
  // the ground, then up at the horizon (the last frame's scenery, not of one
  // colour, hid the empty first frame).
  write_text_file(dir / "tilt.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "frames": 4},
    "camera": {"keys": [{"time": 0.04, "position": [0, 1.7, 9], "target": [0, -5, 0]},
                        {"time": 0.17, "position": [0, 1.7, 9], "target": [0, 3, 0]}]},
    "environment": {"ground": {"height": 0, "color": "#6f7d8f"}},
    "emitters": [{"type": "snow", "start": 100, "max_particles": 100}]})");
  const CliResult tilt = run_fxsim("render '" + (dir / "tilt.json").string() + "' -q -o '" + (dir / "t_#.png").string() + "'");
  EXPECT_EQ(tilt.exit_code, 0) << tilt.err;
  EXPECT_NE(tilt.err.find("1 of the 4 frames drawn: frame 1 is one colour throughout"), std::string::npos) << tilt.err;
}

TEST(Render, AScenePastTheMachinesMemoryIsRefusedWith65) {
  // 2^31 - 1 flakes in each of 8 emitters: far more than any machine's RAM on the CPU backend.
  TempDir dir("memory");
  std::string emitters;
  for (int i = 0; i < 8; ++i) emitters += std::string(i ? ", " : "") + R"({"type": "snow", "max_particles": 2147483647})";
  write_text_file(dir / "huge.json", R"({"fxsim": 1, "emitters": [)" + emitters + "]}");
  const CliResult r = run_fxsim("render '" + (dir / "huge.json").string() + "' --backend cpu --quiet -o '" +
                                (dir / "f_####.png").string() + "'");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("of memory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "f_0001.png"));
}


TEST(Render, ACameraPathDegenerateAtAFramePastOutputFramesIsRefused) {
  // Frames 1-48 are fine; at frame 72 (t = 3 s), which --frames may ask for,
  // the eye passes through the target: a black frame with exit 0 before.
  TempDir dir("camera_past");
  write_text_file(dir / "c.json", R"({"fxsim": 1, "output": {"frames": 48},
    "camera": {"target": [0, 2, 0], "keys": [{"time": 2.5, "position": [-5, 2, 0]}, {"time": 3.5, "position": [5, 2, 0]}]},
    "emitters": [{"type": "snow", "max_particles": 1000}]})");
  const std::string render = "render '" + (dir / "c.json").string() + "' --width 64 --height 36 -q -o '" +
                             (dir / "out" / "f_####.png").string() + "' --frames ";
  const CliResult past = run_fxsim(render + "70-72");
  EXPECT_EQ(past.exit_code, 65) << past.err;
  EXPECT_NE(past.err.find("c.json:2:"), std::string::npos) << past.err;
  EXPECT_NE(past.err.find("/camera/keys: "), std::string::npos) << past.err;
  EXPECT_NE(past.err.find("at frame 72 (t = 3 s; --frames goes past output.frames, 48)"), std::string::npos) << past.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(run_fxsim(render + "47-48").exit_code, 0);
}

TEST(Render, TheGroundIsDrawnWhateverTheRatioOfFarToNear) {
  // far / near 10^8, valid: the GL's clipper lost the ground's quad, whose
  // sides crossed the near plane 7·10^7 near distances out, and the frame
  // came out without a ground, exit 0.
  TempDir dir("ground_far");
  write_text_file(dir / "s.json", R"({"fxsim": 1, "output": {"width": 64, "height": 36, "background": "#101820"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "near": 0.1, "far": 10000000},
    "environment": {"ground": {"color": "#606060"}}, "emitters": [{"type": "snow", "max_particles": 10}]})");
  ASSERT_EQ(run_fxsim("render " + (dir / "s.json").string() + " --frames 1 -q -o " + (dir / "f_####.png").string()).exit_code, 0);
  const fxsim::Image frame = fxsim::read_png(dir / "f_0001.png");
  const uint8_t* corner = &frame.rgba[size_t((frame.height - 2) * frame.width + 1) * 4];  // bottom left: ground
  EXPECT_EQ(int(corner[0]), 0x60);
  EXPECT_EQ(int(corner[1]), 0x60);
  EXPECT_EQ(int(corner[2]), 0x60);
}

TEST(Render, AFramesStatisticsAreTheSameWhateverFramesAreRendered) {
  // Births and deaths are the frame's own steps': before, a frame after a
  // gap counted every step since the last frame drawn (or since 0).
  TempDir dir("stats_gap");
  const auto frame_3 = [&](const std::string& extra) {
    const CliResult r = run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/fountain.json' --width 64 --height 36 --quiet -o '" +
                                  (dir / "f_####.png").string() + "' --stats - " + extra);
    EXPECT_EQ(r.exit_code, 0) << extra << ": " << r.err;
    const size_t at = r.out.rfind("{\"frame\":3,");
    return at == std::string::npos ? std::string("no line for frame 3 in: ") + r.out : r.out.substr(at);
  };
  const std::string all = frame_3("--frames 1-3");
  EXPECT_NE(all.find("\"spawned\":667,"), std::string::npos) << all;
  EXPECT_EQ(frame_3("--frames 3"), all);
  EXPECT_EQ(frame_3("--frames 1,3"), all);
  // The GPU backend's systems drop their counts on the frames between.
  const std::string gpu = frame_3("--frames 1-3 --backend gpu");
  EXPECT_NE(gpu.find("\"spawned\":"), std::string::npos) << gpu;
  EXPECT_EQ(frame_3("--frames 1,3 --backend gpu"), gpu);
  // From a checkpoint: of frame 3 itself it would have no steps to count, so the one before is used.
  EXPECT_EQ(run_fxsim("render '" FXSIM_SOURCE_DIR "/scenes/fountain.json' --width 64 --height 36 --quiet -o '" +
                      (dir / "f_####.png").string() + "' --frames 3 --simulate-only --checkpoint-every 1")
                .exit_code, 0);
  EXPECT_EQ(frame_3("--frames 3"), all);
}

// samples 1 asked the GL for the least it multisamples with (llvmpipe: 4),
// and the frames had 4-sample edges that no single-sampled mask matched.
TEST(Render, OneSampleAPixelIsASingleSampledFrame) {
  TempDir dir("one_sample");
  const fxsim::Image solid{16, 16, std::vector<uint8_t>(16 * 16 * 4, 255)};
  const std::vector<uint8_t> png = fxsim::encode_png(solid);
  write_text_file(dir / "solid.png", std::string(png.begin(), png.end()));
  write_text_file(dir / "wall.json", R"({"fxsim": 1, "seed": 3,
    "output": {"width": 64, "height": 64, "frames": 1, "background": "transparent"},
    "camera": {"position": [0, 2, 10], "target": [0, 2, 0], "fov": 30}, "environment": {"ground": null},
    "emitters": [{"type": "snow", "max_particles": 12, "size": 0.9, "opacity": 1, "color": "#ffffff",
      "textures": ["solid.png"], "motion": "constant", "velocity": [0, 0, 0], "velocity_variation": [0, 0, 0],
      "sway": null, "region": {"center": [0, 2, 0], "size": [4, 4, 1]}}]})");
  for (const int samples : {1, 4}) {
    const fs::path frame = dir / fmt::format("s{}.png", samples);
    const CliResult r = run_fxsim(fmt::format("render '{}' -q --set /output/samples={} -o '{}'",
                                              (dir / "wall.json").string(), samples, frame.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("output.samples"), std::string::npos) << r.err;  // a count every GL has
    const fxsim::Image image = fxsim::read_png(frame);
    size_t covered = 0, partly = 0;
    for (size_t i = 3; i < image.rgba.size(); i += 4) {
      covered += image.rgba[i] == 255;
      partly += image.rgba[i] > 0 && image.rgba[i] < 255;
    }
    EXPECT_GT(covered, 200u) << samples;
    if (samples == 1) EXPECT_EQ(partly, 0u) << "a pixel is in or out";
    else EXPECT_GT(partly, 10u) << "edges partly covered";
  }
}
