#pragma once
// The frame loop's commit thread: frames are handed to the sinks on it, in the
// order they were submitted, so PNG compression of one frame overlaps the
// simulation and drawing of the next. At most `depth` frames wait; an error
// there is rethrown by the next submit() or by finish(), and nothing after the
// failed frame is committed.
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "render/frame_sinks.h"

namespace fxsim {

class FrameWriter {
 public:
  using Commit = std::function<void(FrameRecord&)>;
  explicit FrameWriter(Commit commit, size_t depth = 2);
  ~FrameWriter();  // waits for queued jobs; errors there are dropped (call finish() to see them)
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  void submit(FrameRecord job);
  // Waits until every submitted job is committed; rethrows the first error.
  void finish();

 private:
  void run();
  void rethrow_locked();

  Commit commit_;
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<FrameRecord> queue_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fxsim
