// bench: measures the CPU simulation step, drawing and the whole frame loop on a
// synthetic snow scene, and prints figures with baselines measured in the same
// run (the single-thread step, and a plain memory copy of the bytes a step moves).
// Snow or rain (streaks), as asked.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <vector>

#include "cli/commands.h"
#include "core/particles.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/egl_context.h"
#include "render/image.h"
#include "render/renderer.h"

namespace fxsim {

namespace {
using Clock = std::chrono::steady_clock;

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
                                       o.width, o.height,
                                       o.turbulence ? R"(, "turbulence": {"strength": 0.5, "scale": 3})" : "",
                                       bench_emitter(o));
  return parse_scene_text(text, "bench.json", ".");
}

// The frame at which the scene is in its steady state: snow and rain start
// full (prewarm); a fountain needs its first drops to land (2.5 s).
int warm_frame(const Scene& scene) {
  return scene.emitters[0].type == EmitterType::fountain ? int(2.5 * scene.output.fps) : 1;
}

// Seconds per step, best of a few repetitions of `steps` steps.
double time_steps(const Scene& scene, int threads, int steps) {
  Simulation sim(scene, threads);
  int frame = warm_frame(scene);
  sim.advance_to_frame(frame);  // warm up: steady state, arrays paged in
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t = Clock::now();
    frame += steps;
    sim.advance_to_frame(frame);
    best = std::min(best, seconds_since(t) / steps);
  }
  return best;
}

// Bytes per second of a plain copy of `bytes` (read + write counted), best of 5.
double copy_bandwidth(size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    std::memcpy(b.data(), a.data(), bytes);
    best = std::min(best, seconds_since(t));
    a[size_t(rep)] = b[bytes - 1 - size_t(rep)];
  }
  return 2.0 * double(bytes) / best;
}
}  // namespace

int run_bench(const BenchOptions& o) {
  const Scene scene = bench_scene(o);
  const double n = double(o.particles);
  // A step reads and writes position and velocity; snow also reads the sway
  // fields (phase and direction), a fountain the age (read and written) and source.
  const double extra = o.effect == "snow" ? 3 * 4 : o.effect == "fountain" ? 4 * 2 + 4 : 0;
  const double step_bytes = n * (6 * 4 * 2 + extra);
  fmt::print("fxsim bench: {}, {} particles{}, CPU backend\n", o.effect, o.particles,
             o.turbulence ? ", turbulent wind" : "");
  const double copy = copy_bandwidth(size_t(n) * particle_bytes());
  fmt::print("  memory copy (baseline)    {:8.2f} GB/s\n", copy / 1e9);
  const double one = time_steps(scene, 1, o.steps);
  fmt::print("  step, 1 thread            {:8.2f} ms  {:8.1f} M particle-steps/s  {:6.2f} GB/s  ({:.2f} of copy)\n",
             one * 1e3, n / one / 1e6, step_bytes / one / 1e9, step_bytes / one / copy);
  if (o.threads != 1) {
    Simulation probe(scene, o.threads);
    const int threads = probe.pool().size();
    const double many = time_steps(scene, o.threads, o.steps);
    fmt::print("  step, {} threads           {:8.2f} ms  {:8.1f} M particle-steps/s  {:6.2f} GB/s  ({:.2f} of copy, "
               "{:.2f}x the 1-thread step)\n",
               threads, many * 1e3, n / many / 1e6, step_bytes / many / 1e9, step_bytes / many / copy, one / many);
  }
  if (o.frames <= 0) return 0;

  const auto context = EglContext::create(std::nullopt, 3, 3);
  Simulation sim(scene, o.threads);
  Renderer renderer(scene, o.width, o.height);
  const int first = warm_frame(scene);
  sim.advance_to_frame(first);
  renderer.render(sim);  // warm up: shader compilation, first upload
  double draw = 0, encode = 0, step = 0;
  const auto total = Clock::now();
  for (int f = first + 1; f <= first + o.frames; ++f) {
    auto t = Clock::now();
    sim.advance_to_frame(f);
    step += seconds_since(t);
    t = Clock::now();
    const Image image = renderer.render(sim);
    draw += seconds_since(t);
    t = Clock::now();
    const auto png = encode_png(image);
    encode += seconds_since(t);
    if (png.empty()) return 70;
  }
  const double all = seconds_since(total);
  fmt::print("  frame at {}x{} on {}, {} live particles:\n", o.width, o.height, context->info().renderer,
             [&] {
               uint64_t live = 0;
               for (const auto& e : sim.take_stats().emitters) live += e.live;
               return live;
             }());
  fmt::print("    simulate {:8.2f} ms   draw+read {:8.2f} ms   PNG encode {:8.2f} ms   total {:8.2f} ms  "
             "({:.2f} frames/s end to end)\n",
             step / o.frames * 1e3, draw / o.frames * 1e3, encode / o.frames * 1e3, all / o.frames * 1e3,
             o.frames / all);
  return 0;
}

}  // namespace fxsim
