// The analysis: turns decoded events (any order across sources) into a Report, in memory that
// grows with distinct APIs, kernels and stall sites, not with the run's length. It wires the
// pieces, each in its own file: CallJoiner (host call <-> CUPTI record <-> device work, counting
// each call once), ApiStats, KernelStats, StallStats + PollDetector (host stalls and hidden
// synchronizations), DeviceTimeBreakdown (busy / launch-bound / sync-drain / outside-CUDA per
// device), CoverageStats (which mechanism saw each call, calls without stacks, what could have
// escaped), PhaseStats (NVTX ranges as phases) and DecideVerdict.
//
// Not thread-safe: one thread feeds it (the collector's drain loop). Must never: do I/O, trust an
// event's values (garbage in gives a wrong number, never a crash), or allocate per event in the
// steady state.
#ifndef BRRR_COLLECTOR_ANALYSIS_ANALYSIS_H_
#define BRRR_COLLECTOR_ANALYSIS_ANALYSIS_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/api_stats.h"
#include "collector/analysis/breakdown_timeline.h"
#include "collector/analysis/call_joiner.h"
#include "collector/analysis/collective_log.h"
#include "collector/analysis/coverage_stats.h"
#include "collector/analysis/device_regime.h"
#include "collector/analysis/device_time_breakdown.h"
#include "collector/analysis/kernel_counters.h"
#include "collector/analysis/kernel_stats.h"
#include "collector/analysis/launch_site_stats.h"
#include "collector/analysis/log_histogram.h"
#include "collector/analysis/part_fanout.h"
#include "collector/analysis/pending_copy_stalls.h"
#include "collector/analysis/phase_stats.h"
#include "collector/analysis/poll_detector.h"
#include "collector/analysis/stall_stats.h"
#include "collector/analysis/step_ledger.h"
#include "collector/analysis/traced_windows.h"
#include "collector/analysis/verdict.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

struct AnalysisOptions {
  // Host outside CUDA longer than this = not "between launches".
  int64_t host_gap_ns = 100'000;
  // A call that took at least this long on the host blocked (if its kind can wait for the device).
  int64_t stall_threshold_ns = 20'000;
  // How late (event time) a record may arrive and still count fully in the breakdown.
  int64_t reorder_window_ns = 3'000'000'000;
  // How long host calls and correlations wait for their CUPTI counterparts.
  int64_t join_window_ns = 30'000'000'000;
  // An API record with no host call is a CUPTI-only call once this much newer event time passed.
  int64_t join_decide_lag_ns = 1'000'000'000;
  // How far a CUPTI API record may stick out of the host call that contains it.
  int64_t join_slack_ns = 1'000;
  size_t max_pending = size_t{1} << 20;  // cap of every pending queue and map
  size_t max_kernel_names = 10'000;
  size_t max_stall_sites = 100'000;
  size_t top_kernels = 20;
  size_t top_stalls = 20;
  size_t top_launch_sites = 10;
  size_t max_launch_sites = 100'000;  // distinct stacks of sampled launches kept
  size_t top_without_stack = 20;
  size_t max_phases = 1000;  // distinct NVTX range paths with a row
  size_t top_phases = 50;
  // The NVTX ranges that are steps (step_ledger.h): "" = ProfilerStep#N, else this name.
  std::string step_range_name;
  // Start-up (before the first CUDA work) and teardown (after the last) apart from the steady
  // state's busy and idle parts (device_time_breakdown.h).
  bool split_startup_teardown = true;
};

// What happened to the events, for diagnostics and tests.
struct AnalysisCounters {
  uint64_t host_calls = 0;
  uint64_t api_records = 0;
  uint64_t device_ops = 0;
  uint64_t sync_records = 0;
  uint64_t stacks = 0;
  uint64_t invalid_times = 0;  // events dropped: a time outside [0, 2^61] ns
  uint64_t untimed_device_ops = 0;  // device records CUPTI could not time (DeviceOp.untimed)
  CallJoiner::Counters join;
  uint64_t breakdown_late = 0;
  uint64_t kernels_folded = 0;
  uint64_t launch_configuration_records = 0;  // folded into their <<<>>> launch
  uint64_t nvtx_events = 0;
  PhaseStats::Counters phases;
  uint64_t timed_captures = 0;  // host calls whose stack capture the shim timed
  int64_t capture_ns = 0;       // their capture time: brrr's, after the calls returned
};

// The analysis' state that a copy (Snapshot) copies as it is: everything but what is wired to
// the Analysis object itself (listeners and callbacks; see Analysis::WireListeners). Analysis
// derives from it privately, so the members keep their names there.
struct AnalysisState {
  explicit AnalysisState(const AnalysisOptions& options);

  RunInfo run_info_;
  bool finished_ = false;
  bool seen_any_ = false;
  int64_t oldest_ = 0;
  int64_t newest_ = 0;
  ApiStats api_stats_;
  KernelStats kernel_stats_;
  CoverageStats coverage_;
  StallStats stall_stats_;
  // Every syncing call, stalled or not, by (API, reason, stack): the sites `brrr diff` gates on.
  StallStats sync_sites_;
  LaunchSiteStats launch_sites_;
  LogHistogram launch_latency_;
  CallJoiner joiner_;              // its listener is wired by Analysis
  BreakdownTimeline timeline_;     // receives the breakdown's pieces
  StepLedger steps_;               // likewise, once a step began (through Analysis' part fanout)
  TracedWindows traced_windows_;   // sampled device tracing
  DeviceTimeBreakdown breakdown_;  // its listeners are wired by Analysis
  PhaseStats phases_;
  int64_t next_copy_expiry_ = 0;
  absl::flat_hash_map<uint32_t, PollDetector> host_polls_;   // by tid
  absl::flat_hash_map<uint32_t, PollDetector> cupti_polls_;  // by CUPTI thread id
  size_t active_polls_ = 0;
  AnalysisCounters counters_;
  std::optional<CounterThroughput> counters_measured_;
  std::string counters_unavailable_;
  std::string counters_metrics_;  // the PM metric set sampled ("" when none or not said)
  // Per-kernel counters: only once the reader said counters were asked for.
  bool counters_requested_ = false;
  KernelCounters kernel_counters_;
  CollectiveLogBuilder collectives_;
  uint64_t samples_unaligned_ = 0;
  CounterClockBasis sample_clock_basis_ = CounterClockBasis::kUndecided;  // of the last aligned one
};

class Analysis : public EventSink, private AnalysisState {
 public:
  using Options = AnalysisOptions;
  using Symbolizer = std::function<std::vector<std::string>(uint32_t)>;

  using Counters = AnalysisCounters;

  explicit Analysis(Options options = {});
  ~Analysis() override;

  // May be called again as info improves (exit code, end time). Call it before the events when
  // the start time and host-only status are known: they steer the joins and the breakdown.
  void SetRunInfo(const RunInfo& info);
  // What hardware counters said (`brrr run --counters`): the throughput while busy, or why they
  // were not used. Call before Finish; without it the device regime says nothing of counters.
  void SetCounterOutcome(std::optional<CounterThroughput> measured, std::string unavailable,
                         std::string metrics = "") {
    counters_measured_ = measured;
    counters_unavailable_ = std::move(unavailable);
    counters_metrics_ = std::move(metrics);
  }

  void OnHostCall(const HostCall& call) override;
  void OnDeviceOp(const DeviceOp& op) override;
  void OnApiActivity(const ApiActivity& api) override;
  void OnSyncActivity(const SyncActivity& sync) override;
  void OnStack(const Stack& stack) override;
  void OnNvtx(const NvtxEvent& event) override;
  // Hardware counters: from now on kernels are held for the per-kernel join (kernel_counters.h).
  void OnCountersRequested() override { counters_requested_ = true; }
  void OnCounterSample(const CounterSampleEvent& sample) override;
  // Sampled device tracing: the spans traced (traced_windows.h).
  void OnTracingWindow(const TracingWindowEvent& window) override;

  // Resolves everything pending and builds the report. `symbolize`: stack id -> frames,
  // innermost first ("function (module)" / "function (file:line)"); may be empty.
  // Call once; later events are ignored.
  Report Finish(const Symbolizer& symbolize);
  // The CLOCK_MONOTONIC time the report's timeline starts at (its bucket 0); absent when it has
  // none. The caller, who can read the wall clock, turns it into Timeline.origin_unix_ns.
  std::optional<int64_t> timeline_origin_ns() const { return timeline_.origin_ns(); }

  // The report as if the run ended now, without finishing this analysis (a live snapshot): a
  // Finish of a deep copy, so events keep flowing into this one. Costs a copy of the retained
  // state (bounded by the options' caps) and a Finish; the copy is freed before returning.
  // `info`: the run as known now (end_ns = now); the report says end "running".
  // `timeline_origin_ns` (may be null): the copy's timeline_origin_ns() after its Finish, which
  // this analysis may not have yet (its first piece can be finalized by the copy's Finish).
  Report Snapshot(const RunInfo& info, const Symbolizer& symbolize,
                  std::optional<int64_t>* timeline_origin_ns = nullptr) const;

  Counters counters() const;
  // Items held in pending queues and maps (everything whose count could grow with run length).
  size_t RetainedItemsForTest() const;

  // Sampled device tracing as drained so far (its A/B is read during the run by the budget).
  const TracedWindows& traced_windows() const { return traced_windows_; }

 private:
  class JoinListener;
  // A deep copy wired to itself (listeners, callbacks); for Snapshot only.
  Analysis(const Analysis& other);
  // Finish's steps, in order. Decides what still waits (joins, copies, polls).
  void ResolvePending();
  // The breakdown, steps, timeline and phases, ended at `end`.
  void FinishTimeParts(Report* report, int64_t end);
  // Command, wall time, how the run ended, events recorded and dropped.
  void FinishRunFacts(Report* report, int64_t start, int64_t end) const;
  void FinishCoverage(Report* report) const;
  void FinishKernels(Report* report) const;
  // The hardware counters' join; true when they measured another device than this process's
  // work (then the verdict does not use them).
  bool FinishKernelCounters(Report* report) const;
  void FinishLaunchLatency(Report* report) const;
  // Stalls, launch sites, where their stacks ended, stall reasons, collectives; the top rows.
  void FinishStacks(Report* report, const Symbolizer& symbolize) const;
  VerdictInputs VerdictInputsFor(const Report& report, bool counters_elsewhere) const;
  // Sampled device tracing: the estimated breakdown, the scaled kernel table, device_sampling;
  // the estimate (nullopt when the whole run was traced). [run_start, run_end]: the run's span.
  std::optional<TracedWindows::Estimate> FinishDeviceSampling(Report* report, int64_t run_start,
                                                              int64_t run_end);
  // Sampled device tracing: the device figures of launch sites and phases, recorded in the
  // windows only, times the scale the kernel table got (report.kernels.estimated says so).
  static void ScaleSitesAndPhases(double scale, Report* report);
  // And the steps' mean device parts, as a device's (TracedWindows::ScaleBusyParts); marks them
  // scaled. Each step's own parts (the chart) stay as recorded.
  static void ScaleStepParts(double scale, StepsSummary* steps);
  // brrr's own cost on the run (Report.overhead), but the collector's CPU (the caller's).
  void FinishOverhead(Report* report,
                      const std::optional<TracedWindows::Estimate>& sampled) const;
  // Widens [oldest_, newest_] to include both times (every event: inline).
  void Observe(int64_t a, int64_t b) {
    const int64_t lo = std::min(a, b), hi = std::max(a, b);
    if (!seen_any_) {
      seen_any_ = true;
      oldest_ = lo;
      newest_ = hi;
      return;
    }
    if (lo < oldest_) oldest_ = lo;
    if (hi > newest_) newest_ = hi;
  }
  // `defer_stall_stats`: the call is a stall (for the breakdown) whose reason PendingCopyStalls
  // decides later.
  // `phase_tag`: the NVTX phases the call was made in (PhaseStats::TagFor; 0 = none).
  // A stall for the step it falls in (when the loop has steps).
  void NoteStepStall(CallKey key, StallReason reason, int64_t start_ns, int64_t duration_ns);
  // A syncing call (ClassifySyncingCall's reason; kNone: not one, nothing counted) for its site
  // and its step.
  void CountSyncingCall(CallKey key, StallReason reason, uint32_t stack_id, int64_t enter_ns,
                        int64_t duration_ns);
  void CountCall(CallKey key, bool is_query, int32_t result, uint32_t stack_id, int64_t enter,
                 int64_t exit, StallReason blocked_reason, PollDetector* poll,
                 bool defer_stall_stats = false, uint32_t phase_tag = 0);

  // Points the state's listeners (joiner, breakdown) at this object's; after construction and
  // after a copy of AnalysisState, whose listener pointers are the original's.
  void WireListeners();

  // Not in AnalysisState: bound to this object, so never copied from another.

  Options options_;
  std::unique_ptr<JoinListener> join_listener_;
  PartFanout part_fanout_{&timeline_, &steps_};
  PendingCopyStalls pending_copies_;  // its callback is bound to this object
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_ANALYSIS_H_
