// Tests of the device ring's bounded wait (ring_backpressure.h): a full ring waits for a reader
// that makes progress, gives up on a stuck reader after the stall time, does not wait again
// until the reader moves, and never waits past the deadline.
#include "shim/ring_backpressure.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "shim/tests/test_segment.h"
#include "shim/thread_ring.h"

namespace brrr::shim {
namespace {

using Clock = std::chrono::steady_clock;
using testing::HeapSegment;

constexpr uint32_t kCapacity = 64;

ring::SegmentGeometry Geometry() {
  ring::SegmentGeometry g;
  g.max_threads = 1;
  g.ring_capacity = 64;
  g.device_capacity = kCapacity;
  g.stack_slots = 64;
  g.name_slots = 64;
  return g;
}

int64_t Now() { return static_cast<int64_t>(MonotonicNs()); }

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

class BackpressureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(segment_.ok());
    cursor_ = DeviceRingOf(segment_.view());
    for (uint32_t i = 0; i < kCapacity; ++i) {
      ASSERT_TRUE(AppendRecord(cursor_, ring::DeviceRecord{}));
    }
    ASSERT_FALSE(HasRoom(cursor_));
  }
  // What a collector does: take `n` records.
  void Read(uint64_t n) { cursor_.ring->read_index.fetch_add(n, std::memory_order_release); }

  HeapSegment segment_{Geometry()};
  DeviceRingCursor cursor_;
  BackpressureState state_;
  BackpressurePolicy policy_{
      .max_wait_ns = 5'000'000'000, .stall_ns = 300'000'000, .poll_ns = 100'000};
};

TEST_F(BackpressureTest, WaitsForAReaderThatMakesRoom) {
  std::thread reader([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Read(8);
  });
  const auto t0 = Clock::now();
  EXPECT_TRUE(WaitForRoom(cursor_, state_, policy_, Now() + policy_.max_wait_ns));
  reader.join();
  EXPECT_GE(MsSince(t0), 45);  // it did wait for the reader
  EXPECT_EQ(state_.waits, 1u);
  EXPECT_TRUE(AppendRecord(cursor_, ring::DeviceRecord{}));
  EXPECT_EQ(cursor_.ring->dropped.load(), 0u);
}

TEST_F(BackpressureTest, GivesUpOnAStuckReaderThenStopsWaitingUntilItMoves) {
  auto t0 = Clock::now();
  EXPECT_FALSE(WaitForRoom(cursor_, state_, policy_, Now() + policy_.max_wait_ns));
  EXPECT_GE(MsSince(t0), 290);  // waited the stall time
  EXPECT_TRUE(state_.reader_stuck);
  EXPECT_EQ(state_.give_ups, 1u);

  t0 = Clock::now();
  EXPECT_FALSE(WaitForRoom(cursor_, state_, policy_, Now() + policy_.max_wait_ns));
  EXPECT_LT(MsSince(t0), 250);  // no second stall: the reader has not moved since
  EXPECT_EQ(state_.give_ups, 1u);

  Read(1);  // the collector is back
  EXPECT_TRUE(WaitForRoom(cursor_, state_, policy_, Now() + policy_.max_wait_ns));
  EXPECT_FALSE(state_.reader_stuck);
}

TEST_F(BackpressureTest, NeverWaitsPastTheDeadline) {
  // A reader that keeps moving but never frees enough: progress alone does not extend the wait.
  std::atomic<bool> stop{false};
  std::thread reader([this, &stop] {
    while (!stop.load()) {
      Read(1);
      cursor_.ring->write_index.fetch_add(1, std::memory_order_release);  // refilled at once
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const auto t0 = Clock::now();
  const bool room = WaitForRoom(cursor_, state_, policy_, Now() + 100'000'000);
  const int64_t waited = MsSince(t0);
  stop = true;
  reader.join();
  if (!room) {
    EXPECT_GE(waited, 95);
    EXPECT_LT(waited, 2'000);           // the deadline, not the 5 s budget, ended it
    EXPECT_FALSE(state_.reader_stuck);  // the reader was moving: not marked stuck
  }
}

}  // namespace
}  // namespace brrr::shim
