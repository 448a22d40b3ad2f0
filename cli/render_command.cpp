// render: scene → Simulation (CPU) + Renderer (GL) → one PNG per frame.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/frame_output.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/egl_context.h"
#include "render/frame_writer.h"
#include "render/gpu_backend.h"
#include "render/image.h"
#include "render/renderer.h"

namespace fxsim {

namespace {

// On Ctrl-C or a kill, the frame being written must not be left half-written.
extern "C" void on_interrupt(int signal) {
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

// A text file written whole at the end, through the same rename-into-place as the frames.
void write_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace

int run_render(const RenderOptions& options) {
  Scene scene = parse_scene_file(options.scene);
  if (options.output) scene.output.path = *options.output;
  if (options.width) scene.output.width = *options.width;
  if (options.height) scene.output.height = *options.height;
  const FrameSelection frames = frames_to_render(options, scene);
  const int count = frames.count();
  if (count > 1 && scene.output.path.find('#') == std::string::npos)
    throw FxError(ExitCode::usage, fmt::format("output path \"{}\" has no run of '#' for the frame number, and {} "
                                               "frames are to be written", scene.output.path, count));

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
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

  FrameWriter writer;
  std::string stats_text, hashes_text;
  // Statistics cost a reduction (and, on the GPU, a small read-back) per frame:
  // taken only when asked for or shown. Otherwise the summary gives the capacity.
  const bool counting = options.stats || progress;
  uint64_t peak_particles = 0;
  if (!counting)
    for (const auto& e : scene.emitters) peak_particles += uint64_t(e.max_particles);
  for (int frame = 1; frame <= frames.last(); ++frame) {
    simulation.advance_to_frame(frame);
    FrameStats stats;
    if (counting) stats = simulation.take_stats();
    // Hashes cover every simulated frame, so a divergence can be found even between written frames.
    if (options.state_hashes) hashes_text += fmt::format("{} {:016x}\n", frame, simulation.state_hash());
    if (!frames.contains(frame)) continue;
    uint64_t live = 0;
    for (const auto& e : stats.emitters) live += e.live;
    if (counting) peak_particles = std::max(peak_particles, live);
    if (options.stats) stats_text += to_json_line(stats) + "\n";
    const std::string path = frame_path(scene.output.path, frame);
    writer.submit(path, renderer.render(simulation));
    if (progress) fmt::print(stderr, "\rframe {}/{}  {} particles  → {}\033[K", frame, frames.last(), live, path);
  }
  writer.finish();
  if (progress) fmt::print(stderr, "\n");
  if (options.stats) write_text(*options.stats, stats_text);
  if (options.state_hashes) write_text(*options.state_hashes, hashes_text);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.quiet)
    fmt::print("rendered {} frame{} ({}-{}) of {} in {:.2f} s ({:.1f} frames/s), {} {} particles, {}x{} on {} → {}\n",
               count, count == 1 ? "" : "s", frames.first(), frames.last(), options.scene, seconds, count / seconds,
               counting ? "up to" : "room for", peak_particles, scene.output.width, scene.output.height,
               context->info().renderer + (backend == Backend::gpu ? " (GPU backend)" : " (CPU backend)"),
               scene.output.path);
  return 0;
}

}  // namespace fxsim
