#pragma once
// Encodes and writes frames on a background thread, so PNG compression of one
// frame overlaps the simulation and drawing of the next. At most `depth`
// frames wait; an error in the writer is rethrown by the next submit() or by
// finish(). Each file is written atomically (write_file_atomically).
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "render/image.h"

namespace fxsim {

class FrameWriter {
 public:
  explicit FrameWriter(size_t depth = 2);
  ~FrameWriter();  // waits for queued frames; errors there are dropped (call finish() to see them)
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  void submit(std::string path, Image image);
  // Waits until every submitted frame is on disk; rethrows the first error.
  void finish();

 private:
  void run();
  void rethrow_locked();

  struct Job {
    std::string path;
    Image image;
  };
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fxsim
