// Live snapshots: while the app runs, the collector rewrites its .brrr file atomically every
// `every` (--snapshot-every DURATION, BRRR_SNAPSHOT_EVERY; 0 = off) and whenever `brrr ctl PID
// snapshot` asks, with the report as if the run ended now (end "running"), so `brrr report FILE`
// works on a running job. The analysis is not finished: Analysis::Snapshot finishes a copy.
//
// Thread-safety: MaybeWrite runs on the thread that feeds the analysis (the drain thread).
// Must never: finish or change the analysis, or leave a half-written file (atomic rename).
#ifndef BRRR_COLLECTOR_CLI_LIVE_SNAPSHOT_H_
#define BRRR_COLLECTOR_CLI_LIVE_SNAPSHOT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "collector/analysis/analysis.h"
#include "collector/cli/counter_floors.h"
#include "collector/cli/metrics_server.h"
#include "collector/cli/report_path.h"
#include "collector/ingest/segment_reader.h"
#include "collector/symbolize/process_maps.h"
#include "collector/symbolize/symbolizer.h"
#include "shim/settings.h"

namespace brrr::cli {

inline constexpr std::chrono::seconds kDefaultSnapshotEvery{10};
inline constexpr const char* kSnapshotEveryVariable =
    settings::SpecOf(settings::Setting::kSnapshotEvery).name;

// "10s", "500ms", "2m", "1h", or a plain number of seconds; "0" or "off" = no periodic snapshot.
absl::StatusOr<std::chrono::milliseconds> ParseSnapshotEvery(const std::string& text);

// The period from the option (if given) or BRRR_SNAPSHOT_EVERY, else the default; a bad value
// is warned about through `warn` and the default used.
std::chrono::milliseconds ChooseSnapshotEvery(const std::optional<std::string>& option,
                                              const std::function<const char*(const char*)>& env,
                                              const std::function<void(const std::string&)>& warn);

class LiveSnapshots {
 public:
  // `identity`: the process's identity put into each snapshot (may be null).
  LiveSnapshots(std::chrono::milliseconds every, std::string path, const ProcessIdentity* identity)
      : every_(every), path_(std::move(path)), identity_(identity) {}

  // Writes a snapshot when one is due (every_ passed since the last) or was asked for (the
  // header's snapshot_requests changed). `known`: the run as the collector knows it now.
  void MaybeWrite(const ingest::SegmentReader& reader, const Analysis& analysis,
                  const symbolize::ProcessMaps& maps, const RunInfo& known);

  // Also publish the report's metrics (prometheus_text.h) to `server` every second.
  void SetMetrics(MetricsServer* server, int64_t rank, uint32_t pid) {
    metrics_ = server;
    rank_ = rank;
    pid_ = pid;
  }

  // Snapshots go through the collection's destination (report_path.h) instead of the path.
  void SetDestination(ReportDestination* destination) { destination_ = destination; }

  // A job (`brrr run` of several processes): the metrics also carry every other process's
  // latest figures, read from its collector's files in `dir`: "<pid>.live" (every second) or
  // "<pid>.brrr" (snapshots and the final report), whichever covers more of its run.
  void SetJobDirectory(std::string dir) { job_dir_ = std::move(dir); }

  // A process of such a job (BRRR_JOB_METRICS): every second, its figures (no stacks) go to
  // "<dir>/<pid>.live" (JSON, written whole and renamed into place, the owner's only), for the
  // job's endpoint. RemoveLiveFigures takes the file away when the final report is written.
  void SetLiveFigures(std::string dir, uint32_t pid) {
    live_dir_ = std::move(dir);
    live_pid_ = pid;
  }
  void RemoveLiveFigures() const;

  uint64_t written() const { return written_; }
  // Wall time of the last snapshot (copy + finish + write), for diagnostics and benchmarks.
  std::chrono::nanoseconds last_cost() const { return last_cost_; }

 private:
  std::chrono::milliseconds every_;
  std::string path_;
  ReportDestination* destination_ = nullptr;
  const ProcessIdentity* identity_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  uint32_t requests_seen_ = 0;
  uint64_t written_ = 0;
  std::chrono::nanoseconds last_cost_{0};
  MetricsServer* metrics_ = nullptr;
  CounterFloors counter_floors_;  // what /metrics has published: never less (counter_floors.h)
  int64_t rank_ = -1;
  uint32_t pid_ = 0;
  std::chrono::steady_clock::time_point last_metrics_{};
  // Kept across snapshots (its modules' symbols are read once; the maps may keep growing).
  std::unique_ptr<symbolize::Symbolizer> symbolizer_;
  std::string job_dir_;
  std::string live_dir_;
  uint32_t live_pid_ = 0;
  std::chrono::steady_clock::time_point last_live_{};

  void WriteLiveFigures(const Report& figures);

  // Publishes `own` (this process) and, in a job, the other processes' latest snapshots.
  // `own_used_cuda`: the shim started in the watched process (else, in a job, it is left out).
  void PublishMetrics(const Report& own, bool own_used_cuda);
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_LIVE_SNAPSHOT_H_
