// A fixed-size log-linear histogram of non-negative integer values (nanoseconds): bounded memory
// however many values it sees, percentiles within 1% relative error, exact count, sum, min, max.
//
// Values below 128 are kept exactly; above, every power-of-two range [2^e, 2^(e+1)) is split into
// 64 equal buckets, so a bucket is at most 1/64 of its lower bound wide and its midpoint is within
// 1/128 (0.78%) of any value in it. Negative values are recorded as 0.
//
// Not thread-safe. Must never: allocate after construction, or grow with the number of values.
#ifndef BRRR_COLLECTOR_ANALYSIS_LOG_HISTOGRAM_H_
#define BRRR_COLLECTOR_ANALYSIS_LOG_HISTOGRAM_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace brrr {

class LogHistogram {
 public:
  static constexpr int kSubBits = 6;                     // 64 buckets per power of two
  static constexpr int64_t kExactLimit = 2 << kSubBits;  // 128: values below are exact
  static constexpr size_t kBuckets = kExactLimit + (63 - (kSubBits + 1)) * (1 << kSubBits);

  void Add(int64_t value) {
    if (value < 0) value = 0;
    ++counts_[BucketOf(value)];
    ++count_;
    sum_ += value;
    if (value > max_) max_ = value;
    if (value < min_) min_ = value;
  }
  void Merge(const LogHistogram& other);

  uint64_t count() const { return count_; }
  int64_t sum() const { return sum_; }
  int64_t max() const { return count_ ? max_ : 0; }
  int64_t min() const { return count_ ? min_ : 0; }

  // Nearest-rank percentile: the value v such that ceil(p/100 * count) values are <= v, estimated
  // as its bucket's midpoint clamped to [min, max]. p is clamped to [0, 100]; 0 with no values.
  int64_t Percentile(double p) const;

  static size_t BucketOf(int64_t value) {
    const uint64_t v = static_cast<uint64_t>(value);
    if (v < static_cast<uint64_t>(kExactLimit)) return static_cast<size_t>(v);
    const int e = 63 - std::countl_zero(v);  // >= kSubBits + 1
    const uint64_t sub = (v >> (e - kSubBits)) & ((1u << kSubBits) - 1);
    return static_cast<size_t>(kExactLimit + (e - kSubBits - 1) * (1 << kSubBits) + sub);
  }
  // Values recorded in one bucket (0 for a bucket past kBuckets).
  uint64_t bucket_count(size_t bucket) const {
    return bucket < kBuckets ? counts_[bucket] : 0;
  }
  // The smallest value in a bucket and the bucket's width.
  static int64_t BucketLow(size_t bucket);
  static int64_t BucketWidth(size_t bucket);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  int64_t sum_ = 0;
  int64_t max_ = 0;
  int64_t min_ = std::numeric_limits<int64_t>::max();
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_LOG_HISTOGRAM_H_
