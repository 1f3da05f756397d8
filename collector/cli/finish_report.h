// The end of every collection (`brrr run` and `brrr attach`), after the final drain: finish the
// analysis with the symbolizer, write the .brrr file (with the event trace when one was recorded),
// and print "brrr: wrote FILE" and the report (text or JSON) on stderr, plus a warning when the
// shared memory was damaged.
//
// Must never: skip writing the file because printing failed, or print a report when quiet.
#ifndef BRRR_COLLECTOR_CLI_FINISH_REPORT_H_
#define BRRR_COLLECTOR_CLI_FINISH_REPORT_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/env_settings.h"
#include "collector/cli/report_path.h"
#include "collector/events.h"
#include "collector/symbolize/process_maps.h"
#include "collector/ingest/segment_reader.h"
#include "viewer/format/trace.h"

namespace brrr::cli {

struct ReportOutput {
  std::string output_pattern;  // before %p expansion
  // The file chosen for this collection (report_path.h), shared with its live snapshots; null =
  // the pattern expanded at the end (a job directory's file, or no file could be chosen).
  std::shared_ptr<ReportDestination> destination;
  bool json = false;
  bool quiet = false;
  bool counters_requested = false;  // --counters or BRRR_COUNTERS
};

// The file the report of `pid` goes to: the claimed one, else the pattern expanded.
std::string ReportFile(const ReportOutput& output, pid_t pid, int64_t rank = -1,
                       const std::string& host = "");

// The output settings of a collection: each option where given (`output_option` non-empty, the
// flags true), else its setting (BRRR_OUTPUT, BRRR_QUIET, BRRR_COUNTERS) read through `env`.
ReportOutput ChooseReportOutput(const EnvSettings& env, const std::string& output_option,
                                bool quiet_option, bool json, bool counters_option);

// The report of one collection: the analysis finished with the symbolizer (a warning printed when
// the shared memory was damaged), with `process` set when given.
// `counters_requested`: when the shim did not sample counters, say whether they could have been.
Report FinishReport(const ingest::SegmentReader& reader, Analysis& analysis,
                    const symbolize::ProcessMaps& maps, const RunInfo& info, bool counters_requested);

// Puts the report's timeline (if any) on the wall clock: origin_unix_ns = `origin_ns` (the
// CLOCK_MONOTONIC start of its bucket 0, Analysis::timeline_origin_ns) + CLOCK_REALTIME -
// CLOCK_MONOTONIC now. Nothing when either is absent. Every report the collector writes, final
// (FinishReport) or live snapshot (live_snapshot.h), goes through this, so a job merged from
// either gets per-process timelines (collector/job/job_timeline.h). Also puts the collective
// kernels (report.collectives) on the wall clock the same way.
void SetTimelineOrigin(std::optional<int64_t> origin_ns, Report& report);

// Writes `report` to `path` (with `trace` when not null) and prints "brrr: wrote PATH" and the
// report unless quiet. Returns the status of writing the file (already reported on stderr).
absl::Status WriteAndPrint(const Report& report, const std::string& path,
                           const ReportOutput& output, const Trace* trace = nullptr);

// Completes `info` with what the reader knows better (records, drops, header facts) without
// overriding what the caller set: a non-empty command, a nonzero pid/start, a known exit.
RunInfo MergeRunInfo(const RunInfo& from_reader, const RunInfo& from_caller);

// Finishes and reports. `trace` (may be null) is saved as the file's trace section. `identity`
// (may be null) is the process's rank and host: stored in the report and used for %r / %h.
// Returns the status of writing the file (already reported on stderr).
absl::Status FinishAndReport(const ingest::SegmentReader& reader, Analysis& analysis,
                             const symbolize::ProcessMaps& maps, const RunInfo& info, pid_t app_pid,
                             const ReportOutput& output, const Trace* trace = nullptr,
                             const ProcessIdentity* identity = nullptr);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_FINISH_REPORT_H_
