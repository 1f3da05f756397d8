// The latest figures of each process of a `brrr run` job, for the job's /metrics: read from the
// job directory, where each process's collector leaves "<pid>.live" (its figures, JSON, every
// second under BRRR_JOB_METRICS) and "<pid>.brrr" (snapshots and its final report).
//
// Must never: trust a file's contents (a damaged or half-written one is skipped), read a file
// over 16 MiB as figures, or return a process twice.
#ifndef BRRR_COLLECTOR_CLI_JOB_FIGURES_H_
#define BRRR_COLLECTOR_CLI_JOB_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::cli {

// Per process other than `own_pid`, the readable file that covers more of its run (the larger
// wall: each write covers more), with its identity; in pid order.
std::vector<Report> LatestJobFigures(const std::string& dir, uint32_t own_pid);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_JOB_FIGURES_H_
