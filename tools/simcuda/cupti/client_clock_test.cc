// Tests for ClientClock: default CLOCK_REALTIME, a registered callback, and the engine offset.
#include "client_clock.h"

#include <gtest/gtest.h>
#include <time.h>

namespace simcuda::cupti {
namespace {

constexpr uint64_t kFakeClockOffsetNs = 1'000'000'000'000'000ull;  // 1e15 ns ahead of monotonic

uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

uint64_t FakeClock() { return MonotonicNowNs() + kFakeClockOffsetNs; }
uint64_t FixedClock() { return 12345; }

TEST(ClientClockTest, DefaultIsRealtime) {
  ClientClock clock;
  const uint64_t before = RealtimeNs();
  const uint64_t now = clock.Now();
  const uint64_t after = RealtimeNs();
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);
}

TEST(ClientClockTest, RegisteredCallbackIsUsedAndCanBeReset) {
  ClientClock clock;
  clock.SetCallback(&FixedClock);
  EXPECT_TRUE(clock.HasCallback());
  EXPECT_EQ(clock.Now(), 12345u);
  clock.SetCallback(nullptr);
  EXPECT_FALSE(clock.HasCallback());
  EXPECT_GT(clock.Now(), 12345u);
}

TEST(ClientClockTest, OffsetFromEngineMatchesCallbackClock) {
  ClientClock clock;
  clock.SetCallback(&FakeClock);
  const ClockOffset offset = clock.OffsetFromEngine();
  // The callback's read is bracketed by two monotonic reads: exact to within one bracket.
  EXPECT_NEAR(offset.delta_ns, static_cast<int64_t>(kFakeClockOffsetNs), 100'000'000);
  EXPECT_EQ(offset.Map(1000), 1000 + static_cast<uint64_t>(offset.delta_ns));
}

// Records made at different moments must share one offset: a per-record measurement jitters by
// the cost of two clock reads and made back-to-back kernels on one stream appear to overlap.
TEST(ClientClockTest, OffsetIsFixedOnceMeasured) {
  ClientClock clock;
  clock.SetCallback(&FakeClock);
  const int64_t first = clock.OffsetFromEngine().delta_ns;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(clock.OffsetFromEngine().delta_ns, first);
  ClientClock realtime;
  const int64_t default_first = realtime.OffsetFromEngine().delta_ns;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(realtime.OffsetFromEngine().delta_ns, default_first);
}

TEST(ClientClockTest, OffsetFromEngineDefaultIsRealtimeMinusMonotonic) {
  ClientClock clock;
  const uint64_t engine_now = MonotonicNowNs();
  const uint64_t mapped = clock.OffsetFromEngine().Map(engine_now);
  const uint64_t realtime_now = RealtimeNs();
  EXPECT_LE(mapped, realtime_now);
  EXPECT_GE(mapped + 100'000'000, realtime_now);
}

TEST(ClientClockTest, UnknownTimestampStaysUnknown) {
  EXPECT_EQ((ClockOffset{5000}.Map(0)), 0u);
  EXPECT_EQ((ClockOffset{-5000}.Map(10000)), 5000u);
}

}  // namespace
}  // namespace simcuda::cupti
