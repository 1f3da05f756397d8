// Power-of-two rows of a LogHistogram. See latency_buckets.h.
//
// Must never: shift by 63 or more (the largest bucket's low bound is below 2^63).
#include "collector/analysis/latency_buckets.h"

#include <array>
#include <bit>
#include <cstdint>

namespace brrr {

std::vector<LatencyBucket> PowerOfTwoBuckets(const LogHistogram& histogram) {
  std::array<uint64_t, 65> counts{};  // [0] the value 0; [e + 1] values in [2^e, 2^(e+1))
  for (size_t b = 0; b < LogHistogram::kBuckets; ++b) {
    const uint64_t n = histogram.bucket_count(b);
    if (n == 0) continue;
    const uint64_t low = static_cast<uint64_t>(LogHistogram::BucketLow(b));
    counts[low == 0 ? 0 : 64 - std::countl_zero(low)] += n;
  }
  std::vector<LatencyBucket> out;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    out.push_back({i == 0 ? 0 : int64_t{1} << (i - 1), counts[i]});
  }
  return out;
}

}  // namespace brrr
