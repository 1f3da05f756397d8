// Tests of decoding PM samples into throughput while busy, with hand-worked numbers.
#include "collector/counters/counter_samples.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace brrr::counters {
namespace {

TEST(CounterSamplesTest, ThroughputIsTakenOverBusyTimeOnly) {
  // 1 ms fully active at SM 80 / DRAM 20; 1 ms half active at SM 30 / DRAM 10 (i.e. 60 / 20
  // while active); 2 ms idle. Busy time 1.5 ms: SM (0.8 + 0.3) / 1.5 = 73.3%, DRAM
  // (0.2 + 0.1) / 1.5 = 20%.
  const auto t = ThroughputWhileBusy({{0, 1'000'000, 80, 20, 100},
                                      {1'000'000, 2'000'000, 30, 10, 50},
                                      {2'000'000, 4'000'000, 0, 0, 0}});
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(t->sm_pct, 73.333, 0.001);
  EXPECT_NEAR(t->dram_pct, 20.0, 1e-9);
  EXPECT_EQ(t->samples, 2u);
}

TEST(CounterSamplesTest, NoBusySampleIsNothing) {
  EXPECT_FALSE(ThroughputWhileBusy({}).has_value());
  EXPECT_FALSE(ThroughputWhileBusy({{0, 10, 0, 0, 0}}).has_value());
}

TEST(CounterSamplesTest, ImpossibleSamplesAreSkippedAndSharesBounded) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto t = ThroughputWhileBusy({{10, 5, 90, 90, 100},    // end before start
                                      {0, 10, nan, 1, 100},    // not a number
                                      {0, 10, -5, 1, 100},     // negative
                                      {0, 10, 500, 250, 400},  // above 100%: clamped
                                      {10, 20, 40, 60, 100}});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->samples, 2u);
  EXPECT_NEAR(t->sm_pct, 70.0, 1e-9);    // (100 + 40) / 2
  EXPECT_NEAR(t->dram_pct, 80.0, 1e-9);  // (100 + 60) / 2
}

}  // namespace
}  // namespace brrr::counters
