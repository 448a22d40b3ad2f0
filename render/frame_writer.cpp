#include "render/frame_writer.h"

#include <csignal>
#include <pthread.h>
#include <utility>

namespace fxsim {

FrameWriter::FrameWriter(Commit commit, size_t depth)
    : commit_(std::move(commit)), depth_(depth), thread_([this] { run(); }) {}

FrameWriter::~FrameWriter() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void FrameWriter::rethrow_locked() {
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void FrameWriter::submit(FrameRecord job) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < depth_ || error_; });
  rethrow_locked();
  queue_.push_back(std::move(job));
  changed_.notify_all();
}

void FrameWriter::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
  rethrow_locked();
}

void FrameWriter::run() {
  // Interrupts are handled by the other threads: the handler waits for this
  // thread's commit in progress (CommitSection) and must not run on it.
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, s);
  pthread_sigmask(SIG_BLOCK, &interrupts, nullptr);
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop requested and nothing left
    FrameRecord job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      commit_(job);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    if (error && !error_) {
      error_ = error;
      queue_.clear();  // nothing after a failed frame is written
    }
    changed_.notify_all();
  }
}

}  // namespace fxsim
