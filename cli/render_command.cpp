// render: scene (+ command-line overrides) → Simulation + Renderer → the frame
// loop → its outputs (PNG frames, statistics, state hashes), with progress.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "core/exit_codes.h"
#include "core/parallel.h"
#include "core/frame_output.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/atomic_file.h"
#include "render/child_process.h"
#include "render/frame_loop.h"
#include "render/gl_session.h"
#include "render/output_files.h"
#include "render/plate_pass.h"
#include "render/renderer.h"
#include "render/video_sink.h"

namespace fxsim {

namespace {

// On Ctrl-C or a kill, the frame being written must not be left half-written.
// A commit in progress (a frame renamed into place and its lines appended) is
// let finish first, so the text outputs cover exactly the frames on disk.
extern "C" void on_interrupt(int signal) {
  wait_for_commit();
  stop_child_processes();  // ffmpeg: its temporary file is removed next
  remove_partial_output();
  _exit(128 + signal);
}

FrameSelection frames_to_render(const RenderOptions& options, const Scene& scene) {
  if (!options.frames) return FrameSelection{{{1, scene.output.frames}}};
  const auto parsed = parse_frame_selection(*options.frames);
  if (!parsed)
    throw FxError(ExitCode::usage, fmt::format("--frames {}: expected N, A-B with 1 <= A <= B, A-B:S (every S-th "
                                               "frame), or a comma-separated list of those", *options.frames));
  return *parsed;  // frames past output.frames are simulated on
}

// The scene's overrides in the order they apply: --set first, then the flags.
std::vector<SceneOverride> scene_overrides(const RenderOptions& options) {
  std::vector<SceneOverride> overrides;
  for (const std::string& set : options.sets) overrides.push_back(parse_set_override(set));
  if (options.fps) overrides.push_back({fmt::format("--fps {}", *options.fps), "/output/fps", *options.fps});
  if (options.seed) overrides.push_back({fmt::format("--seed {}", *options.seed), "/seed", *options.seed});
  if (options.png_level)
    overrides.push_back({fmt::format("--png-level {}", *options.png_level), "/output/png_level", *options.png_level});
  if (options.width) overrides.push_back({fmt::format("--width {}", *options.width), "/output/width", *options.width});
  if (options.height)
    overrides.push_back({fmt::format("--height {}", *options.height), "/output/height", *options.height});
  return overrides;
}

}  // namespace

int run_render(const RenderOptions& options) {
  // --threads caps every thread fxsim starts, llvmpipe's too: Mesa reads
  // LP_NUM_THREADS when the context is made.
  const int cores = thread_count(options.threads);
  if (options.threads > 0) setenv("LP_NUM_THREADS", std::to_string(options.threads).c_str(), 1);

  Scene scene = parse_scene_file(options.scene, scene_overrides(options));
  // -o is checked here (its '#' against the frames selected, its extension).
  if (options.output) {
    scene.output.path = *options.output;
    if (!image_format_of(scene.output.path) && !video_format_of(scene.output.path))
      throw FxError(ExitCode::usage, fmt::format("-o {}: expected a path ending in .png or .exr (frames) or .mp4, .webm, "
                                                 ".mov or .gif (a video)", scene.output.path));
  }
  const FrameSelection frames = frames_to_render(options, scene);
  const int count = frames.count();
  if (scene.output.path == "-")
    throw FxError(ExitCode::usage, "-o -: frames are written as files; give a path such as out/frame_####.png");
  const bool video_only = video_format_of(scene.output.path).has_value();  // -o out.mp4: a video, no PNGs
  if (!video_only && count > 1 && scene.output.path.find('#') == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("output path \"{}\" has no run of '#' for the frame number, and {} "
                                               "frames are to be written", scene.output.path, count));
  if (options.stats && options.state_hashes && *options.stats == "-" && *options.state_hashes == "-")
    throw FxError(ExitCode::usage, "--stats - and --state-hashes -: only one of them can go to standard output");
  const ProgressStyle style = parse_progress_style(options.progress, options.quiet);
  check_plates(scene.output, frames.frames());  // every plate frame the render needs, before anything renders
  // The outputs check their paths now, before any work; they create nothing yet.
  std::vector<std::unique_ptr<FrameSink>> sinks;
  const VideoSettings video{options.video_crf};
  if (video_only)
    sinks.push_back(std::make_unique<VideoSink>(scene.output.path, scene.output.width, scene.output.height,
                                                scene.output.fps, video));
  else
    sinks.push_back(std::make_unique<ImageSequenceSink>(
        scene.output.path, frames.first(),
        ImageEncoding{*image_format_of(scene.output.path), PngSettings{scene.output.png_level}, scene.output.bit_depth,
                      scene.output.plate_layer ? scene.output.plate : std::filesystem::path()}));
  if (options.video)
    sinks.push_back(std::make_unique<VideoSink>(*options.video, scene.output.width, scene.output.height,
                                                scene.output.fps, video));
  if (options.stats) sinks.push_back(std::make_unique<StatisticsSink>(*options.stats));
  if (options.state_hashes) sinks.push_back(std::make_unique<StateHashSink>(*options.state_hashes));

  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_interrupt);
  const auto started = std::chrono::steady_clock::now();
  GlSession gl(options.device, parse_backend_choice(options.backend));
  check_memory(scene, gl.backend(), gl.context().software());
  Simulation simulation(scene, cores, gl.system_factory());
  Renderer renderer(scene, scene.output.width, scene.output.height);

  ProgressReport progress(style, frames.last(), count, scene.output.path);
  FrameLoopOptions loop;
  loop.encoders = options.encoders ? size_t(*options.encoders) : default_encoder_threads(cores, gl.backend());
  loop.on_committed = [&](const FrameRecord& frame) { progress.committed(frame); };
  loop.on_skipped = [&](int frame) { progress.skipped(frame); };
  std::vector<FrameSink*> outputs;
  for (const auto& sink : sinks) outputs.push_back(sink.get());
  const FrameLoopReport report = run_frame_loop(simulation, renderer, frames, outputs, loop);
  progress.finish();

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Standard output may carry the statistics or hashes: the summary then goes to stderr.
  const bool stdout_taken = std::any_of(sinks.begin(), sinks.end(), [](const auto& s) { return s->writes_stdout(); });
  if (!options.quiet)
    fmt::print(stdout_taken ? stderr : stdout,
               "rendered {} frame{} ({}-{}) of {} in {:.2f} s ({:.1f} frames/s), up to {} live particles "
               "(secondaries included), {}x{} on {}, {} PNG encoder{} → {}\n",
               report.frames, report.frames == 1 ? "" : "s", frames.first(), frames.last(), options.scene, seconds,
               report.frames / seconds, report.peak_particles, scene.output.width, scene.output.height, gl.describe(),
               loop.encoders, loop.encoders == 1 ? "" : "s", scene.output.path);
  return 0;
}

}  // namespace fxsim
