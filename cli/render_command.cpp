// render: scene → Simulation (CPU) + Renderer (GL) → one PNG per frame.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <set>
#include <string>
#include <unistd.h>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "core/stats.h"
#include "render/egl_context.h"
#include "render/frame_writer.h"
#include "render/gpu_backend.h"
#include "core/image.h"
#include "render/atomic_file.h"
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
  // Refuse, before any work, an output that would replace what is not a regular file.
  const std::string first_path = frame_path(scene.output.path, frames.first());
  check_output_path(first_path);
  for (const auto& text : {options.stats, options.state_hashes})
    if (text && *text != "-") check_output_path(*text);

  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_interrupt);
  const auto started = std::chrono::steady_clock::now();
  const auto context = EglContext::create(options.device, options.backend == "gpu" ? 4 : 3, options.backend == "gpu" ? 3 : 3);
  const GlInfo& gl = context->info();
  const bool has_compute = gl.major * 10 + gl.minor >= 43;
  const Backend backend = options.backend == "gpu" || (options.backend == "auto" && !context->software() && has_compute)
                              ? Backend::gpu
                              : Backend::cpu;
  check_memory(scene, backend, context->software());
  std::optional<GpuKernels> kernels;
  if (backend == Backend::gpu) kernels.emplace();
  Simulation simulation(scene, options.threads, backend == Backend::gpu ? gpu_system_factory(*kernels) : SystemFactory{});
  Renderer renderer(scene, scene.output.width, scene.output.height);
  const bool progress = !options.quiet && isatty(STDERR_FILENO);

  // Everything that can be refused has been: only now is anything created.
  prepare_output_folder(first_path);
  remove_stale_partials(std::filesystem::path(first_path).parent_path());
  std::optional<TextOutput> stats_out = TextOutput::open(options.stats);
  std::optional<TextOutput> hashes_out = TextOutput::open(options.state_hashes);
  std::set<std::filesystem::path> folders{std::filesystem::path(first_path).parent_path()};
  FrameWriter writer([&](FrameJob& job) {
    if (job.path) {
      // A '#' in the folder part gives each frame its own folder: made on first use.
      // A folder made earlier that is gone now stops the render (write_file_atomically).
      const auto folder = std::filesystem::path(*job.path).parent_path();
      if (folders.insert(folder).second) {
        prepare_output_folder(*job.path);
        remove_stale_partials(folder);
      }
    }
    const std::vector<uint8_t> png = job.path ? encode_png(job.image) : std::vector<uint8_t>();
    const CommitSection section;
    if (job.path) write_file_atomically(*job.path, png);
    if (stats_out && !job.stats.empty()) stats_out->append(job.stats);
    if (hashes_out && !job.hashes.empty()) hashes_out->append(job.hashes);
  });

  uint64_t peak_particles = 0;
  std::string hashes;  // of the frames simulated since the last one written
  for (int frame = 1; frame <= frames.last(); ++frame) {
    simulation.advance_to_frame(frame);
    // Hashes cover every simulated frame, so a divergence can be found even between written frames.
    if (hashes_out) hashes += fmt::format("{} {:016x}\n", frame, simulation.state_hash());
    if (!frames.contains(frame)) continue;
    // The statistics are also the last line of defence: a non-finite particle
    // stops the render before its frame is drawn.
    const FrameStats stats = simulation.take_stats();
    check_finite(stats);
    uint64_t live = 0;
    for (const auto& e : stats.emitters) live += e.live;
    peak_particles = std::max(peak_particles, live);
    const std::string path = frame_path(scene.output.path, frame);
    writer.submit({path, renderer.render(simulation), stats_out ? to_json_line(stats) + "\n" : std::string(),
                   std::exchange(hashes, {})});
    if (progress) fmt::print(stderr, "\rframe {}/{}  {} particles  → {}\033[K", frame, frames.last(), live, path);
  }
  writer.finish();
  if (progress) fmt::print(stderr, "\n");

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Standard output may carry the statistics or hashes: the summary then goes to stderr.
  std::FILE* summary = (stats_out && stats_out->is_stdout()) || (hashes_out && hashes_out->is_stdout()) ? stderr : stdout;
  if (!options.quiet)
    fmt::print(summary, "rendered {} frame{} ({}-{}) of {} in {:.2f} s ({:.1f} frames/s), up to {} particles, {}x{} on {} → {}\n",
               count, count == 1 ? "" : "s", frames.first(), frames.last(), options.scene, seconds, count / seconds,
               peak_particles, scene.output.width, scene.output.height,
               context->info().renderer + (backend == Backend::gpu ? " (GPU backend)" : " (CPU backend)"),
               scene.output.path);
  return 0;
}

}  // namespace fxsim
