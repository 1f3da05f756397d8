// The timelines of a job's processes on one clock (ProcessRow.timeline): one row per (process,
// device), as the processes' own device lists have them, so ranks can be compared over time and a
// straggler seen. Each process's timeline (Report.timeline) starts at its own start,
// origin_unix_ns, with its own power-of-two bucket width; the job's clock starts at the earliest
// process's origin, with one power-of-two width at least as wide as every process's, and the same
// bucket count for every row.
//
// Re-bucketing: a process's bucket falls on the job's buckets at an offset that is any number of
// nanoseconds, so it may straddle a job bucket edge. Each of its parts is then split between the
// job buckets it overlaps in proportion to the overlap, in integers: the job bucket ending at
// offset x of the source bucket gets floor(v * x / len) minus what the earlier ones got, so the
// shares add up to v exactly (a part's time within a source bucket is taken as spread evenly; the
// shares of one job bucket may differ from its width by under 1 ns per part). When every offset
// is a multiple of the job width, every source bucket lies inside one job bucket and this is a
// plain shift and merge of whole buckets. Either way a row adds up to its device's breakdown, part
// by part, exactly.
//
// Bounded: the rows together hold at most kMaxJobTimelineBuckets buckets; with many rows each
// gets fewer, wider buckets (at least kMinJobTimelineBuckets); rows past
// kMaxJobTimelineBuckets / kMinJobTimelineBuckets are left out, the straggler's first kept, then
// in process order. Rows left out (also those without a timeline or a common clock, whose
// device id the process lists more than once, or whose buckets do not add up to their breakdown
// or are wider than the collector's 2^55 ns) are counted, with why, in the result. A kept row's
// id names exactly one of its process's devices.
//
// Must never: change a part's total, hold more than kMaxJobTimelineBuckets buckets, overflow on
// any input (origins, widths and values from files), or leave a row out without counting it.
#ifndef BRRR_COLLECTOR_JOB_JOB_TIMELINE_H_
#define BRRR_COLLECTOR_JOB_JOB_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::job {

struct JobTimelines {
  // As the inputs: the process's rows on the job clock; absent when none of its rows is kept.
  std::vector<std::optional<Timeline>> per_process;
  uint32_t rows_left_out = 0;  // devices[] entries of the inputs that have no row
  std::string note;            // why, one sentence; "" when none was left out
};

// `processes`: single processes' reports in the job's row order. `keep_first`: the index of the
// process whose rows are kept before any other under the cap (the straggler), if any.
JobTimelines MergeTimelines(const std::vector<Report>& processes,
                            std::optional<size_t> keep_first);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_JOB_TIMELINE_H_
