#pragma once
// A fixed pool of worker threads that runs numbered tasks. Work is split into
// chunks whose boundaries depend only on the problem size, never on the number
// of threads, so per-chunk results (and reductions over them in chunk order)
// are identical for any --threads.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fxsim {

// The threads to use when `requested` are asked for: all hardware threads (at least one) for 0 or less.
int thread_count(int requested);

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // threads <= 0: all hardware threads
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }
  // Runs task(0) … task(count - 1), on the workers and the calling thread;
  // returns when all are done, throwing the first exception a task threw.
  void run(size_t count, const std::function<void(size_t)>& task);

 private:
  void work(size_t self);
  // Runs tasks of the current batch until none is left to claim: those of
  // share `self` first, then any left in the others'.
  void drain(const std::function<void(size_t)>& task, size_t self);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // Set under the mutex before batch_ moves on; read by a worker that saw it move.
  const std::function<void(size_t)>* task_ = nullptr;
  // Tasks are claimed and counted with atomics, not under the mutex: a step
  // of a million particles is about 120 tasks of a few microseconds, and two
  // threads taking a lock twice a task ran it slower than one (2 M rain
  // drops, steady wind, 2 threads: 1.4 ms against 1.0 on one).
  //
  // A batch's tasks are dealt in contiguous shares, one a thread (the caller
  // is thread 0), claimed from the front; a thread whose share is done takes
  // what is left of the others'. So from one step to the next the same
  // thread steps the same particles, which stay in its core's caches: dealt
  // one at a time to whichever thread asked, they moved between cores each
  // step (a 100 000-flake snow step on 2 threads ran no faster than on one).
  struct alignas(64) Share {
    std::atomic<size_t> next{0};  // the next task to claim (past `end` once all are)
    size_t end = 0;
  };
  std::vector<Share> shares_;  // a thread each; set under the mutex before batch_ moves on
  std::atomic<size_t> finished_{0};
  std::atomic<uint64_t> batch_{0};
  // Workers inside drain: a batch ends when they have left. Changed under the
  // mutex; read without it by run()'s spin, so that the caller need not sleep
  // on done_ for a worker on its way out (it did nearly every step: a futex
  // wait and a wake a step, which cost tens of microseconds on a VM).
  std::atomic<int> busy_{0};
  std::exception_ptr error_;  // a task's (under the mutex)
  bool stop_ = false;
};

// Chunks of this many particles: the unit of parallel work and of reductions.
constexpr size_t kChunk = 8192;

inline size_t chunk_count(size_t n) { return (n + kChunk - 1) / kChunk; }

// Calls body(begin, end, chunk) for each chunk of [0, n).
template <typename Body>
void for_chunks(ThreadPool& pool, size_t n, Body&& body) {
  pool.run(chunk_count(n), [&](size_t chunk) {
    const size_t begin = chunk * kChunk;
    body(begin, std::min(n, begin + kChunk), chunk);
  });
}

}  // namespace fxsim
