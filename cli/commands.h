#pragma once
// The subcommands of fxsim. Each returns the process exit code; errors a user
// can cause are thrown as FxError and mapped to their code in main.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/image_compare.h"
#include "core/png_writer.h"
#include "core/scene.h"
#include "core/scene_overrides.h"

namespace fxsim {

struct RenderOptions {
  std::string scene;                  // a file, or "-" for standard input
  std::optional<std::string> output;  // -o: overrides output.path
  std::optional<std::string> frames;  // "N", "A-B", "A-B:S", or a list of those
  std::string rasteriser = "auto";    // who draws the sprites: auto, gl or compute (render/sprite_pass.h)
  std::string fill_resolution = "auto";  // auto, full or half (render/sprite_pass.h FillResolution)
  std::string tile_lists = "auto";       // auto, indices or records (render/compute_rasteriser.h TileLists)
  std::string coverage = "auto";         // auto, corners or planes (render/compute_rasteriser.h Coverage)
  int64_t part_sprites = 0;              // the compute rasteriser's most sprites a part (0: what the GL holds)
  std::optional<int> width, height;
  std::optional<double> fps;          // overrides output.fps
  std::optional<int64_t> seed;        // overrides seed (0 or more: checked by the scene's rule)
  std::vector<std::string> sets;      // --set /json/pointer=VALUE, in order
  std::vector<std::string> unsets;    // --unset /json/pointer, applied before the --set ones
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
  // Render farms (docs/farms.md).
  std::optional<int> checkpoint_every;       // write a checkpoint every N frames
  std::optional<std::string> checkpoints;    // their folder (default: checkpoints/ beside the frames)
  bool simulate_only = false;                // only simulate and write checkpoints
  std::optional<std::string> shard;          // "I/N"
  std::optional<int> shard_count;            // N, with JOB_COMPLETION_INDEX
  bool skip_existing = false;                // frames whose files are whole stay as they are
  bool manifest_hashes = true;               // each manifest line carries the frame's state hash
  std::optional<std::string> devices;        // "0,1": one shard per device, in child processes
  std::vector<std::string> argv;             // the command line, for the children of --devices
};

int run_verify(const std::string& folder, bool quiet);

struct CompareOptions {
  std::string a, b;
  CompareThresholds thresholds;  // idiff's: --fail, --failpercent, --hardfail, --warn, --warnpercent, --hardwarn
  std::optional<std::string> diff;  // a difference heat map (a folder of them for folders)
  bool json = false;                // results as JSON on standard output
};

struct BenchOptions {
  std::string scene;            // a scene file: its frames are measured instead of a synthetic effect
  std::string effect = "snow";  // snow, rain or fountain
  std::string backend = "cpu";  // cpu or gpu
  std::string rasteriser = "auto";
  std::string fill_resolution = "auto";
  std::string tile_lists = "auto";
  std::string coverage = "auto";
  int64_t part_sprites = 0;
  bool compare_rasterisers = false;  // time both rasterisers on a software GL too
  std::optional<int> device;
  int64_t particles = 1000000;
  int threads = 0;
  int steps = 10;     // steps per timing repetition
  int frames = 10;    // frames for the draw/end-to-end figures (0: skip)
  // The image's size: with --scene the scene's own unless given; else
  // kBenchWidth x kBenchHeight.
  static constexpr int kBenchWidth = 640, kBenchHeight = 360;
  std::optional<int> width, height;
  bool turbulence = true;
  int encoders = 0;  // 0: as render chooses
  int png_level = kDefaultPngLevel;
};

struct TestOptions {
  std::vector<std::string> suites;      // suite files or folders of scenes
  std::vector<std::string> only;        // --scene NAME: only these scenes
  bool update = false;                  // write or accept goldens for this device class
  std::optional<std::string> junit, report, json;
  std::optional<std::string> backend;   // overrides the suites' backend
  std::optional<std::string> rasteriser;  // passed to render
  std::optional<std::string> fill_resolution;  // passed to render
  std::optional<std::string> device_class;  // overrides the GL's (tests of the fallback)
  bool no_cpu_check = false;            // GPU backend: skip the CPU backend's run against the shared hashes
  std::optional<int> device;
  int jobs = 0;                         // scenes rendered at once (0: from the cores and the GL)
};

int run_render(const RenderOptions& options);
int run_bench(const BenchOptions& options);
// The scene as render sees it: the scene's overrides of `options` (--unset,
// --set, --fps, --seed, --png-level, --width, --height) in the order they apply.
std::vector<SceneOverride> scene_overrides(const RenderOptions& options);
// `overrides`: render's --set, --unset and --fps, for the scene render will see.
int run_validate(const std::string& scene, const std::string& backend, const RenderOptions& overrides);
int run_info(std::optional<int> device, bool json);
int run_test(const struct TestOptions& options);
int run_compare(const CompareOptions& options);

// How messages name the scene argument: the file, or <stdin> for "-" (as the
// parser's located problems do).
std::string scene_name(const std::string& argument);

// Prints a scene's problems, one per line, then how many there are; returns 65.
int report_scene_error(const SceneError& e, const std::string& scene_file);
// Prints what the parser accepted but warns about (Scene::warnings), one per line.
void report_scene_warnings(const Scene& scene, const std::string& scene_file);

}  // namespace fxsim
