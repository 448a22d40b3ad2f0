#include "render/frame_loop.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>

#include "render/frame_writer.h"

namespace fxsim {

namespace {
// Frames drawn and not yet read back, at most: two lets the GPU draw one
// while the other's pixels are copied out.
constexpr size_t kFramesInFlightOnTheGpu = 2;
// Frames only simulated in a row (a gap in the selection) after which the
// frames drawn before the gap go out without waiting for the next one drawn:
// a long fast-forward must not hold a finished frame back (an interrupt
// would lose it), while a stride (1-240:2) keeps reading one frame back as
// the next is drawn.
constexpr int kLongGap = 4;

// The loop over the frames once the sinks have started; `committed` is set
// once a frame's commits are done.
FrameLoopReport draw_frames(Simulation& simulation, Renderer& renderer, const FrameSelection& frames,
                            const std::vector<FrameSink*>& sinks, const FrameLoopOptions& options,
                            std::atomic<bool>& committed) {
  const bool hashing = std::any_of(sinks.begin(), sinks.end(), [](const FrameSink* s) { return s->wants_hashes(); });
  const bool frame_hashing =
      std::any_of(sinks.begin(), sinks.end(), [](const FrameSink* s) { return s->wants_frame_hash(); });
  FrameWriter writer(
      [&](FrameRecord& record) {
        record.prepared.resize(sinks.size());
        for (size_t s = 0; s < sinks.size(); ++s) record.prepared[s] = sinks[s]->prepare(record);
      },
      [&](FrameRecord& record) {
        {
          const CommitSection section;
          // The last started first: the text outputs, started first, take
          // a frame's line once its image or video frame is written (a
          // frame whose image could not be written has no line).
          for (size_t s = sinks.size(); s-- > 0;) sinks[s]->commit(record, record.prepared[s]);
        }
        committed = true;
        if (options.on_committed) options.on_committed(record);
      },
      options.encoders, options.frames_in_flight());

  using Clock = std::chrono::steady_clock;
  FrameLoopReport report;
  // Frames drawn whose images are still on the way: frame n is read back
  // while frame n + 1 is simulated and drawn.
  std::deque<FrameRecord> drawing;
  const auto hand_over_oldest = [&] {
    FrameRecord record = std::move(drawing.front());
    drawing.pop_front();
    RenderedFrame frame = renderer.take_frame();
    record.image = std::move(frame.image);
    record.linear = std::move(frame.linear);
    record.layers = std::move(frame.layers);
    if (record.state) record.state->fetch();
    writer.submit(std::move(record));
  };
  FrameRecord next;
  auto started = Clock::now();
  const int first = simulation.frame() + (options.include_current && simulation.frame() >= 1 ? 0 : 1);
  int skipped_in_row = 0;
  // The frames drawn, in order, walked beside the simulated ones: a test per
  // frame against every range was quadratic for a scattered selection.
  const std::vector<int> selected = frames.frames();
  auto next_drawn = std::lower_bound(selected.begin(), selected.end(), first);
  for (int frame = first; frame <= frames.last(); ++frame) {
    const bool drawn = next_drawn != selected.end() && *next_drawn == frame;
    if (drawn) ++next_drawn;
    skipped_in_row = drawn ? 0 : skipped_in_row + 1;
    if (skipped_in_row == kLongGap)
      while (!drawing.empty()) hand_over_oldest();
    simulation.advance_to_frame(frame);
    if (options.on_simulated) options.on_simulated(frame);
    if (hashing) {
      next.hashes.emplace_back(frame, simulation.state_hash());
    } else if (frame_hashing && drawn) {
      // Captured now, fetched at hand-over: the GPU is not stalled for it.
      next.state = std::make_shared<StateCapture>();
      simulation.capture_state(*next.state);
    }
    if (!drawn) {
      if (options.counts_per_frame) simulation.reset_counters();
      if (options.on_skipped) options.on_skipped(frame);
      continue;
    }
    next.frame = frame;
    next.time = simulation.time();
    next.stats = simulation.take_stats();
    check_finite(next.stats);
    next.live = 0;
    for (const auto& e : next.stats.emitters) next.live += e.live;
    report.peak_particles = std::max(report.peak_particles, next.live);
    renderer.draw(simulation);
    next.plates = renderer.plate_digests();
    const auto now = Clock::now();
    next.seconds = std::chrono::duration<double>(now - started).count();
    started = now;
    drawing.push_back(std::exchange(next, FrameRecord{}));
    if (drawing.size() >= kFramesInFlightOnTheGpu) hand_over_oldest();
    ++report.frames;
  }
  while (!drawing.empty()) hand_over_oldest();
  writer.finish();
  for (FrameSink* sink : sinks) sink->finish();
  return report;
}
}  // namespace

FrameLoopReport run_frame_loop(Simulation& simulation, Renderer& renderer, const FrameSelection& frames,
                               const std::vector<FrameSink*>& sinks, const FrameLoopOptions& options) {
  size_t started = 0;
  std::atomic<bool> committed = false;
  try {
    // Everything that can be refused has been: only now do the sinks create files.
    for (; started < sinks.size(); ++started) sinks[started]->start();
    return draw_frames(simulation, renderer, frames, sinks, options, committed);
  } catch (...) {
    // Refused by a later sink's start (a folder that cannot be made), or
    // failed before any frame was whole: the text outputs take back the
    // files and folders they made, the last started first (two files in one
    // new folder: the folder goes with the second).
    if (!committed)
      for (size_t s = started; s-- > 0;) sinks[s]->abandon();
    throw;
  }
}

}  // namespace fxsim
