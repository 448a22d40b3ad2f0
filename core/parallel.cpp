#include "core/parallel.h"

#include <chrono>
#include <exception>
#include <utility>

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
    batch_.fetch_add(1);  // (a spinning worker looks at batch_)
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(const std::function<void(size_t)>& task, size_t count) {
  for (size_t index; (index = next_.fetch_add(1, std::memory_order_relaxed)) < count;) {
    try {
      task(index);
    } catch (...) {  // the first, thrown again by run() once every task is over (on a worker it ended the process)
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    finished_.fetch_add(1, std::memory_order_release);
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

void ThreadPool::work() {
  uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return batch_.load(std::memory_order_acquire) != seen; });
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || batch_.load(std::memory_order_relaxed) != seen; });
    if (stop_) return;
    seen = batch_.load(std::memory_order_relaxed);
    if (!task_) continue;  // the batch is over already
    const auto* task = task_;
    const size_t count = count_;
    ++busy_;
    lock.unlock();
    drain(*task, count);
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
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    batch_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(task, count);  // returns once every task is claimed
  spin_until([&] { return finished_.load(std::memory_order_acquire) == count; });
  // Every task done, and no worker still inside drain (one about to claim
  // past the end must not claim from the next batch with this one's task).
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0 && finished_.load(std::memory_order_acquire) == count; });
  task_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace fxsim
