// core/parallel.h's pool: every task of every batch runs once, batches back
// to back (the step's loops), on any number of threads; each thread begins
// with its own contiguous share of a batch; a task's exception comes back
// from run() once the batch is over.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel.h"

using namespace fxsim;

TEST(ThreadPool, EveryTaskOfEveryBatchRunsOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (size_t count : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(100), size_t(1000)})
      for (int batch = 0; batch < 200; ++batch) {
        std::vector<std::atomic<int>> runs(count);
        pool.run(count, [&](size_t i) { runs[i].fetch_add(1); });
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(runs[i].load(), 1) << threads << " threads, task " << i;
      }
  }
}

// The caller's share of 8 tasks on 2 threads is tasks 0-3, the worker's 4-7.
// Tasks 0 and 4 wait for each other to begin, so both threads take part;
// the worker's first task must be 4, the front of its share, in every batch
// (claimed from one queue, it took task 1 first): so a step's particles stay
// with the thread, and the core's caches, that stepped them last time.
TEST(ThreadPool, EachThreadBeginsWithItsOwnShareOfTheBatch) {
  ThreadPool pool(2);
  constexpr size_t kCount = 8;
  const std::thread::id caller = std::this_thread::get_id();
  for (int batch = 0; batch < 20; ++batch) {
    std::atomic<bool> began[2] = {false, false};
    std::atomic<int> order{0};
    std::vector<std::thread::id> ran_on(kCount);
    std::vector<int> rank(kCount);
    std::atomic<bool> met{true};
    pool.run(kCount, [&](size_t i) {
      ran_on[i] = std::this_thread::get_id();
      rank[i] = order.fetch_add(1);
      if (i % 4 != 0) return;
      began[i / 4] = true;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!began[1 - i / 4])
        if (std::chrono::steady_clock::now() > until) {
          met = false;
          return;
        }
    });
    ASSERT_TRUE(met) << "batch " << batch << ": tasks 0 and 4 never ran at the same time";
    EXPECT_EQ(ran_on[0], caller) << "batch " << batch;
    ASSERT_NE(ran_on[4], caller) << "batch " << batch;
    for (size_t i = 0; i < kCount; ++i) {
      if (ran_on[i] != ran_on[4]) continue;
      EXPECT_GE(rank[i], rank[4]) << "batch " << batch << ": the worker ran task " << i << " first";
    }
  }
}

TEST(ThreadPool, ATasksExceptionComesBackAfterTheBatchAndThePoolGoesOn) {
  ThreadPool pool(4);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(64,
                        [&](size_t i) {
                          ran.fetch_add(1);
                          if (i == 5 || i == 40) throw std::runtime_error("task failed");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 64);  // the others still ran: the batch ended before run() returned
  std::atomic<int> after{0};
  pool.run(64, [&](size_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 64);
}
