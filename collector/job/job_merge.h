// Joining the reports of a job's processes (one per process, from `brrr run` of a launcher or
// gathered with `brrr merge`) into one job report: a row per process and the job's totals in the
// report's usual fields. Needs no common clock for its figures: each is one process's own or a sum
// of them. The processes' timelines are put on one clock by their start times on the wall clock
// (ProcessRow.timeline, job_timeline.h).
//
// Totals: counts and times are summed (kernels, api calls and times, events, coverage, phases,
// launch sites); stalls are one row per (api, reason, stack) across processes with the summed
// calls and time; devices are one row per (host, device id), a shared one's wall once on the
// job's clock (job_devices.h); percentiles (api p50/p99, launch latency) are the highest process's, since no process's
// samples are kept. Lists are re-capped as the analysis caps them; a row outside one process's
// top list is not seen, so the tail of a merged top list may be short (the totals stay exact).
//
// Must never: lose a process (every input is a row, even an empty or crashed one), or overflow.
#ifndef BRRR_COLLECTOR_JOB_JOB_MERGE_H_
#define BRRR_COLLECTOR_JOB_JOB_MERGE_H_

#include <optional>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::job {

// What the caller knows of the job as a whole (`brrr run`: its launcher); else derived.
struct JobContext {
  std::string command;             // "" -> the processes' command(s)
  std::optional<int64_t> wall_ns;  // unset -> the longest process's wall
  std::optional<int> exit_code;    // unset -> the first nonzero exit code by rank, else 0
};

// The row of one process's report.
ProcessRow RowOf(const Report& process);

// The job report of `processes` (each a single process's report).
Report MergeJob(const std::vector<Report>& processes, const JobContext& context);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_JOB_MERGE_H_
