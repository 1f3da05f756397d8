// Tests LogHistogram: exactness below 128, percentile error bound against exact nearest-rank
// percentiles of seeded random data, exact max/min/sum, merge.
#include "collector/analysis/log_histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

int64_t ExactPercentile(std::vector<int64_t> v, double p) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

TEST(LogHistogramTest, EmptyReportsZero) {
  LogHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Percentile(50), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.min(), 0);
}

TEST(LogHistogramTest, SmallValuesAreExact) {
  LogHistogram h;
  for (int64_t v = 1; v <= 100; ++v) h.Add(v);
  EXPECT_EQ(h.Percentile(50), 50);
  EXPECT_EQ(h.Percentile(99), 99);
  EXPECT_EQ(h.Percentile(100), 100);
  EXPECT_EQ(h.Percentile(0), 1);
  EXPECT_EQ(h.sum(), 5050);
}

TEST(LogHistogramTest, NegativeValuesCountAsZero) {
  LogHistogram h;
  h.Add(-5);
  h.Add(10);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.Percentile(50), 0);
}

TEST(LogHistogramTest, BucketsTileTheValueRange) {
  // Every bucket starts where the previous one ended, and BucketOf agrees with BucketLow.
  for (size_t b = 1; b < LogHistogram::kBuckets; ++b) {
    ASSERT_EQ(LogHistogram::BucketLow(b),
              LogHistogram::BucketLow(b - 1) + LogHistogram::BucketWidth(b - 1))
        << b;
    ASSERT_EQ(LogHistogram::BucketOf(LogHistogram::BucketLow(b)), b);
    ASSERT_EQ(LogHistogram::BucketOf(LogHistogram::BucketLow(b) - 1), b - 1);
  }
  EXPECT_EQ(LogHistogram::BucketOf(INT64_MAX), LogHistogram::kBuckets - 1);
}

TEST(LogHistogramTest, PercentilesWithinOnePercentOfExact) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    // Log-uniform values from ~100 ns to ~10 s: latencies over many magnitudes.
    std::uniform_real_distribution<double> exponent(2.0, 10.0);
    std::vector<int64_t> values;
    LogHistogram h;
    const int n = 1000 + trial * 997;
    for (int i = 0; i < n; ++i) {
      const auto v = static_cast<int64_t>(std::pow(10.0, exponent(rng)));
      values.push_back(v);
      h.Add(v);
    }
    for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9}) {
      const int64_t exact = ExactPercentile(values, p);
      const int64_t estimate = h.Percentile(p);
      EXPECT_LE(std::abs(static_cast<double>(estimate - exact)), 0.01 * static_cast<double>(exact))
          << "p" << p << " exact " << exact << " estimate " << estimate;
    }
    EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
    EXPECT_EQ(h.Percentile(100), h.max());
    EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
  }
}

TEST(LogHistogramTest, MergeEqualsAddingEverything) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(0, 50'000'000);
  LogHistogram a, b, all;
  for (int i = 0; i < 5000; ++i) {
    const int64_t v = dist(rng);
    (i % 3 ? a : b).Add(v);
    all.Add(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.sum(), all.sum());
  EXPECT_EQ(a.max(), all.max());
  for (double p : {50.0, 90.0, 99.0}) EXPECT_EQ(a.Percentile(p), all.Percentile(p));
}

}  // namespace
}  // namespace brrr
