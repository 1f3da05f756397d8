// Sums of a job's counts and durations that saturate instead of overflowing (a merged file may
// hold any values). Durations below zero count as zero.
//
// Must never: overflow, or return a negative duration.
#ifndef BRRR_COLLECTOR_JOB_SATURATING_H_
#define BRRR_COLLECTOR_JOB_SATURATING_H_

#include <algorithm>
#include <cstdint>
#include <limits>

namespace brrr::job {

inline uint64_t AddU(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

inline int64_t AddI(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  return b > std::numeric_limits<int64_t>::max() - a ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_SATURATING_H_
