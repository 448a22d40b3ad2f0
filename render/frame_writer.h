#pragma once
// The frame loop's output stage. Frames are prepared (PNG encoding) on
// `encoders` threads at once and committed to the sinks strictly in the order
// they were submitted, one at a time, by whichever encoder thread holds the
// next frame in order. At most `in_flight` frames are submitted and not yet
// committed: each holds its image (width × height × 4 bytes) and, once
// prepared, its encoding, so the memory is bounded by in_flight × about
// 1.5 × the image. An error is rethrown by the next submit() or by finish(),
// and nothing after the failed frame is committed.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "render/frame_sinks.h"

namespace fxsim {

class FrameWriter {
 public:
  using Stage = std::function<void(FrameRecord&)>;
  // `prepare` may run for several frames at once; `commit` runs for one frame
  // at a time, in submission order.
  FrameWriter(Stage prepare, Stage commit, size_t encoders, size_t in_flight);
  ~FrameWriter();  // waits for queued frames; errors there are dropped (call finish() to see them)
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  // Waits while `in_flight` frames are uncommitted.
  void submit(FrameRecord frame);
  // Waits until every submitted frame is committed; rethrows the first error.
  void finish();
  size_t encoders() const { return threads_.size(); }

 private:
  void run();
  void rethrow_locked();
  bool can_commit_locked() const;

  Stage prepare_, commit_;
  size_t in_flight_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, FrameRecord>> waiting_;  // submitted, not yet being prepared
  std::map<uint64_t, FrameRecord> prepared_;              // prepared, waiting for their turn
  uint64_t submitted_ = 0, committed_ = 0;
  bool committing_ = false, stop_ = false;
  bool failed_ = false;  // a frame failed: nothing more is prepared or committed
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace fxsim
