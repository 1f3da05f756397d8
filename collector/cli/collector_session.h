// One collection of one process's segment, the part `brrr run` and `brrr attach` share: the
// analysis and what feeds it (the process's memory maps, an optional full trace), the report's
// file, live snapshots and the /metrics endpoint, the overhead budget, and at the end the final
// drain and the report. The subcommands keep only what differs: how the process is started or
// found, watched and waited for, and where a job's reports go. The shape is init / after each
// drain / finish (as XRay's logging implementations have init, flush and finalize).
//
// Not thread-safe: AfterDrain, FinalDrain and FinishAndReport run on the thread that drains.
// Must never: print anything itself (every message goes through the caller's `warn`, which knows
// whose stderr it may use), or report before the final drain.
#ifndef BRRR_COLLECTOR_CLI_COLLECTOR_SESSION_H_
#define BRRR_COLLECTOR_CLI_COLLECTOR_SESSION_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/budget_steering.h"
#include "collector/cli/finish_report.h"
#include "collector/cli/live_snapshot.h"
#include "collector/cli/metrics_server.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/trace_recorder.h"
#include "collector/job/process_identity.h"
#include "collector/symbolize/maps_tracking_sink.h"
#include "collector/symbolize/process_maps.h"

namespace brrr::cli {

class CollectorSession {
 public:
  using Warn = std::function<void(const std::string&)>;
  struct Setup {
    ingest::SegmentReader* reader = nullptr;  // outlives the session
    pid_t pid = 0;                            // the process whose segment it is
    std::string step_range_name;              // the steps setting, resolved (steps_setting.h)
    std::optional<uint64_t> trace_cap;        // the trace setting, resolved (trace_setting.h)
    RunInfo known;                            // what is known of the run at its start
  };

  CollectorSession(const Setup& setup, Warn warn);
  CollectorSession(const CollectorSession&) = delete;
  CollectorSession& operator=(const CollectorSession&) = delete;

  // Where the reader drains into: the trace recorder when there is one, else the analysis (through
  // the memory-map tracking).
  EventSink& sink() { return trace_ ? static_cast<EventSink&>(*trace_) : maps_sink_; }
  Analysis& analysis() { return analysis_; }
  symbolize::ProcessMaps& maps() { return maps_; }
  const Trace* trace() const { return trace_ ? &trace_->trace() : nullptr; }

  // Claims the report's file now, so that a bad --output or an existing report is said at the
  // start: `output->destination` is set, or the report is only printed (said through warn).
  void ClaimReportFile(ReportOutput* output, const ProcessIdentity& who);
  // Live snapshots every `every` (0 = none) into `path`, each carrying `identity` (may be null;
  // must outlive the session), written to the claimed file when there is one.
  void StartSnapshots(std::chrono::milliseconds every, const std::string& path,
                      const ProcessIdentity* identity, const ReportOutput& output);
  // A /metrics endpoint at `addr` fed by the snapshots (StartSnapshots first) as rank `rank`;
  // false when it cannot listen, said through warn when `say_failure`; where it listens is said
  // through warn when the port was 0 (the system's pick).
  bool StartMetrics(const std::string& addr, int64_t rank, bool say_failure);
  LiveSnapshots& snapshots() { return *snapshots_; }  // after StartSnapshots

  // After each drain while the process runs: the overhead budget, and a snapshot when one is due.
  void AfterDrain(const RunInfo& known);
  // The final drain: everything the process published before it ended.
  void FinalDrain() { reader_->Drain(sink()); }
  // Finishes the analysis, writes the report (with the trace, if kept) and prints it.
  absl::Status FinishAndReport(const RunInfo& info, const ReportOutput& output,
                               const ProcessIdentity* identity);

 private:
  ingest::SegmentReader* reader_;
  pid_t pid_;
  Warn warn_;
  Analysis analysis_;
  symbolize::ProcessMaps maps_;
  symbolize::MapsTrackingSink maps_sink_;
  std::optional<ingest::TraceRecorder> trace_;
  std::optional<LiveSnapshots> snapshots_;
  MetricsServer metrics_;
  BudgetSteering budget_;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_COLLECTOR_SESSION_H_
