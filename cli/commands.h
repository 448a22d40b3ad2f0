#pragma once
// The subcommands of fxsim. Each returns the process exit code; errors a user
// can cause are thrown as FxError and mapped to their code in main.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/png_writer.h"

namespace fxsim {

struct RenderOptions {
  std::string scene;                  // a file, or "-" for standard input
  std::optional<std::string> output;  // -o: overrides output.path
  std::optional<std::string> frames;  // "N", "A-B", "A-B:S", or a list of those
  std::optional<int> width, height;
  std::optional<double> fps;          // overrides output.fps
  std::optional<uint64_t> seed;       // overrides seed
  std::vector<std::string> sets;      // --set /json/pointer=VALUE, in order
  std::optional<int> png_level;       // overrides output.png_level
  int threads = 0;  // 0: all hardware threads; caps the simulation, the encoders and llvmpipe
  std::optional<int> encoders;        // PNG encoder threads (default: from the backend and the cores)
  std::optional<std::string> video;   // a video beside the PNG frames (.mp4, .webm, .mov, .gif)
  std::optional<int> video_crf;       // mp4/webm quality
  std::optional<std::string> stats;   // JSON Lines file
  std::optional<std::string> state_hashes;  // per-frame simulation hashes (golden tests)
  std::optional<int> device;
  std::string backend = "auto";  // cpu, gpu or auto (gpu on a hardware GPU, cpu on a software GL)
  std::string progress = "auto";  // auto, bar, lines, jsonl or none
  bool quiet = false;
};

struct CompareOptions {
  std::string a, b;
  int max_diff = 0;         // per-channel difference a pixel may have and still match
  double max_fraction = 0;  // fraction of pixels allowed over max_diff
};

struct BenchOptions {
  std::string scene;            // a scene file: its frames are measured instead of a synthetic effect
  std::string effect = "snow";  // snow, rain or fountain
  std::string backend = "cpu";  // cpu or gpu
  std::optional<int> device;
  int64_t particles = 1000000;
  int threads = 0;
  int steps = 10;     // steps per timing repetition
  int frames = 10;    // frames for the draw/end-to-end figures (0: skip)
  int width = 640, height = 360;
  bool turbulence = true;
  int encoders = 0;  // 0: as render chooses
  int png_level = kDefaultPngLevel;
};

int run_render(const RenderOptions& options);
int run_bench(const BenchOptions& options);
int run_validate(const std::string& scene, const std::string& backend);
int run_info(std::optional<int> device);
int run_compare(const CompareOptions& options);

// Prints a scene's problems, one per line, then how many there are; returns 65.
int report_scene_error(const SceneError& e, const std::string& scene_file);

}  // namespace fxsim
