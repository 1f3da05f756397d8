// Percentile queries and merging for LogHistogram (the rare path; Add is inline in the header).
//
// Must never: return a value outside [min, max] of what was added.
#include "collector/analysis/log_histogram.h"

#include <algorithm>
#include <cmath>

namespace brrr {

int64_t LogHistogram::BucketLow(size_t bucket) {
  if (bucket < static_cast<size_t>(kExactLimit)) return static_cast<int64_t>(bucket);
  const size_t rel = bucket - kExactLimit;
  const int e = static_cast<int>(rel >> kSubBits) + kSubBits + 1;
  const uint64_t sub = rel & ((1u << kSubBits) - 1);
  return static_cast<int64_t>(((uint64_t{1} << kSubBits) + sub) << (e - kSubBits));
}

int64_t LogHistogram::BucketWidth(size_t bucket) {
  if (bucket < static_cast<size_t>(kExactLimit)) return 1;
  const int e = static_cast<int>((bucket - kExactLimit) >> kSubBits) + kSubBits + 1;
  return int64_t{1} << (e - kSubBits);
}

void LogHistogram::Merge(const LogHistogram& other) {
  if (other.count_ == 0) return;
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

int64_t LogHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  if (!(p > 0)) return min_;  // also catches NaN
  if (p >= 100) return max_;
  uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const int64_t mid = BucketLow(i) + (BucketWidth(i) - 1) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

}  // namespace brrr
