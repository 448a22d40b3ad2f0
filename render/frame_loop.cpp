#include "render/frame_loop.h"

#include <algorithm>

#include "render/frame_writer.h"

namespace fxsim {

FrameLoopReport run_frame_loop(Simulation& simulation, Renderer& renderer, const FrameSelection& frames,
                               const std::vector<FrameSink*>& sinks, const FrameProgress& progress) {
  // Everything that can be refused has been: only now do the sinks create files.
  for (FrameSink* sink : sinks) sink->start();
  const bool hashing = std::any_of(sinks.begin(), sinks.end(), [](const FrameSink* s) { return s->wants_hashes(); });
  FrameWriter writer([&](FrameRecord& record) {
    for (FrameSink* sink : sinks) sink->prepare(record);
    const CommitSection section;
    for (FrameSink* sink : sinks) sink->commit(record);
  });

  FrameLoopReport report;
  FrameRecord next;
  for (int frame = simulation.frame() + 1; frame <= frames.last(); ++frame) {
    simulation.advance_to_frame(frame);
    if (hashing) next.hashes.emplace_back(frame, simulation.state_hash());
    if (!frames.contains(frame)) continue;
    next.frame = frame;
    next.stats = simulation.take_stats();
    check_finite(next.stats);
    uint64_t live = 0;
    for (const auto& e : next.stats.emitters) live += e.live;
    report.peak_particles = std::max(report.peak_particles, live);
    next.image = renderer.render(simulation);
    writer.submit(std::exchange(next, FrameRecord{}));
    ++report.frames;
    if (progress) progress(frame, frames.last(), live);
  }
  writer.finish();
  return report;
}

}  // namespace fxsim
