// The output stage (render/frame_writer.h): frames prepared on several threads
// at once are committed strictly in order, with a bounded number in flight,
// and nothing after a failed frame is committed.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "render/frame_writer.h"
#include "render/output_files.h"

using namespace fxsim;

namespace {
FrameRecord frame(int n) {
  FrameRecord r;
  r.frame = n;
  return r;
}
// Early frames take longest to prepare, so later ones finish first.
void slow_for_early_frames(const FrameRecord& r) { std::this_thread::sleep_for(std::chrono::milliseconds(8 - r.frame % 8)); }
}  // namespace

TEST(FrameWriter, SeveralEncodersCommitInSubmissionOrder) {
  std::mutex mutex;
  std::vector<int> committed;
  std::atomic<int> preparing{0}, most_at_once{0};
  {
    FrameWriter writer(
        [&](FrameRecord& r) {
          const int now = ++preparing;
          for (int seen = most_at_once; now > seen && !most_at_once.compare_exchange_weak(seen, now);) {
          }
          slow_for_early_frames(r);
          --preparing;
        },
        [&](FrameRecord& r) {
          const std::lock_guard lock(mutex);
          committed.push_back(r.frame);
        },
        4, 6);
    EXPECT_EQ(writer.encoders(), 4u);
    for (int f = 1; f <= 40; ++f) writer.submit(frame(f));
    writer.finish();
  }
  ASSERT_EQ(committed.size(), 40u);
  for (int f = 1; f <= 40; ++f) EXPECT_EQ(committed[size_t(f - 1)], f);
  EXPECT_GT(most_at_once.load(), 1);  // frames really were prepared at once
  EXPECT_LE(most_at_once.load(), 4);
}

TEST(FrameWriter, AtMostInFlightFramesAreUncommitted) {
  std::atomic<int> submitted{0}, committed{0}, most_uncommitted{0};
  FrameWriter writer([&](FrameRecord& r) { slow_for_early_frames(r); }, [&](FrameRecord&) { ++committed; }, 3, 5);
  for (int f = 1; f <= 30; ++f) {
    writer.submit(frame(f));
    ++submitted;
    most_uncommitted = std::max(most_uncommitted.load(), submitted - committed);
  }
  writer.finish();
  EXPECT_EQ(committed.load(), 30);
  EXPECT_LE(most_uncommitted.load(), 5);
}

TEST(FrameWriter, NothingAfterAFailedFrameIsCommittedAndTheErrorComesBack) {
  std::mutex mutex;
  std::vector<int> committed;
  FrameWriter writer(
      [&](FrameRecord& r) {
        slow_for_early_frames(r);
        if (r.frame == 7) throw std::runtime_error("disk full at frame 7");
      },
      [&](FrameRecord& r) {
        const std::lock_guard lock(mutex);
        committed.push_back(r.frame);
      },
      4, 8);
  bool thrown = false;
  try {
    for (int f = 1; f <= 40; ++f) writer.submit(frame(f));
    writer.finish();
  } catch (const std::runtime_error& e) {
    thrown = true;
    EXPECT_STREQ(e.what(), "disk full at frame 7");
  }
  EXPECT_TRUE(thrown);
  const std::lock_guard lock(mutex);
  for (size_t i = 0; i < committed.size(); ++i) EXPECT_EQ(committed[i], int(i) + 1);  // in order, and none past 6
  EXPECT_LE(committed.size(), 6u);
}

namespace {
std::atomic<bool> g_delivered{false};
extern "C" void note_delivery(int) { g_delivered = true; }
}  // namespace

TEST(CommitSection, HoldsAnInterruptBackUntilTheCommitEnds) {
  // A commit made on the thread the signal reaches (a video finished on the
  // main thread) had its handler run inside it, waiting (stop_commits) for
  // its own commit for ever: the signal must come once the section ends.
  const auto previous = std::signal(SIGTERM, note_delivery);
  g_delivered = false;
  {
    const CommitSection section;
    std::raise(SIGTERM);
    EXPECT_FALSE(g_delivered.load());
  }
  EXPECT_TRUE(g_delivered.load());
  std::signal(SIGTERM, previous);
}

// An interrupt's handler removes what a run leaves and ends the process: a
// commit that began behind it (a frame renamed into place after the
// handler's pass over the names) was left on disk. stop_commits() lets none
// begin; the thread that would commit waits for the process to end.
// (In a child process: commits stay stopped for good.)
TEST(CommitSection, NoneBeginsOnceAnInterruptStoppedThem) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // this process has threads (the GL's)
  EXPECT_EXIT(
      {
        std::atomic<bool> began{false};
        stop_commits();
        std::thread late([&] {
          const CommitSection section;
          began = true;
        });
        late.detach();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        std::_Exit(began.load() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}
