#include "render/frame_writer.h"

#include <algorithm>
#include <csignal>
#include <pthread.h>
#include <utility>

#include "render/output_files.h"

namespace fxsim {

FrameWriter::FrameWriter(Stage prepare, Stage commit, size_t encoders, size_t in_flight)
    : prepare_(std::move(prepare)), commit_(std::move(commit)), in_flight_(std::max<size_t>(in_flight, 1)) {
  for (size_t i = 0; i < std::max<size_t>(encoders, 1); ++i) threads_.emplace_back([this] { run(); });
}

FrameWriter::~FrameWriter() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return committed_ == submitted_ || failed_; });
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FrameWriter::rethrow_locked() {
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void FrameWriter::submit(FrameRecord frame) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return submitted_ - committed_ < in_flight_ || failed_; });
  rethrow_locked();
  waiting_.emplace_back(submitted_++, std::move(frame));
  changed_.notify_all();
}

void FrameWriter::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return committed_ == submitted_ || failed_; });
  rethrow_locked();
}

bool FrameWriter::can_commit_locked() const { return !committing_ && !failed_ && prepared_.count(committed_) > 0; }

void FrameWriter::run() {
  // Interrupts are handled by the other threads: the handler waits for the
  // commit in progress (CommitSection) and must not run on a committing thread.
  const sigset_t interrupts = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &interrupts, nullptr);
  std::unique_lock lock(mutex_);
  const auto fail = [&](std::exception_ptr error) {
    if (!failed_) error_ = error;
    failed_ = true;
    // Nothing after a failed frame is written (nor prepared).
    waiting_.clear();
    prepared_.clear();
  };
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !waiting_.empty() || can_commit_locked(); });
    if (can_commit_locked()) {
      auto node = prepared_.extract(committed_);
      committing_ = true;
      lock.unlock();
      std::exception_ptr error;
      try {
        commit_(node.mapped());
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      committing_ = false;
      if (error) fail(error);
      else ++committed_;
    } else if (!waiting_.empty()) {
      auto [sequence, frame] = std::move(waiting_.front());
      waiting_.pop_front();
      lock.unlock();
      std::exception_ptr error;
      try {
        prepare_(frame);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error) fail(error);
      else if (!failed_) prepared_.emplace(sequence, std::move(frame));
    } else {
      return;  // stop requested and nothing left
    }
    changed_.notify_all();
  }
}

}  // namespace fxsim
