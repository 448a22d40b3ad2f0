// render: scene → Simulation + Renderer → the frame loop → its outputs (PNG
// frames, statistics, state hashes).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <string>
#include <unistd.h>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/atomic_file.h"
#include "render/frame_loop.h"
#include "render/gl_session.h"
#include "render/output_files.h"
#include "render/renderer.h"

namespace fxsim {

namespace {

// On Ctrl-C or a kill, the frame being written must not be left half-written.
// A commit in progress (a frame renamed into place and its lines appended) is
// let finish first, so the text outputs cover exactly the frames on disk.
extern "C" void on_interrupt(int signal) {
  wait_for_commit();
  remove_partial_output();
  _exit(128 + signal);
}

FrameSelection frames_to_render(const RenderOptions& options, const Scene& scene) {
  FrameSelection selection{{{1, scene.output.frames}}};
  if (options.frames) {
    const auto parsed = parse_frame_selection(*options.frames);
    if (!parsed)
      throw FxError(ExitCode::usage, fmt::format("--frames {}: expected N, A-B with 1 <= A <= B, or a comma-separated "
                                                 "list of those", *options.frames));
    selection = *parsed;
    if (selection.last() > scene.output.frames)
      throw FxError(ExitCode::usage, fmt::format("--frames {}: the scene has {} frames", *options.frames,
                                                 scene.output.frames));
  }
  return selection;
}

}  // namespace

int run_render(const RenderOptions& options) {
  Scene scene = parse_scene_file(options.scene);
  if (options.output) scene.output.path = *options.output;
  if (options.width) scene.output.width = *options.width;
  if (options.height) scene.output.height = *options.height;
  const FrameSelection frames = frames_to_render(options, scene);
  const int count = frames.count();
  if (scene.output.path == "-")
    throw FxError(ExitCode::usage, "-o -: frames are written as files; give a path such as out/frame_####.png");
  if (count > 1 && scene.output.path.find('#') == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("output path \"{}\" has no run of '#' for the frame number, and {} "
                                               "frames are to be written", scene.output.path, count));
  if (options.stats && options.state_hashes && *options.stats == "-" && *options.state_hashes == "-")
    throw FxError(ExitCode::usage, "--stats - and --state-hashes -: only one of them can go to standard output");
  // The outputs check their paths now, before any work; they create nothing yet.
  std::vector<std::unique_ptr<FrameSink>> sinks;
  sinks.push_back(std::make_unique<PngSequenceSink>(scene.output.path, frames.first()));
  if (options.stats) sinks.push_back(std::make_unique<StatisticsSink>(*options.stats));
  if (options.state_hashes) sinks.push_back(std::make_unique<StateHashSink>(*options.state_hashes));

  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_interrupt);
  const auto started = std::chrono::steady_clock::now();
  GlSession gl(options.device, parse_backend_choice(options.backend));
  check_memory(scene, gl.backend(), gl.context().software());
  Simulation simulation(scene, options.threads, gl.system_factory());
  Renderer renderer(scene, scene.output.width, scene.output.height);

  const bool progress = !options.quiet && isatty(STDERR_FILENO);
  std::vector<FrameSink*> outputs;
  for (const auto& sink : sinks) outputs.push_back(sink.get());
  const FrameLoopReport report = run_frame_loop(simulation, renderer, frames, outputs, [&](int frame, int last, uint64_t live) {
    if (progress)
      fmt::print(stderr, "\rframe {}/{}  {} particles  → {}\033[K", frame, last, live, frame_path(scene.output.path, frame));
  });
  if (progress) fmt::print(stderr, "\n");

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Standard output may carry the statistics or hashes: the summary then goes to stderr.
  const bool stdout_taken = std::any_of(sinks.begin(), sinks.end(), [](const auto& s) { return s->writes_stdout(); });
  if (!options.quiet)
    fmt::print(stdout_taken ? stderr : stdout,
               "rendered {} frame{} ({}-{}) of {} in {:.2f} s ({:.1f} frames/s), up to {} particles, {}x{} on {} → {}\n",
               report.frames, report.frames == 1 ? "" : "s", frames.first(), frames.last(), options.scene, seconds,
               report.frames / seconds, report.peak_particles, scene.output.width, scene.output.height, gl.describe(),
               scene.output.path);
  return 0;
}

}  // namespace fxsim
