// CounterClock: which basis a first sample decides, the offsets applied afterwards, and inputs that
// fit no basis or would overflow.
#include "collector/ingest/counter_clock.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace brrr::ingest {
namespace {

// A pair read at monotonic 50 s, realtime 1.7e18 ns, CUPTI 2,000 s; the run's bounds 40..60 s.
constexpr CounterClockPair kPair{2'000'000'000'000, 1'700'000'000'000'000'000, 50'000'000'000};
constexpr int64_t kEarliest = 40'000'000'000, kLatest = 60'000'000'000;

TEST(CounterClock, MonotonicTimestampsAreKeptAsTheyAre) {
  CounterClock c(kPair);
  EXPECT_EQ(c.ToMonotonic(51'000'000'000, kEarliest, kLatest), 51'000'000'000);
  EXPECT_EQ(c.basis(), CounterClockBasis::kMonotonic);
}

TEST(CounterClock, CuptiTimestampsAreOffsetByThePair) {
  CounterClock c(kPair);
  // CUPTI 2,001 s = 1 s after the pair = monotonic 51 s.
  EXPECT_EQ(c.ToMonotonic(2'001'000'000'000, kEarliest, kLatest), 51'000'000'000);
  EXPECT_EQ(c.basis(), CounterClockBasis::kCuptiTimestamp);
  // Decided: a later sample is converted the same way, even outside the first bounds.
  EXPECT_EQ(c.ToMonotonic(2'100'000'000'000, kEarliest, kLatest), 150'000'000'000);
}

TEST(CounterClock, RealtimeTimestampsAreOffsetByThePair) {
  CounterClock c(kPair);
  EXPECT_EQ(c.ToMonotonic(1'700'000'002'000'000'000, kEarliest, kLatest), 52'000'000'000);
  EXPECT_EQ(c.basis(), CounterClockBasis::kRealtime);
}

TEST(CounterClock, WithoutCuptiTimestampThatBasisIsNeverChosen) {
  CounterClock c({0, kPair.realtime_ns, kPair.mono_ns});
  // Would be monotonic 51 s on the CUPTI basis, but the pair has no CUPTI time.
  EXPECT_EQ(c.ToMonotonic(2'001'000'000'000, kEarliest, kLatest), std::nullopt);
  EXPECT_EQ(c.basis(), CounterClockBasis::kUndecided);
}

TEST(CounterClock, ASampleThatFitsNoBasisDecidesNothing) {
  CounterClock c(kPair);
  EXPECT_EQ(c.ToMonotonic(1'000'000'000, kEarliest, kLatest), std::nullopt);  // 1 s: none
  EXPECT_EQ(c.basis(), CounterClockBasis::kUndecided);
  EXPECT_EQ(c.ToMonotonic(55'000'000'000, kEarliest, kLatest), 55'000'000'000);  // the next fits
  EXPECT_EQ(c.basis(), CounterClockBasis::kMonotonic);
}

TEST(CounterClock, ExtremeValuesNeitherOverflowNorFit) {
  CounterClock c({UINT64_MAX, UINT64_MAX, UINT64_MAX});
  EXPECT_EQ(c.ToMonotonic(UINT64_MAX, kEarliest, kLatest), std::nullopt);
  EXPECT_EQ(c.ToMonotonic(0, kEarliest, kLatest), std::nullopt);
  CounterClock none;
  EXPECT_EQ(none.ToMonotonic(UINT64_MAX, kEarliest, kLatest), std::nullopt);
  EXPECT_EQ(none.basis(), CounterClockBasis::kUndecided);
}

}  // namespace
}  // namespace brrr::ingest
