#pragma once
// Commits frames on a background thread, so PNG compression of one frame
// overlaps the simulation and drawing of the next. Jobs are committed in the
// order they were submitted: the frame's file (written atomically), then the
// text that belongs to it (its statistics line, the state hashes up to it),
// so an interrupted run has text for exactly the frames on disk. At most
// `depth` jobs wait; an error in the writer is rethrown by the next submit()
// or by finish(), and nothing after the failed job is committed.
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/image.h"
#include "render/atomic_file.h"

namespace fxsim {

struct FrameJob {
  std::optional<std::string> path;  // the frame's file; none for text alone
  Image image;
  std::string stats, hashes;        // lines to append once the frame is on disk
};

class FrameWriter {
 public:
  using Commit = std::function<void(FrameJob&)>;
  explicit FrameWriter(Commit commit, size_t depth = 2);
  ~FrameWriter();  // waits for queued jobs; errors there are dropped (call finish() to see them)
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  void submit(FrameJob job);
  // Waits until every submitted job is committed; rethrows the first error.
  void finish();

 private:
  void run();
  void rethrow_locked();

  Commit commit_;
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<FrameJob> queue_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fxsim
