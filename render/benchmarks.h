#pragma once
// The measurements behind `fxsim bench`, each with the baseline it is compared
// with measured in the same run. GPU timings start and stop with the GL's
// queue drained.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/png_writer.h"
#include "core/scene.h"
#include "core/simulation.h"
#include "render/renderer.h"

namespace fxsim {

// The frame at which a bench scene is in its steady state: snow and rain start
// full (prewarm); a fountain needs its first drops to land (2.5 s).
int steady_frame(const Scene& scene);

// Seconds per step, best of 3 repetitions of `steps` steps, after warming up
// to the steady frame. `gpu`: the systems come from `factory` and the clock
// waits for the GL.
double time_steps(const Scene& scene, int threads, int steps, const SystemFactory& factory, bool gpu);

// Bytes per second of a plain copy of `bytes` (read + write counted), best of
// several: on the CPU with memcpy, on the GPU with a compute shader copying
// 16-byte words between buffers (in blocks the driver allows).
// (threads: on a thread pool of that many, as the step runs; 0: all)
double cpu_copy_bandwidth(size_t bytes, int threads = 1);
double gpu_copy_bandwidth(size_t bytes);
// Bytes per second of STREAM's triad, a[i] = b[i] + s × c[i] over floats, in
// three arrays of bytes / 2 each (two read, one written), best of several,
// on a pool of `threads`: the usual yardstick of a machine's memory bandwidth.
double cpu_triad_bandwidth(size_t bytes, int threads = 1);

// Per-frame seconds of each stage, one after the other with the GL drained
// between them, over `frames` frames after the simulation's current one (the
// first drawn frame warms up): stepping, drawing, reading the image back, and
// encoding it as a PNG on one thread.
struct FrameTimes {
  double step = 0, draw = 0, read = 0, encode = 0;
  // Samples a frame's drawing wrote (every GL raster pass: sky, ground,
  // particles, grading; and the samples the CPU and compute rasterisers'
  // sprites blended; not the layers' composites done by a kernel), mean.
  double samples = 0;
  size_t png_bytes = 0;  // the last frame's PNG
};
FrameTimes time_frames(Simulation& simulation, Renderer& renderer, int frames, bool gpu, const PngSettings& png);

// Mean seconds each turn takes to draw a frame, on the same `frames` frames
// after the simulation's current one, drawn by each turn's renderer in turn
// before the next is stepped (each turn first draws one to warm up): a slow
// spell of a shared machine then falls on all of them alike, where timing one
// after the other put it on one (a software GL on a 2-core VM: the same draws
// 0.75x apart). One simulation for all, so only their drawing differs.
// `before_turn(k)`, where given, runs before each of turn k's draws (a
// renderer may serve several turns, set differently for each).
// Also, for each turn, its colour draws of batches over those frames, how
// many of them the CPU rasteriser drew and how many were drawn at reduced
// size (the warm-up's left out).
struct DrawsInTurn {
  std::vector<double> seconds;
  std::vector<size_t> batches, cpu_batches, reduced_batches;
};
DrawsInTurn time_draws_in_turn(Simulation& simulation, const std::vector<Renderer*>& turns, int frames, bool gpu,
                               const std::function<void(size_t)>& before_turn = {});

// The drawing limit a frame is held against: samples per second that
// full-screen triangles blended "over" (premultiplied) write into a frame
// target like the render's (size, samples, 8-bit sRGB or half float), best of
// several passes of 32 layers. The GL's fill rate for large primitives; small
// particles are bound by their count before they reach it.
double blend_fill_rate(int width, int height, int samples, TargetFormat format);

}  // namespace fxsim
