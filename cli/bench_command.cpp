// bench: measures the simulation step, drawing and the whole frame loop on a
// synthetic snow, rain or fountain scene, and prints figures with baselines
// measured in the same run (the single-thread step, and a plain copy of the
// bytes a step moves). The measurements themselves are in render/benchmarks.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <unistd.h>
#include <fmt/format.h>

#include "cli/commands.h"
#include "core/memory_estimate.h"
#include "core/parallel.h"
#include "core/particles.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/atomic_file.h"
#include "render/benchmarks.h"
#include "render/frame_loop.h"
#include "render/compute_rasteriser.h"
#include "render/gl_session.h"
#include "render/output_files.h"
#include "render/renderer.h"

namespace fxsim {

namespace {
using Clock = std::chrono::steady_clock;

// The end-to-end stage's folder of PNG files, removed however the bench
// ends: by the guard's destructor (an exception too), or on an interrupt by
// on_bench_interrupt (fixed buffers: a signal handler reads them).
char g_png_folder[512];
int g_first_png = 0, g_last_png = -1;

// "NNNNNN" (at least 6 digits, as frame_######.png) into `out`; async-signal-safe.
char* put_frame_number(char* out, int n) {
  char digits[16];
  int k = 0;
  do {
    digits[k++] = char('0' + n % 10);
    n /= 10;
  } while (n > 0);
  while (k < 6) digits[k++] = '0';
  while (k > 0) *out++ = digits[--k];
  return out;
}

extern "C" void on_bench_interrupt(int signal) {
  stop_commits();
  remove_partial_output();
  char path[sizeof g_png_folder + 32];
  const size_t length = std::strlen(g_png_folder);
  std::memcpy(path, g_png_folder, length);
  for (int f = g_first_png; f <= g_last_png; ++f) {
    char* end = path + length;
    for (const char* s = "/frame_"; *s; ++s) *end++ = *s;
    end = put_frame_number(end, f);
    for (const char* s = ".png"; *s; ++s) *end++ = *s;
    *end = '\0';
    ::unlink(path);
  }
  ::rmdir(g_png_folder);
  _exit(128 + signal);
}

struct PngFolder {
  PngFolder(const std::filesystem::path& folder, int first, int last) : folder_(folder) {
    if (folder.string().size() >= sizeof g_png_folder) return;  // (a $TMPDIR that long: left on an interrupt)
    std::memcpy(g_png_folder, folder.c_str(), folder.string().size() + 1);
    g_first_png = first, g_last_png = last;
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, on_bench_interrupt);
  }
  ~PngFolder() {
    for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  std::filesystem::path folder_;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string bench_emitter(const BenchOptions& o) {
  if (o.effect == "fountain")  // one jet whose 2 s flights keep the ring of slots full
    return fmt::format(R"({{"type": "fountain", "max_particles": {}, "nozzles": [{{"position": [0, 0.2, 0],
      "speed": 10, "spread": 4, "rate": {}}}]}})", o.particles, double(o.particles) / 1.8);
  return fmt::format(R"({{"type": "{}", "max_particles": {}, "recycle": "wrap",
      "region": {{"center": [0, 6, 0], "size": [30, 12, 30]}}}})", o.effect, o.particles);
}

Scene bench_scene(const BenchOptions& o) {
  const std::string text = fmt::format(R"({{"fxsim": 1, "seed": 1,
    "output": {{"width": {}, "height": {}, "fps": 24, "frames": 100000, "background": "#0b1020"}},
    "camera": {{"position": [0, 1.7, 12], "target": [0, 2.2, 0], "fov": 55}},
    "environment": {{"ground": {{"height": 0, "color": "#8e9aab"}},
      "wind": {{"velocity": [2, 0, 0], "gust": {{"amplitude": [1, 0, 0.5], "period": 3}}{}}}}},
    "emitters": [{}]}})",
                                       o.width.value_or(BenchOptions::kBenchWidth), o.height.value_or(BenchOptions::kBenchHeight),
                                       o.turbulence ? R"(, "turbulence": {"strength": 0.5, "scale": 3})" : "",
                                       bench_emitter(o));
  return parse_scene_text(text, "bench.json", ".");
}

}  // namespace

int run_bench(const BenchOptions& o) {
  // Each figure as it is measured, also into a pipe or a log: a bench
  // stopped by a time limit printed nothing (a pipe's buffer held it all).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // --scene: a user's scene at its own size (or --width x --height), frames
  // only (its step figures would mix every emitter); otherwise a synthetic
  // one-effect scene. (A scene was drawn at 640x360 unless told otherwise.)
  std::vector<SceneOverride> size;
  if (o.width) size.push_back({"--width", "/output/width", *o.width, false, {}});
  if (o.height) size.push_back({"--height", "/output/height", *o.height, false, {}});
  const Scene scene = o.scene.empty() ? bench_scene(o) : parse_scene_file(o.scene, size);
  const int width = scene.output.width, height = scene.output.height;
  const double n = double(o.particles);
  // A step reads and writes position and velocity; snow also reads the sway
  // fields (phase and direction), a fountain the age (read and written) and source.
  const double extra = o.effect == "snow" ? 3 * 4 : o.effect == "fountain" ? 4 * 2 + 4 : 0;
  const double step_bytes = n * (6 * 4 * 2 + extra);
  const bool gpu = o.backend == "gpu";
  // A GL is needed for the GPU step and for drawing; a CPU step alone runs
  // without one, so a device named for it would be ignored: refused instead.
  if (o.device && !gpu && o.frames <= 0)
    throw FxError(ExitCode::usage, fmt::format("--device {}: a CPU step with --frames 0 uses no GL device; draw frames "
                                               "(--frames N) or step on the GPU (--backend gpu), or drop --device",
                                               *o.device));
  refuse_idle_compute_options(o.rasteriser, o.tile_lists, o.coverage, o.part_sprites);
  std::optional<GlSession> gl;
  if (gpu || o.frames > 0) gl.emplace(o.device, gpu ? BackendChoice::gpu : BackendChoice::cpu);
  if (gpu) check_memory(scene, Backend::gpu, gl->context().software());
  const SystemFactory factory = gpu ? gl->system_factory() : SystemFactory{};
  const std::string what = o.scene.empty() ? fmt::format("{}, {} particles{}", o.effect, o.particles,
                                                         o.turbulence ? ", turbulent wind" : ", no turbulence")
                                           : o.scene;
  fmt::print("fxsim bench: {}, {} backend{}\n", what, gpu ? "GPU" : "CPU",
             gl ? " on " + gl->context().info().renderer : std::string());
  if (o.scene.empty()) {
    const double copy = gpu ? gpu_copy_bandwidth(size_t(step_bytes / 2)) : cpu_copy_bandwidth(size_t(n) * particle_bytes());
    // On the CPU also STREAM's triad, the yardstick issue 16's CPU target is set against.
    const double triad = gpu ? 0 : cpu_triad_bandwidth(size_t(n) * particle_bytes());
    fmt::print("  memory copy (baseline)    {:8.2f} GB/s{}\n", copy / 1e9,
               gpu ? "" : fmt::format(", 1 thread; STREAM triad {:.2f} GB/s", triad / 1e9));
    // Each step against a copy of the same bytes by as many threads (and the triad).
    const auto report = [&](const char* label, double seconds, double baseline, double copied, double triad_rate) {
      // Significant digits, not decimals: a small count's rate was "0.0 M".
      fmt::print("  {:<25} {:8.4g} ms  {:9.4g} M particle-steps/s  {:7.3g} GB/s  ({:.2f} of copy{}{})\n", label,
                 seconds * 1e3, n / seconds / 1e6, step_bytes / seconds / 1e9, step_bytes / seconds / copied,
                 triad_rate > 0 ? fmt::format(", {:.2f} of triad", step_bytes / seconds / triad_rate) : std::string(),
                 baseline > 0 ? fmt::format(", {:.2f}x the 1-thread step", baseline / seconds) : std::string());
    };
    double last = 0;  // the last step figure: the GPU's, or the CPU's on all its threads
    if (gpu) {
      report("step (compute shader)", last = time_steps(scene, 1, o.steps, factory, true), 0, copy, 0);
    } else {
      const double one = time_steps(scene, 1, o.steps, {}, false);
      report("step, 1 thread", last = one, 0, copy, triad);
      if (o.threads != 1) {
        Simulation probe(scene, o.threads);
        const int threads = probe.pool().size();
        const double copy_all = cpu_copy_bandwidth(size_t(n) * particle_bytes(), threads);
        const double triad_all = cpu_triad_bandwidth(size_t(n) * particle_bytes(), threads);
        fmt::print("  memory copy (baseline)    {:8.2f} GB/s, {} threads; STREAM triad {:.2f} GB/s\n", copy_all / 1e9,
                   threads, triad_all / 1e9);
        report(fmt::format("step, {} threads", threads).c_str(),
               last = time_steps(scene, o.threads, o.steps, {}, false), one, copy_all, triad_all);
      }
    }
    if (o.turbulence) {
      // The turbulence's price: the same step in the same wind without it.
      BenchOptions steady_options = o;
      steady_options.turbulence = false;
      const Scene steady = bench_scene(steady_options);
      const double seconds = gpu ? time_steps(steady, 1, o.steps, factory, true)
                                 : time_steps(steady, o.threads, o.steps, {}, false);
      fmt::print("  the same step without turbulence {:8.4g} ms: the turbulent step runs at {:.2f} of its rate\n",
                 seconds * 1e3, seconds / last);
    }
  }
  if (o.frames <= 0) return 0;

  // Both measurements cover the same frames, each from a simulation of its own.
  Renderer renderer(scene, width, height,
                    sprite_rasteriser(o.rasteriser, gl->context(), o.fill_resolution, o.threads, o.tile_lists, o.coverage,
                                      size_t(o.part_sprites)));
  const int start = o.scene.empty() ? steady_frame(scene) : 0;
  const PngSettings png{o.png_level};
  FrameTimes times;
  constexpr int kProfiledFrames = 2;  // timed again, stage by stage, with the compute rasteriser
  // Where the compute rasteriser's time goes, on further frames of `staged` (the GPU waited for at each stage).
  const auto profile_stages = [&](Simulation& staged, Renderer& drawing) {
    drawing.sprite_pass().profile_compute(true);
    time_frames(staged, drawing, kProfiledFrames, gpu, png);
    const std::optional<ComputeStageTimes> stages = drawing.sprite_pass().compute_stage_times();
    drawing.sprite_pass().profile_compute(false);
    return stages;
  };
  std::optional<ComputeStageTimes> stages;
  {
    Simulation staged(scene, o.threads, factory);
    staged.advance_to_frame(start);
    times = time_frames(staged, renderer, o.frames, gpu, png);
    // A rasteriser chosen with --rasteriser is not compared with the other
    // (unless asked): profiled here when it is the compute rasteriser.
    if (o.rasteriser == "compute" && !o.compare_rasterisers) stages = profile_stages(staged, renderer);
  }
  // End to end: the frame loop of `render`, writing every frame as a PNG file
  // with its encoder threads, and the GPU reading back while drawing the next.
  std::optional<Simulation> sim(std::in_place, scene, o.threads, factory);
  sim->advance_to_frame(start);
  const auto folder = std::filesystem::temp_directory_path() / fmt::format("fxsim-bench-{}", getpid());
  const int first = start + 1;
  const FrameSelection frames{{{first, first + o.frames - 1}}};
  std::optional<PngFolder> png_folder(std::in_place, folder, first, first + o.frames - 1);
  ImageEncoding encoding;
  encoding.png = png;
  ImageSequenceSink pngs((folder / "frame_######.png").string(), first, encoding);
  FrameLoopOptions loop;
  const int cores = thread_count(o.threads);
  loop.encoders = o.encoders > 0 ? size_t(o.encoders) : default_encoder_threads(cores, gl->backend());
  // When each frame was committed: over a few frames the run's mean is mostly
  // filling and draining the encoders' pipeline (one PNG encode can take
  // longer than several draws). Until as many frames as may be in flight
  // are handed over, drawing runs ahead of the commits, which then come in
  // bursts; after that each frame drawn waits for one committed, and the
  // commits' spacing is the rate once frames flow.
  std::vector<double> committed;
  const auto total = Clock::now();
  loop.on_committed = [&](const FrameRecord&) { committed.push_back(seconds_since(total)); };
  const FrameLoopReport looped = run_frame_loop(*sim, renderer, frames, {&pngs}, loop);
  const double all = seconds_since(total) / o.frames;
  sim.reset();  // its memory back before the side-by-side runs' simulations (1 000 M particles fill a GPU)
  const size_t in_flight = loop.frames_in_flight();
  const size_t enough = in_flight + 5;
  const bool flows = committed.size() >= enough;
  const double flowing =
      flows ? (committed.back() - committed[in_flight]) / double(committed.size() - 1 - in_flight) : all;
  png_folder.reset();
  const double made = times.step + times.draw + times.read;
  fmt::print("  frame at {}x{}, {} live particles, stage by stage (GL drained between stages):\n", width, height,
             looped.peak_particles);
  fmt::print("    simulate {:8.2f} ms   draw {:8.2f} ms   read back {:8.2f} ms   PNG encode (1 thread, level {}) "
             "{:8.2f} ms, {}\n",
             times.step * 1e3, times.draw * 1e3, times.read * 1e3, o.png_level, times.encode * 1e3,
             format_bytes(double(times.png_bytes)));
  // Drawing against the GL's own fill rate, measured now on a target like the frame's.
  const double fill = blend_fill_rate(width, height, scene.output.samples,
                                      TargetFormat::float32);
  fmt::print("    draw wrote {:.3g} M samples ({:.3g} G samples/s) against a blended fill rate of {:.3g} G samples/s "
             "measured on the same target: {:.3g} % of it\n",
             times.samples / 1e6, times.samples / times.draw / 1e9, fill / 1e9, times.samples / times.draw / fill * 100);
  // The two rasterisers side by side on the same frames (where the GL has
  // compute shaders; on a software GL only when asked: it is slow there),
  // unless --rasteriser chose one (then only when asked: at 1 000 M
  // particles on an H200 GL's frames alone take minutes).
  const bool side_by_side = o.rasteriser == "auto" || o.compare_rasterisers;
  const RasteriserChoice forced_gl = sprite_rasteriser("gl", gl->context(), "auto", 0, o.tile_lists, o.coverage, size_t(o.part_sprites));
  if (const RasteriserChoice automatic = sprite_rasteriser("auto", gl->context());
      side_by_side && automatic.rasteriser != SpriteRasteriser::gl &&
      (!automatic.software || o.compare_rasterisers)) {
    double draw[2] = {0, 0};
    for (const bool compute : {false, true}) {
      RasteriserChoice choice = forced_gl;
      if (compute) choice.rasteriser = SpriteRasteriser::compute;
      Renderer side(scene, width, height, choice);
      Simulation staged(scene, o.threads, factory);
      staged.advance_to_frame(start);
      draw[compute] = time_frames(staged, side, o.frames, gpu, png).draw;
      if (compute) stages = profile_stages(staged, side);
    }
    fmt::print("    sprites drawn by the GL rasteriser {:8.2f} ms, by the compute rasteriser {:8.2f} ms: compute takes "
               "{:.3g}x GL's time (auto picks compute for batches of {} sprites or more{})\n",
               draw[0] * 1e3, draw[1] * 1e3, draw[1] / draw[0], kComputeRasteriserMinSprites,
               forced_gl.software ? "; never on a software GL" : "");
  }
  if (stages && stages->draws > 0) {  // from the side-by-side runs, or from a --rasteriser compute run's frames
    const double profiled = kProfiledFrames + 1;  // and time_frames' warm-up frame
    fmt::print("    compute rasteriser, a frame: setup {:.2f} ms, tile lists {:.2f} ms (pairs {:.2f}, sort {:.2f}, "
               "ranges {:.2f}), blend {:.2f} ms, composite {:.2f} ms; {:.3g} M sprites in {:.3g} M (tile, sprite) "
               "pairs; {} of {} draws' lists held the sprites' records; {} found coverage from edge planes\n",
               stages->setup / profiled * 1e3, stages->lists() / profiled * 1e3, stages->pairs_time / profiled * 1e3,
               stages->sort / profiled * 1e3, stages->ranges / profiled * 1e3, stages->blend / profiled * 1e3,
               stages->composite / profiled * 1e3, double(stages->sprites) / profiled / 1e6,
               double(stages->pairs) / profiled / 1e6, stages->record_draws, stages->draws, stages->plane_draws);
  }
  // On a software GL, the CPU rasteriser against GL's on the same frames:
  // every batch by each, and auto's choice per batch.
  if (side_by_side && forced_gl.software) {
    std::vector<std::unique_ptr<Renderer>> sides;
    for (const char* name : {"gl", "cpu", "auto"})
      sides.push_back(std::make_unique<Renderer>(
          scene, width, height,
          sprite_rasteriser(name, gl->context(), o.fill_resolution, o.threads, o.tile_lists, o.coverage,
                            size_t(o.part_sprites))));
    Simulation staged(scene, o.threads, factory);
    staged.advance_to_frame(start);
    const DrawsInTurn turns =
        time_draws_in_turn(staged, {sides[0].get(), sides[1].get(), sides[2].get()}, o.frames, gpu);
    const std::vector<double>& draw = turns.seconds;
    const size_t chosen_cpu = turns.cpu_batches[2], chosen_batches = turns.batches[2];
    fmt::print("    sprites drawn by the GL rasteriser {:8.2f} ms, by the CPU rasteriser {:8.2f} ms ({:.3g}x GL's time), "
               "by auto's choice {:8.2f} ms ({:.3g}x; the CPU's for batches whose quads average {:g} pixels or less, a "
               "sprite or more for every {:g} frame pixels: "
               "{} of {} batches{}), each frame drawn by the three in turn\n",
               draw[0] * 1e3, draw[1] * 1e3, draw[1] / draw[0], draw[2] * 1e3, draw[2] / draw[0],
               kCpuRasteriserMaxMeanPixels, kCpuRasteriserFramePixelsPerSprite, chosen_cpu, chosen_batches,
               chosen_cpu == 0 ? ", so auto drew as GL did: its ratio is the runs' noise"
               : chosen_cpu == chosen_batches ? ", so auto drew as the CPU rasteriser did" : "");
  }
  // Fill-bound batches at half size (auto's choice, measured) against every
  // batch at full size, each frame drawn both ways in turn by one renderer;
  // not when --fill-resolution chose.
  if (const RasteriserChoice automatic = sprite_rasteriser(o.rasteriser, gl->context(), "auto");
      o.fill_resolution == "auto" && automatic.compute_shaders) {
    Renderer side(scene, width, height,
                  sprite_rasteriser(o.rasteriser, gl->context(), "auto", 0, o.tile_lists, o.coverage,
                                    size_t(o.part_sprites)));
    Simulation staged(scene, o.threads, factory);
    staged.advance_to_frame(start);
    const FillResolution fills[2] = {FillResolution::full, FillResolution::automatic};
    const DrawsInTurn turns = time_draws_in_turn(staged, {&side, &side}, o.frames, gpu,
                                                 [&](size_t k) { side.sprite_pass().set_fill_resolution(fills[k]); });
    const std::vector<double>& draw = turns.seconds;
    if (turns.reduced_batches[0] != 0)  // the full-size turn's figure would be a mix
      throw std::logic_error("bench: a batch of the full-size turn was drawn at half size");
    const size_t reduced = turns.reduced_batches[1], batches = turns.batches[1];
    fmt::print("    sprites drawn at full size {:8.2f} ms, fill-bound batches at half size (--fill-resolution auto) "
               "{:8.2f} ms: {:.3g}x the time; auto drew {} of {} batches at half size{}, each frame drawn by both in "
               "turn\n",
               draw[0] * 1e3, draw[1] * 1e3, draw[1] / draw[0], reduced, batches,
               reduced == 0 ? " (so both drew the same: the ratio is the runs' noise)" : "");
  }
  fmt::print("  end to end with PNG files ({} encoder{}): {:8.2f} ms a frame ({:.2f} frames/s) = {:.0f} % of the "
             "simulate+draw+read rate ({:.2f}x its time)\n",
             loop.encoders, loop.encoders == 1 ? "" : "s", flowing * 1e3, 1 / flowing, made / flowing * 100,
             flowing / made);
  if (flows)
    fmt::print("    (the spacing of the frames' commits once {} were in flight; over the whole run of {} frames, with "
               "the first one's start-up and the last ones' encoding, {:.2f} ms a frame)\n",
               in_flight, o.frames, all * 1e3);
  else
    fmt::print("    (the whole run of {} frame{}, with the first one's start-up and the last ones' encoding: too few "
               "frames to see the rate once they flow; --frames {} or more shows it)\n",
               o.frames, o.frames == 1 ? "" : "s", enough);
  return 0;
}

}  // namespace fxsim
