// core/parallel.h's pool: every task of every batch runs once, batches back
// to back (the step's loops), on any number of threads; a task's exception
// comes back from run() once the batch is over.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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
