#include "core/parallel.h"

namespace fxsim {

int thread_count(int requested) {
  return requested > 0 ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool::ThreadPool(int threads) {
  threads = thread_count(threads);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(std::unique_lock<std::mutex>& lock) {
  while (task_ && next_ < count_) {
    const size_t index = next_++;
    const auto* task = task_;
    lock.unlock();
    (*task)(index);
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void ThreadPool::work() {
  std::unique_lock lock(mutex_);
  uint64_t seen = batch_;
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || batch_ != seen; });
    if (stop_) return;
    seen = batch_;
    drain(lock);
  }
}

void ThreadPool::run(size_t count, const std::function<void(size_t)>& task) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  std::unique_lock lock(mutex_);
  task_ = &task;
  count_ = count;
  next_ = 0;
  finished_ = 0;
  ++batch_;
  wake_.notify_all();
  drain(lock);
  done_.wait(lock, [&] { return finished_ == count_; });
  task_ = nullptr;
}

}  // namespace fxsim
