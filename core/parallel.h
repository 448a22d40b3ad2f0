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
  void work();
  // Runs tasks of the current batch until none is left to claim.
  void drain(const std::function<void(size_t)>& task, size_t count);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // Set under the mutex before batch_ moves on; read by a worker that saw it move.
  const std::function<void(size_t)>* task_ = nullptr;
  size_t count_ = 0;
  // Tasks are claimed and counted with atomics, not under the mutex: a step
  // of a million particles is about 120 tasks of a few microseconds, and two
  // threads taking a lock twice a task ran it slower than one (2 M rain
  // drops, steady wind, 2 threads: 1.4 ms against 1.0 on one).
  std::atomic<size_t> next_{0}, finished_{0};
  std::atomic<uint64_t> batch_{0};
  int busy_ = 0;  // workers inside drain (under the mutex): a batch ends when they have left
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
