#pragma once
// The one frame loop, used by `render` and `bench`: step the simulation to
// each selected frame, check its state, draw it, read it back, and hand it to
// the sinks: prepared (encoded) on encoder threads, several frames at once,
// committed in frame order (render/frame_writer.h).
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

struct FrameLoopOptions {
  size_t encoders = 1;   // threads preparing frames for the sinks
  size_t in_flight = 0;  // frames handed over and not yet committed; 0: encoders + 2
  size_t frames_in_flight() const { return in_flight ? in_flight : encoders + 2; }
  // Called on the committing thread once a frame is committed.
  std::function<void(const FrameRecord&)> on_committed;
  // Called for each frame simulated but not drawn (fast-forwarding to the first selected frame).
  std::function<void(int frame)> on_skipped;
  // Called once the simulation has reached each frame, before it is drawn (checkpoints).
  std::function<void(int frame)> on_simulated;
  // The simulation's current frame is drawn too when selected (a render
  // started from a checkpoint of its first frame).
  bool include_current = false;
  // The births and deaths of each drawn frame are its own steps' (--stats):
  // a frame only simulated drops its counts (reset_counters). (Off,
  // a drawn frame counts every step since the last drawn one.)
  bool counts_per_frame = false;
};

// Simulates from the simulation's current frame to frames.last() and draws the
// selected frames (those after the current one, or from it with
// include_current). State hashes are taken only when a sink wants them
// (every frame's, or the drawn frames'); statistics are taken for every drawn frame,
// and a non-finite one stops the loop before the frame is drawn (check_finite).
FrameLoopReport run_frame_loop(Simulation& simulation, Renderer& renderer, const FrameSelection& frames,
                               const std::vector<FrameSink*>& sinks, const FrameLoopOptions& options = {});

}  // namespace fxsim
