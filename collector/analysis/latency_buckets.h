// A LogHistogram summed into power-of-two buckets for the report (LatencySummary.histogram): few
// enough rows to draw, exact counts (every LogHistogram bucket lies inside one power of two).
//
// Must never: return more than 64 rows, or rows whose counts do not add up to the histogram's.
#ifndef BRRR_COLLECTOR_ANALYSIS_LATENCY_BUCKETS_H_
#define BRRR_COLLECTOR_ANALYSIS_LATENCY_BUCKETS_H_

#include <vector>

#include "collector/analysis/log_histogram.h"
#include "viewer/format/report.h"

namespace brrr {

// The non-empty buckets [lo, 2 lo) (and [0, 1) as lo 0), by lo ascending.
std::vector<LatencyBucket> PowerOfTwoBuckets(const LogHistogram& histogram);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_LATENCY_BUCKETS_H_
