#include "render/benchmarks.h"

#include "core/parallel.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "render/frame_target.h"
#include "render/gl_checks.h"
#include "render/gl_objects.h"
#include "render/shader.h"
#include "render/gpu_kernels.h"

namespace fxsim {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

int steady_frame(const Scene& scene) {
  return scene.emitters[0].is<FountainParams>() ? int(2.5 * scene.output.fps) : 1;
}

double time_steps(const Scene& scene, int threads, int steps, const SystemFactory& factory, bool gpu) {
  Simulation sim(scene, threads, factory);
  int frame = steady_frame(scene);
  sim.advance_to_frame(frame);  // warm up: steady state, arrays paged in, shaders compiled
  if (gpu) wait_for_gl("stepping");
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t = Clock::now();
    frame += steps;
    sim.advance_to_frame(frame);
    if (gpu) wait_for_gl("stepping");
    best = std::min(best, seconds_since(t) / steps);
  }
  return best;
}

double cpu_copy_bandwidth(size_t bytes, int threads) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  ThreadPool pool(threads);
  constexpr size_t kPiece = size_t(1) << 20;  // the pieces the threads share
  const size_t pieces = (bytes + kPiece - 1) / kPiece;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    pool.run(pieces, [&](size_t p) {
      const size_t begin = p * kPiece;
      std::memcpy(b.data() + begin, a.data() + begin, std::min(kPiece, bytes - begin));
    });
    best = std::min(best, seconds_since(t));
    a[size_t(rep)] = b[bytes - 1 - size_t(rep)];
  }
  return 2.0 * double(bytes) / best;
}

double cpu_triad_bandwidth(size_t bytes, int threads) {
  const size_t n = std::max<size_t>(bytes / 2 / sizeof(float), 1);
  std::vector<float> a(n, 0.0f), b(n, 1.0f), c(n, 2.0f);
  ThreadPool pool(threads);
  constexpr size_t kPiece = size_t(1) << 18;  // floats: 1 MiB an array, the pieces the threads share
  const size_t pieces = (n + kPiece - 1) / kPiece;
  const float s = 3.0f;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    pool.run(pieces, [&](size_t p) {
      const size_t end = std::min(n, (p + 1) * kPiece);
      float* out = a.data();
      const float *x = b.data(), *y = c.data();
      for (size_t i = p * kPiece; i < end; ++i) out[i] = x[i] + s * y[i];
    });
    best = std::min(best, seconds_since(t));
    b[size_t(rep) % n] = a[n - 1 - size_t(rep) % n];  // the passes depend on each other
  }
  return 3.0 * double(n * sizeof(float)) / best;
}

double gpu_copy_bandwidth(size_t bytes) {
  const size_t block = std::min<size_t>(compute_limits().max_storage_block_bytes / 16 * 16, size_t(1) << 30);
  bytes = std::max<size_t>(bytes / 16 * 16, 1 << 20);
  ComputeKernel copy("#version 430\n" + glsl_launch_block() + R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < u_count; i += stride) dst[i] = src[i];
}
)");
  std::vector<DeviceBuffer> from, to;
  for (size_t done = 0; done < bytes; done += block) {
    const size_t n = std::min(block, bytes - done);
    from.emplace_back(n, DeviceBuffer::Use::kernels, "the copy benchmark's buffers");
    to.emplace_back(n, DeviceBuffer::Use::kernels, "the copy benchmark's buffers");
  }
  const auto pass = [&] {
    for (size_t k = 0; k < from.size(); ++k) {
      copy.bind(0, from[k]);
      copy.bind(1, to[k]);
      copy.dispatch(std::min(block, bytes - k * block) / 16);
    }
  };
  pass();
  wait_for_gl("copying");
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    for (int k = 0; k < 4; ++k) pass();
    wait_for_gl("copying");
    best = std::min(best, seconds_since(t) / 4);
  }
  return 2.0 * double(bytes) / best;
}
FrameTimes time_frames(Simulation& simulation, Renderer& renderer, int frames, bool gpu, const PngSettings& png) {
  const int first = simulation.frame();
  renderer.sprite_pass().count_compute_samples(true);
  renderer.render(simulation);  // warm up: shader compilation, first upload
  FrameTimes times;
  GLuint query = 0;
  glGenQueries(1, &query);
  uint64_t compute_before = renderer.sprite_pass().compute_samples();  // read once a frame: it waits for the GPU
  for (int f = first + 1; f <= first + frames; ++f) {
    auto t = Clock::now();
    simulation.advance_to_frame(f);
    if (gpu) wait_for_gl("stepping");
    times.step += seconds_since(t);
    t = Clock::now();
    const size_t cpu_before = renderer.sprite_pass().draw_counts().cpu_samples;
    glBeginQuery(GL_SAMPLES_PASSED, query);
    renderer.draw(simulation);
    glEndQuery(GL_SAMPLES_PASSED);
    wait_for_gl("drawing");
    times.draw += seconds_since(t);
    GLuint64 samples = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &samples);
    const uint64_t compute_after = renderer.sprite_pass().compute_samples();
    times.samples += double(samples) + double(renderer.sprite_pass().draw_counts().cpu_samples - cpu_before) +
                     double(compute_after - compute_before);
    compute_before = compute_after;
    t = Clock::now();
    const Image image = renderer.take_frame().image;
    times.read += seconds_since(t);
    t = Clock::now();
    times.png_bytes = encode_png(image, png).size();
    times.encode += seconds_since(t);
  }
  glDeleteQueries(1, &query);
  for (double* stage : {&times.step, &times.draw, &times.read, &times.encode, &times.samples}) *stage /= frames;
  return times;
}

DrawsInTurn time_draws_in_turn(Simulation& simulation, const std::vector<Renderer*>& turns, int frames, bool gpu,
                               const std::function<void(size_t)>& before_turn) {
  const int first = simulation.frame();
  for (size_t k = 0; k < turns.size(); ++k) {  // warm up
    if (before_turn) before_turn(k);
    turns[k]->render(simulation);
  }
  DrawsInTurn result;
  result.seconds.assign(turns.size(), 0.0);
  result.batches.assign(turns.size(), 0);
  result.cpu_batches.assign(turns.size(), 0);
  result.reduced_batches.assign(turns.size(), 0);
  for (int f = first + 1; f <= first + frames; ++f) {
    simulation.advance_to_frame(f);
    if (gpu) wait_for_gl("stepping");
    for (size_t k = 0; k < turns.size(); ++k) {
      if (before_turn) before_turn(k);
      const SpritePass::DrawCounts before = turns[k]->sprite_pass().draw_counts();
      const auto t = Clock::now();
      turns[k]->draw(simulation);
      wait_for_gl("drawing");
      result.seconds[k] += seconds_since(t);
      turns[k]->take_frame();  // (read back outside the timing, as time_frames does)
      const SpritePass::DrawCounts after = turns[k]->sprite_pass().draw_counts();
      result.batches[k] += after.batches - before.batches;
      result.cpu_batches[k] += after.cpu - before.cpu;
      result.reduced_batches[k] += after.reduced - before.reduced;
    }
  }
  for (double& seconds : result.seconds) seconds /= std::max(frames, 1);
  return result;
}

double blend_fill_rate(int width, int height, int samples, TargetFormat format) {
  FrameTarget target(width, height, samples, format);
  GlProgram program = link_program(R"(#version 330 core
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  gl_Position = vec4(p, 0.5, 1.0);
}
)", R"(#version 330 core
out vec4 out_color;
void main() { out_color = vec4(0.02, 0.02, 0.02, 0.05); }
)");
  GlVertexArray vao(gl_gen(glGenVertexArrays));
  target.bind_for_drawing();
  GLint per_pixel = 0;
  glGetIntegerv(GL_SAMPLES, &per_pixel);
  glUseProgram(program.get());
  glBindVertexArray(vao.get());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  constexpr int kLayers = 32;
  const auto pass = [&] {
    for (int i = 0; i < kLayers; ++i) glDrawArrays(GL_TRIANGLES, 0, 3);
  };
  pass();
  wait_for_gl("measuring the fill rate");
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t = Clock::now();
    pass();
    wait_for_gl("measuring the fill rate");
    best = std::min(best, seconds_since(t));
  }
  glDisable(GL_BLEND);
  glBindVertexArray(0);
  check_gl("measuring the fill rate");
  return double(kLayers) * double(width) * double(height) * double(std::max(1, per_pixel)) / best;
}

}  // namespace fxsim
