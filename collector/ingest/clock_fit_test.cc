// Tests of the TSC -> CLOCK_MONOTONIC fit: accuracy on synthetic clocks with jitter and a rate
// change (NTP slew), rejection of contradictory pairs, bounded memory, clamping, and accuracy
// against the machine's real clocks.
#include "collector/ingest/clock_fit.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <random>
#include <thread>

#include "collector/ingest/clock_pair.h"

namespace brrr::ingest {
namespace {

// A synthetic machine: TSC at 2.5 GHz; after `slew_at_ns` the monotonic clock runs 200 ppm fast.
struct SyntheticClock {
  int64_t slew_at_ns = std::numeric_limits<int64_t>::max();
  int64_t NsAt(uint64_t tsc) const {
    const double ns = static_cast<double>(tsc) / 2.5;
    if (ns <= slew_at_ns) return static_cast<int64_t>(ns);
    return static_cast<int64_t>(slew_at_ns + (ns - slew_at_ns) * 1.0002);
  }
};

TEST(ClockFitTest, InterpolatesJitteredPairsWithinTheJitter) {
  SyntheticClock truth;
  ClockFit fit;
  std::mt19937_64 random(1);
  std::uniform_int_distribution<int> jitter(-20, 20);
  for (uint64_t tsc = 1'000'000; tsc < 2'500'000'000; tsc += 5'000'000) {  // every 2 ms, 1 s
    ASSERT_TRUE(fit.AddPair({tsc, truth.NsAt(tsc) + jitter(random)}));
  }
  for (uint64_t tsc = 1'000'000; tsc < 2'400'000'000; tsc += 7'777'777) {
    EXPECT_NEAR(fit.ToNs(tsc), truth.NsAt(tsc), 60) << tsc;
  }
}

TEST(ClockFitTest, EveryPieceIsRightAfterEachPairAddedInOrder) {
  // The rate changes at every 2 ms pair (each kept: past min_spacing), and a pair 0.4 ms after
  // each (too close: it becomes the newest endpoint, replaced by the next one) lies on the same
  // line. So the exact answer everywhere between the first and the newest pair is the truth
  // line, and after every pair added each piece must give it: none kept a stale slope or point.
  const auto ns_at = [](uint64_t tsc) {  // 1 GHz x (1 + k/1000) within the k-th 2 ms
    const uint64_t k = tsc / 2'000'000;
    int64_t ns = 0;
    for (uint64_t i = 0; i < k; ++i) ns += 2'000'000 + static_cast<int64_t>(i) * 2'000;
    return ns + static_cast<int64_t>((tsc - k * 2'000'000) * (1000 + k) / 1000);
  };
  ClockFit fit;
  for (uint64_t k = 0; k < 40; ++k) {
    for (const uint64_t tsc : {k * 2'000'000, k * 2'000'000 + 400'000}) {
      ASSERT_TRUE(fit.AddPair({tsc, ns_at(tsc)})) << tsc;
      for (uint64_t probe = 0; probe <= tsc; probe += 97'003) {
        ASSERT_NEAR(fit.ToNs(probe), ns_at(probe), 1) << "probe " << probe << " after " << tsc;
      }
    }
  }
}

TEST(ClockFitTest, FollowsARateChangeThatOneLineCouldNot) {
  SyntheticClock truth{.slew_at_ns = 500'000'000};
  ClockFit fit;
  for (uint64_t tsc = 0; tsc <= 2'500'000'000; tsc += 25'000'000) {  // every 10 ms
    ASSERT_TRUE(fit.AddPair({tsc + 1, truth.NsAt(tsc + 1)}));
  }
  // A single line through the ends would be ~50 us off at the slew point.
  for (uint64_t tsc = 12'345; tsc < 2'500'000'000; tsc += 3'333'333) {
    EXPECT_NEAR(fit.ToNs(tsc), truth.NsAt(tsc), 5) << tsc;
  }
}

TEST(ClockFitTest, ExtrapolatesWithTheNearestSlope) {
  ClockFit fit;
  ASSERT_TRUE(fit.AddPair({1'000'000, 1'000'000}));
  ASSERT_TRUE(fit.AddPair({5'000'000, 3'000'000}));  // 0.5 ns per tick
  EXPECT_EQ(fit.ToNs(7'000'000), 4'000'000);
  EXPECT_EQ(fit.ToNs(0), 500'000);
}

TEST(ClockFitTest, RejectsPairsThatContradictTheOthers) {
  ClockFit fit;
  ASSERT_TRUE(fit.AddPair({1'000'000'000, 1'000'000'000}));
  ASSERT_TRUE(fit.AddPair({3'000'000'000, 2'000'000'000}));
  EXPECT_FALSE(fit.AddPair({4'000'000'000, 1'500'000'000})) << "time going backwards";
  EXPECT_FALSE(fit.AddPair({3'000'000'001, 900'000'000'000})) << "absurd rate";
  EXPECT_FALSE(fit.AddPair({3'000'000'000, 2'000'000'000})) << "duplicate tick";
  EXPECT_FALSE(fit.AddPair({5, -1})) << "negative time";
  EXPECT_EQ(fit.pair_count(), 2u);
  EXPECT_EQ(fit.ToNs(2'000'000'000), 1'500'000'000);
}

TEST(ClockFitTest, AcceptsAnOlderPairInsertedLate) {
  ClockFit fit;
  ASSERT_TRUE(fit.AddPair({10'000'000, 20'000'000}));
  ASSERT_TRUE(fit.AddPair({20'000'000, 40'000'000}));
  ASSERT_TRUE(fit.AddPair({2'000'000, 4'000'000}));  // like the shim's pair, read late
  EXPECT_EQ(fit.pair_count(), 3u);
  EXPECT_EQ(fit.ToNs(3'000'000), 6'000'000);
}

TEST(ClockFitTest, MemoryStaysBoundedOverALongRun) {
  ClockFit fit({.min_spacing_ns = 1'000'000, .max_pairs = 256});
  for (uint64_t i = 1; i <= 100'000; ++i) {
    ASSERT_TRUE(fit.AddPair({i * 3'000'000, static_cast<int64_t>(i) * 1'000'000}));
  }
  EXPECT_LE(fit.pair_count(), 257u);
  EXPECT_EQ(fit.ToNs(150'000'000'000), 50'000'000'000);
}

TEST(ClockFitTest, ClosePairsReplaceTheNewestInsteadOfAccumulating) {
  ClockFit fit({.min_spacing_ns = 1'000'000, .max_pairs = 4096});
  ASSERT_TRUE(fit.AddPair({0 + 1, 1}));
  for (int i = 1; i <= 100; ++i) ASSERT_TRUE(fit.AddPair({uint64_t(i) * 10 + 1, i * 10 + 1}));
  EXPECT_EQ(fit.pair_count(), 2u);
}

TEST(ClockFitTest, ClampsInsteadOfOverflowing) {
  ClockFit fit;
  ASSERT_TRUE(fit.AddPair({1'000, 1'000'000}));
  ASSERT_TRUE(fit.AddPair({2'000'000, 100'000'000}));
  EXPECT_EQ(fit.ToNs(std::numeric_limits<uint64_t>::max()), std::numeric_limits<int64_t>::max());
  EXPECT_NEAR(fit.ToNs(0), 950'475, 1);  // 1e6 - 1000 ticks * 49.52 ns/tick
  ClockFit steep;
  ASSERT_TRUE(steep.AddPair({1'000'000'000, 1'000}));
  ASSERT_TRUE(steep.AddPair({1'000'010'000, 1'000'000}));
  EXPECT_EQ(steep.ToNs(0), 0);
}

TEST(ClockFitTest, EmptyFitReturnsZero) {
  ClockFit fit;
  EXPECT_EQ(fit.ToNs(12345), 0);
}

TEST(ClockFitTest, MatchesTheRealClocksWithinMicroseconds) {
  if (!HasInvariantTsc()) GTEST_SKIP() << "no invariant TSC";
  ClockFit fit;
  for (int i = 0; i < 20; ++i) {
    fit.AddPair(SampleClockPair());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  int64_t worst = 0;
  for (int i = 0; i < 50; ++i) {
    const int64_t before = MonotonicNowNs();
    const uint64_t tsc = ReadTsc();
    const int64_t after = MonotonicNowNs();
    if (after - before > 2'000) continue;  // preempted: this sample says nothing
    const int64_t ns = fit.ToNs(tsc);
    worst = std::max(worst, std::max(before - ns, ns - after));
  }
  EXPECT_LT(worst, 10'000) << "TSC mapped more than 10 us away from CLOCK_MONOTONIC";
}

}  // namespace
}  // namespace brrr::ingest
