// bench: measures the CPU simulation step, drawing and the whole frame loop on a
// synthetic snow scene, and prints figures with baselines measured in the same
// run (the single-thread step, and a plain memory copy of the bytes a step moves).
// Snow or rain (streaks), as asked.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <cstring>
#include <fmt/format.h>
#include <vector>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/particles.h"
#include "core/scene_parser.h"
#include "core/simulation.h"
#include "render/egl_context.h"
#include "core/image.h"
#include "render/atomic_file.h"
#include "render/frame_writer.h"
#include "render/gpu_backend.h"
#include "render/gpu_kernels.h"
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

// Seconds per step, best of a few repetitions of `steps` steps. On the GPU
// the clock starts and stops with the queue drained (glFinish).
double time_steps(const Scene& scene, int threads, int steps, const SystemFactory& factory) {
  Simulation sim(scene, threads, factory);
  int frame = warm_frame(scene);
  sim.advance_to_frame(frame);  // warm up: steady state, arrays paged in, shaders compiled
  if (factory) glFinish();
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t = Clock::now();
    frame += steps;
    sim.advance_to_frame(frame);
    if (factory) glFinish();
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

// The same on the GPU: a compute shader that copies 16-byte words from one
// buffer to another, over as many bytes as a step moves (in blocks the driver
// allows), read and write counted. This is the bandwidth a step could reach.
double gpu_copy_bandwidth(size_t bytes) {
  GLint64 block_limit = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block_limit);
  const size_t block = std::min<size_t>(size_t(block_limit) / 16 * 16, size_t(1) << 30);
  bytes = std::max<size_t>(bytes / 16 * 16, 1 << 20);
  const GlProgram copy = link_compute(R"(#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
uniform uint u_count;
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) dst[i] = src[i];
}
)");
  std::vector<GlBuffer> from, to;
  for (size_t done = 0; done < bytes; done += block) {
    const size_t n = std::min(block, bytes - done);
    for (auto* list : {&from, &to}) {
      list->emplace_back(gl_gen(glGenBuffers));
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, list->back().get());
      glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(n), nullptr, GL_DYNAMIC_COPY);
    }
  }
  glUseProgram(copy.get());
  const auto pass = [&] {
    for (size_t k = 0; k < from.size(); ++k) {
      const size_t n = std::min(block, bytes - k * block);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, from[k].get());
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, to[k].get());
      dispatch(copy, n / 16);
    }
  };
  pass();
  glFinish();
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    for (int k = 0; k < 4; ++k) pass();
    glFinish();
    best = std::min(best, seconds_since(t) / 4);
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
  const bool gpu = o.backend == "gpu";
  std::unique_ptr<EglContext> context;
  std::optional<GpuKernels> kernels;
  if (gpu || o.frames > 0) context = EglContext::create(o.device, gpu ? 4 : 3, 3);
  if (gpu) {
    check_memory(scene, Backend::gpu, context->software());
    kernels.emplace();
  }
  const SystemFactory factory = gpu ? gpu_system_factory(*kernels) : SystemFactory{};
  fmt::print("fxsim bench: {}, {} particles{}, {} backend{}\n", o.effect, o.particles,
             o.turbulence ? ", turbulent wind" : "", gpu ? "GPU" : "CPU",
             context ? " on " + context->info().renderer : std::string());
  const double copy = gpu ? gpu_copy_bandwidth(size_t(step_bytes / 2)) : copy_bandwidth(size_t(n) * particle_bytes());
  fmt::print("  memory copy (baseline)    {:8.2f} GB/s\n", copy / 1e9);
  const auto report = [&](const char* label, double seconds, double baseline) {
    fmt::print("  {:<25} {:8.3f} ms  {:9.1f} M particle-steps/s  {:7.2f} GB/s  ({:.2f} of copy{})\n", label,
               seconds * 1e3, n / seconds / 1e6, step_bytes / seconds / 1e9, step_bytes / seconds / copy,
               baseline > 0 ? fmt::format(", {:.2f}x the 1-thread step", baseline / seconds) : std::string());
  };
  if (gpu) {
    report("step (compute shader)", time_steps(scene, 1, o.steps, factory), 0);
  } else {
    const double one = time_steps(scene, 1, o.steps, {});
    report("step, 1 thread", one, 0);
    if (o.threads != 1) {
      Simulation probe(scene, o.threads);
      report(fmt::format("step, {} threads", probe.pool().size()).c_str(), time_steps(scene, o.threads, o.steps, {}), one);
    }
  }
  if (o.frames <= 0) return 0;

  Simulation sim(scene, o.threads, factory);
  Renderer renderer(scene, o.width, o.height);
  const int first = warm_frame(scene);
  sim.advance_to_frame(first);
  renderer.render(sim);  // warm up: shader compilation, first upload
  double draw = 0, step = 0;
  for (int f = first + 1; f <= first + o.frames; ++f) {
    auto t = Clock::now();
    sim.advance_to_frame(f);
    if (gpu) glFinish();
    step += seconds_since(t);
    t = Clock::now();
    const Image image = renderer.render(sim);  // ends with the read-back: the GPU is drained
    draw += seconds_since(t);
  }
  // End to end: simulate, draw, read back and write every frame as PNG (on the background writer).
  const auto folder = std::filesystem::temp_directory_path() / fmt::format("fxsim-bench-{}", getpid());
  const auto total = Clock::now();
  {
    std::filesystem::create_directories(folder);
    FrameWriter writer([](FrameJob& job) { write_file_atomically(*job.path, encode_png(job.image)); });
    for (int f = first + o.frames + 1; f <= first + 2 * o.frames; ++f) {
      sim.advance_to_frame(f);
      writer.submit({(folder / fmt::format("frame_{:06d}.png", f)).string(), renderer.render(sim), {}, {}});
    }
    writer.finish();
  }
  const double all = seconds_since(total);
  std::filesystem::remove_all(folder);
  uint64_t live = 0;
  for (const auto& e : sim.take_stats().emitters) live += e.live;
  fmt::print("  frame at {}x{}, {} live particles:\n", o.width, o.height, live);
  fmt::print("    simulate {:8.2f} ms   draw+read {:8.2f} ms   end to end with PNG files {:8.2f} ms ({:.2f} frames/s)\n",
             step / o.frames * 1e3, draw / o.frames * 1e3, all / o.frames * 1e3, o.frames / all);
  return 0;
}

}  // namespace fxsim
