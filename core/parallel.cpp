#include "core/parallel.h"

#include <chrono>
#include <exception>
#include <utility>

namespace fxsim {

int thread_count(int requested) {
  return requested > 0 ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool::ThreadPool(int threads) : shares_(size_t(thread_count(threads))) {
  for (size_t i = 1; i < shares_.size(); ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    batch_.fetch_add(1);  // (a spinning worker looks at batch_)
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(const std::function<void(size_t)>& task, size_t self) {
  for (size_t k = 0; k < shares_.size(); ++k) {
    Share& share = shares_[(self + k) % shares_.size()];
    for (size_t index; (index = share.next.fetch_add(1, std::memory_order_relaxed)) < share.end;) {
      try {
        task(index);
      } catch (...) {  // the first, thrown again by run() once every task is over (on a worker it ended the process)
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      finished_.fetch_add(1, std::memory_order_release);
    }
  }
}

namespace {
// Spins for up to 50 microseconds (batches come back to back: a step's
// loops, one step after another) before a thread sleeps: waking a sleeping
// thread costs tens of microseconds on a virtual machine, a step's loop a
// few hundred. Bounded in time, not in pauses, which last from a few cycles
// to over a hundred by processor: idle workers must not take the cores the
// encoders and the GL need between steps.
template <class Ready>
bool spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  for (int i = 1;; ++i) {
    if (ready()) return true;
    if (i % 32 == 0 && std::chrono::steady_clock::now() >= until) return ready();
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}
}  // namespace

void ThreadPool::work(size_t self) {
  uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return batch_.load(std::memory_order_acquire) != seen; });
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || batch_.load(std::memory_order_relaxed) != seen; });
    if (stop_) return;
    seen = batch_.load(std::memory_order_relaxed);
    if (!task_) continue;  // the batch is over already
    const auto* task = task_;
    ++busy_;
    lock.unlock();
    drain(*task, self);
    lock.lock();
    if (--busy_ == 0) done_.notify_all();
  }
}

void ThreadPool::run(size_t count, const std::function<void(size_t)>& task) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    for (size_t t = 0; t < shares_.size(); ++t) {
      shares_[t].next.store(count * t / shares_.size(), std::memory_order_relaxed);
      shares_[t].end = count * (t + 1) / shares_.size();
    }
    finished_.store(0, std::memory_order_relaxed);
    batch_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(task, 0);  // returns once every task is claimed
  // Every task done, and no worker still inside drain (one about to claim
  // past the end must not claim from the next batch with this one's task):
  // spun for first, then made sure of under the mutex.
  const auto over = [&] {
    return finished_.load(std::memory_order_acquire) == count && busy_.load(std::memory_order_acquire) == 0;
  };
  spin_until(over);
  std::unique_lock lock(mutex_);
  done_.wait(lock, over);
  task_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace fxsim
