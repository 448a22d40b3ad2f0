#pragma once
// The one frame loop, used by `render` and `bench`: step the simulation to
// each selected frame, check its state, draw it, read it back, and hand it to
// the sinks on a background thread (so encoding overlaps the next frame),
// committed in frame order.
#include <cstdint>
#include <functional>
#include <vector>

#include "core/frame_output.h"
#include "core/simulation.h"
#include "render/frame_sinks.h"
#include "render/renderer.h"

namespace fxsim {

struct FrameLoopReport {
  int frames = 0;               // frames drawn and committed
  uint64_t peak_particles = 0;  // the most live particles in a drawn frame (secondaries included)
};

// Called after each frame is handed over: the frame, the last one, live particles.
using FrameProgress = std::function<void(int frame, int last, uint64_t live)>;

// Simulates from the simulation's current frame to frames.last() and draws the
// selected frames (those after the current one). Every state hash is taken
// only when a sink wants them; statistics are taken for every drawn frame,
// and a non-finite one stops the loop before the frame is drawn (check_finite).
FrameLoopReport run_frame_loop(Simulation& simulation, Renderer& renderer, const FrameSelection& frames,
                               const std::vector<FrameSink*>& sinks, const FrameProgress& progress = {});

}  // namespace fxsim
