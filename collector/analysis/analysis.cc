// Analysis: routes each event to the pieces that need it and assembles the report (see
// analysis.h). Per event: a few array/hash lookups and appends; no allocation in the steady state.
//
// Must never: count a call twice (host calls are counted on arrival, CUPTI records only when the
// joiner says no host call contains them).
#include "collector/analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "collector/analysis/api_catalog.h"
#include "collector/analysis/capture_summary.h"
#include "collector/analysis/cuda_plumbing.h"
#include "collector/analysis/latency_buckets.h"
#include "collector/analysis/overhead_budget.h"
#include "collector/analysis/python_summary.h"
#include "collector/analysis/stack_end.h"
#include "collector/analysis/stall_classifier.h"
#include "collector/analysis/verdict.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

// A sampled launch's site tag for the joiner (0 = not sampled): its stack id, with "no stack" (0)
// as the one tag a stack id never is.
constexpr uint32_t kNoStackSiteTag = UINT32_MAX;
uint32_t SiteTagOfStackId(uint32_t stack_id) {
  return stack_id == 0 || stack_id == kNoStackSiteTag ? kNoStackSiteTag : stack_id;
}
uint32_t StackIdOfSiteTag(uint32_t tag) { return tag == kNoStackSiteTag ? 0 : tag; }

}  // namespace

class Analysis::JoinListener : public CallJoiner::Listener {
 public:
  explicit JoinListener(Analysis* analysis) : analysis_(analysis) {}

  void OnCuptiOnlyCall(const ApiActivity& call, const CorrelationFlags& flags) override {
    Analysis& a = *analysis_;
    const CallKey key = a.api_stats_.KeyForCupti(call.driver, call.cbid);
    const int64_t end = std::max(call.end_ns, call.start_ns);
    const int64_t duration = end - call.start_ns;
    a.api_stats_.Add(key, duration);
    a.coverage_.AddCuptiOnlyCall(key);
    BlockingCallFacts facts;
    facts.api = ApiFromCbid(call.driver, call.cbid);
    if (facts.api == Api::kUnknown) facts.cupti_name = a.api_stats_.Name(key);
    facts.copy_kind = flags.d2h_copy ? CopyKind::kDtoH : CopyKind::kNone;
    facts.pageable_evidence = flags.pageable_copy;
    a.CountSyncingCall(key, ClassifySyncingCall(facts), StallStats::kCuptiRecordStack,
                       call.start_ns, duration);
    StallReason reason = StallReason::kNone;
    if (duration >= a.options_.stall_threshold_ns || flags.sync_record) {
      reason = ClassifyBlockingCall(facts);
    }
    const bool is_query = a.api_stats_.Category(key) == ApiCategory::kQuery;
    PollDetector* poll = nullptr;
    if (is_query || a.active_polls_ > 0) poll = &a.cupti_polls_[call.thread_id];
    a.CountCall(key, is_query, call.result, StallStats::kCuptiRecordStack, call.start_ns, end,
                reason, poll);
  }

  void OnLaunchLatency(int64_t latency_ns) override { analysis_->launch_latency_.Add(latency_ns); }

  void OnLaunchedKernel(int64_t launcher_enter_ns, int64_t device_ns, bool first,
                        int64_t start_ns) override {
    // Always (windows may be announced after the first kernels): a count and a lookup.
    analysis_->traced_windows_.AddTracedKernel(launcher_enter_ns, device_ns, first, start_ns);
  }

  void OnPhaseWork(uint32_t phase_tag, int64_t device_ns) override {
    analysis_->phases_.AddDeviceWork(phase_tag, device_ns);
  }

  void OnSiteKernel(uint32_t site_tag, uint32_t name_id, uint32_t device_id, int64_t device_ns,
                    uint32_t kernels) override {
    analysis_->launch_sites_.AddKernels(StackIdOfSiteTag(site_tag), name_id, device_id,
                                        device_ns, kernels);
  }

 private:
  Analysis* analysis_;
};

namespace {

// Times outside [0, 2^61] ns (73 years) are garbage from a broken clock or a corrupt record:
// such events are dropped (and counted) so that no sum or difference can overflow.
constexpr int64_t kMaxSaneTime = int64_t{1} << 61;
bool SaneTimes(int64_t a, int64_t b) {
  return a >= 0 && b >= 0 && a <= kMaxSaneTime && b <= kMaxSaneTime;
}

// A hooked free of NULL (a callback's record carries the callback id where the pointer would be):
// it frees nothing; programs call it to make CUDA initialize (stall_classifier.h).
// Each row's leading CUDA frames and why its stack ends early (stalls and sync sites alike).
void MarkStackEnds(std::vector<Stall>& rows) {
  for (Stall& s : rows) {
    s.plumbing_frames = LeadingCudaPlumbing(s.stack);
    if (!StallStats::SeenOnlyInCuptiRecords(s)) {
      s.ended_early = StackEndedEarly(s.stack, ring::kMaxStackDepth);
    }
  }
}

bool FreesNothing(const HostCall& call) {
  return call.source == CallSource::kHook && call.target == 0 &&
         (call.api == Api::kCudaFree || call.api == Api::kCudaFreeHost);
}

CallJoiner::Options JoinerOptions(const AnalysisOptions& o) {
  CallJoiner::Options j;
  j.slack_ns = o.join_slack_ns;
  j.decide_lag_ns = o.join_decide_lag_ns;
  j.window_ns = o.join_window_ns;
  j.max_pending = o.max_pending;
  return j;
}

StepLedger::Options StepOptions(const AnalysisOptions& o) {
  StepLedger::Options s;
  s.range_name = o.step_range_name;
  s.max_kept = kMaxStepsKept;
  return s;
}

PhaseStats::Options PhaseOptions(const AnalysisOptions& o) {
  PhaseStats::Options p;
  p.max_paths = o.max_phases;
  p.max_intervals = o.max_pending;
  return p;
}

DeviceTimeBreakdown::Options BreakdownOptions(const AnalysisOptions& o) {
  DeviceTimeBreakdown::Options b;
  b.host_gap_ns = o.host_gap_ns;
  b.window_ns = o.reorder_window_ns;
  b.max_pending = o.max_pending;
  b.split_startup_teardown = o.split_startup_teardown;
  return b;
}

}  // namespace

AnalysisState::AnalysisState(const AnalysisOptions& options)
    : kernel_stats_(options.max_kernel_names),
      stall_stats_(options.max_stall_sites),
      sync_sites_(options.max_stall_sites),
      launch_sites_(options.max_launch_sites),
      joiner_(JoinerOptions(options), nullptr),
      steps_(StepOptions(options)),
      breakdown_(BreakdownOptions(options)),
      phases_(PhaseOptions(options)) {}

Analysis::Analysis(Options options)
    : AnalysisState(options),
      options_(options),
      join_listener_(std::make_unique<JoinListener>(this)),
      pending_copies_(options.join_window_ns, options.max_pending,
                      [this](const PendingCopyStalls::Copy& copy, StallReason reason) {
                        if (reason == StallReason::kNone) return;
                        stall_stats_.Add(copy.key, reason, copy.stack_id, copy.duration_ns);
                        phases_.AddStall(copy.phase_tag, copy.duration_ns);
                        NoteStepStall(copy.key, reason, copy.seen_at - copy.duration_ns,
                                      copy.duration_ns);
                      }) {
  WireListeners();
}

Analysis::~Analysis() = default;

Analysis::Analysis(const Analysis& other) : Analysis(other.options_) {
  static_cast<AnalysisState&>(*this) = other;
  pending_copies_.CopyPendingFrom(other.pending_copies_);
  WireListeners();
}

void Analysis::WireListeners() {
  joiner_.SetListener(join_listener_.get());
  breakdown_.SetPartListener(steps_.active()
                                 ? static_cast<DeviceTimeBreakdown::PartListener*>(&part_fanout_)
                                 : &timeline_);
  // Never another object's phases: a copy (Snapshot) sends its idle pieces nowhere, as the
  // original does before its first NVTX range.
  breakdown_.SetIdleListener(nullptr);
}

Report Analysis::Snapshot(const RunInfo& info, const Symbolizer& symbolize,
                          std::optional<int64_t>* timeline_origin_ns) const {
  Analysis copy(*this);
  RunInfo now = info;
  now.running = true;
  copy.SetRunInfo(now);
  Report report = copy.Finish(symbolize);
  if (timeline_origin_ns != nullptr) *timeline_origin_ns = copy.timeline_origin_ns();
  return report;
}

void Analysis::SetRunInfo(const RunInfo& info) {
  run_info_ = info;
  phases_.SetMainThread(info.pid);
  if (info.start_ns > 0) breakdown_.SetOrigin(info.start_ns);
  joiner_.SetCuptiExpected(!info.host_only);
  if (info.device_sample_permille < 1000) traced_windows_.Enable();
  // Where CUPTI detaches between windows it waits after each (at most one window length:
  // shim/detach_grace.h): the calls then are priced apart. Each close record says when the detach
  // was; the window length is for shims that do not. (The window records carry it too: the run
  // info read at the collector's start comes before the shim wrote it.)
  if (info.device_window_ms > 0) {
    traced_windows_.SetAfterWindowNs(int64_t{info.device_window_ms} * 1'000'000);
  }
}

void Analysis::OnTracingWindow(const TracingWindowEvent& window) {
  if (finished_) return;
  if (!SaneTimes(window.start_ns, window.end_ns == 0 ? window.start_ns : window.end_ns)) {
    ++counters_.invalid_times;
    return;
  }
  if (window.window_ms > 0) traced_windows_.SetAfterWindowNs(int64_t{window.window_ms} * 1'000'000);
  traced_windows_.AddWindow(window);
}

void Analysis::NoteStepStall(CallKey key, StallReason reason, int64_t start_ns,
                             int64_t duration_ns) {
  if (!steps_.active()) return;
  steps_.AddStall(start_ns, duration_ns, [&] {
    return absl::StrCat(api_stats_.Name(key), " ", std::string(StallReasonName(reason)), " ",
                        FormatDuration(duration_ns));
  });
}

void Analysis::CountSyncingCall(CallKey key, StallReason reason, uint32_t stack_id,
                                int64_t enter_ns, int64_t duration_ns) {
  if (reason == StallReason::kNone) return;
  sync_sites_.Add(key, reason, stack_id, duration_ns);
  if (steps_.active()) steps_.AddSyncingCall(enter_ns);
}

void Analysis::CountCall(CallKey key, bool is_query, int32_t result, uint32_t stack_id,
                         int64_t enter, int64_t exit, StallReason blocked_reason,
                         PollDetector* poll, bool defer_stall_stats, uint32_t phase_tag) {
  const bool stall = blocked_reason != StallReason::kNone;
  if (stall && !defer_stall_stats) {
    stall_stats_.Add(key, blocked_reason, stack_id, exit - enter);
    if (phase_tag != 0) phases_.AddStall(phase_tag, exit - enter);
    NoteStepStall(key, blocked_reason, enter, exit - enter);
  }
  breakdown_.AddHostSpan(enter, exit, stall);
  if (poll == nullptr) return;
  const bool was_active = poll->active();
  std::optional<PollStall> done = poll->OnCall(key, is_query, result, stack_id, enter, exit);
  active_polls_ = active_polls_ + (poll->active() ? 1 : 0) - (was_active ? 1 : 0);
  if (done) {
    stall_stats_.Add(done->key, StallReason::kQueryPoll, done->stack_id,
                     done->end_ns - done->start_ns);
    NoteStepStall(done->key, StallReason::kQueryPoll, done->start_ns,
                  done->end_ns - done->start_ns);
    if (phase_tag != 0) phases_.AddStall(phase_tag, done->end_ns - done->start_ns);
    breakdown_.AddHostSpan(done->start_ns, done->end_ns, /*stall=*/true);
  }
}

void Analysis::OnHostCall(const HostCall& call) {
  if (finished_) return;
  if (!SaneTimes(call.enter_ns, call.exit_ns)) {
    ++counters_.invalid_times;
    return;
  }
  ++counters_.host_calls;
  const int64_t exit = std::max(call.exit_ns, call.enter_ns);
  const int64_t duration = exit - call.enter_ns;
  // A call from a CUPTI callback may name its function only by (driver, cbid): then it shares
  // the row of the same function seen only by CUPTI, and is classified by that name.
  const bool named_by_cbid = call.source == CallSource::kCuptiCallback && call.api == Api::kUnknown;
  const CallKey key = named_by_cbid ? api_stats_.KeyForCupti(call.driver, call.cbid)
                                    : ApiStats::KeyForApi(call.api);
  api_stats_.Add(key, duration);
  coverage_.AddHostCall(call.source, key, call.stack_id != 0);
  const ApiCategory category = api_stats_.Category(key);
  const bool launch = category == ApiCategory::kLaunch;
  LaunchTags tags;
  if ((call.flags & ring::kRecordLaunchSample) != 0 && launch) {
    launch_sites_.Add(call.stack_id);
    tags.site = SiteTagOfStackId(call.stack_id);
  }
  if (launch) {
    // The A/B of tracing's cost; always (the windows may be announced after the first calls).
    traced_windows_.AddLaunchCall(call.enter_ns, duration,
                                  call.source == CallSource::kCuptiCallback
                                      ? TracedWindows::SeenBy::kCallback
                                      : TracedWindows::SeenBy::kHook);
    if (steps_.active()) steps_.AddLaunch(call.enter_ns);
  }
  const uint32_t phase_tag = phases_.active() ? phases_.TagFor(call.tid, call.enter_ns) : 0;
  if (phase_tag != 0 && launch) {
    phases_.AddLaunch(phase_tag);
  }
  StallReason reason = StallReason::kNone;
  bool defer = false;
  BlockingCallFacts facts;
  if (!launch) {
    facts.api = call.api;
    if (named_by_cbid) {
      facts.api = ApiFromCbid(call.driver, call.cbid);
      if (facts.api == Api::kUnknown) facts.cupti_name = api_stats_.Name(key);
    }
    facts.copy_kind = call.copy_kind;
    facts.host_memory = call.host_memory;
    facts.frees_nothing = FreesNothing(call);
    CountSyncingCall(key, ClassifySyncingCall(facts), call.stack_id, call.enter_ns, duration);
  }
  if (duration >= options_.stall_threshold_ns && !launch) {
    reason = ClassifyBlockingCall(facts);
    // A callback call does not carry a copy's direction or host memory: its memcpy record does.
    if (named_by_cbid && reason != StallReason::kNone && call.correlation_id != 0 &&
        category == ApiCategory::kCopy) {
      defer = true;
      PendingCopyStalls::Copy copy;
      copy.key = key;
      copy.facts = facts;
      copy.facts.cupti_name = {};
      if (facts.api == Api::kUnknown) copy.cupti_name = api_stats_.Name(key);
      copy.stack_id = call.stack_id;
      copy.duration_ns = duration;
      copy.seen_at = exit;
      copy.phase_tag = phase_tag;
      pending_copies_.Hold(call.correlation_id, copy);
    }
  }
  if (pending_copies_.size() > 0 && exit >= next_copy_expiry_) {
    next_copy_expiry_ = exit + options_.join_window_ns / 8;
    pending_copies_.Expire(newest_);
  }
  const bool is_query = category == ApiCategory::kQuery;
  PollDetector* poll = nullptr;
  if (is_query || active_polls_ > 0) poll = &host_polls_[call.tid];
  if (reason == StallReason::kNone && poll == nullptr) {
    breakdown_.AddHostSpan(call.enter_ns, exit, /*stall=*/false);  // CountCall's whole work then
  } else {
    CountCall(key, is_query, call.result, call.stack_id, call.enter_ns, exit, reason, poll, defer,
              phase_tag);
  }
  if (call.capture_ns > 0) {
    // brrr's stack capture after the call, before the app went on: not the app's time outside
    // CUDA. The breakdown takes it as time near a CUDA call (it keeps the device as the call left
    // it: launch-bound, or draining after a stall), the overhead as the hooks' cost.
    ++counters_.timed_captures;
    counters_.capture_ns += call.capture_ns;
    breakdown_.AddHostSpan(exit, exit + call.capture_ns, /*stall=*/false);
  }
  // Every hooked call needs a context, and the runtime creates it in the first one (cudaFree(NULL)
  // or cudaMalloc, 200-460 ms on an H100): the breakdown ends start-up there if no device work
  // came before.
  if (call.source == CallSource::kHook) breakdown_.NoteInitializationCall(call.enter_ns, exit);
  tags.phase = phase_tag;
  joiner_.AddHostCall(call, tags);
  Observe(call.enter_ns, exit);
}

void Analysis::OnDeviceOp(const DeviceOp& op) {
  if (finished_) return;
  if (op.untimed) {
    // Its kernel or copy ran, but when and for how long is unknown: counted in no time, latency
    // or kernel row (a sampled run's scale takes its launch for an untraced one), and said in the
    // coverage.
    ++counters_.untimed_device_ops;
    return;
  }
  if (!SaneTimes(op.start_ns, op.end_ns)) {
    ++counters_.invalid_times;
    return;
  }
  ++counters_.device_ops;
  const int64_t end = std::max(op.end_ns, op.start_ns);
  breakdown_.AddDeviceOp(op.device_id, op.start_ns, end);
  if (op.kind == DeviceOpKind::kKernel) {
    kernel_stats_.Add(op.name, end - op.start_ns, op.name_id);
    collectives_.AddKernel(op.name, op.stream_id, op.start_ns, end, op.name_id);
    if (counters_requested_) kernel_counters_.AddKernel(op.name, op.start_ns, end, op.device_id);
  }
  if (op.kind == DeviceOpKind::kMemcpy) {
    pending_copies_.OnMemcpy(op);
    if (steps_.active()) steps_.AddCopy(op.start_ns, op.copy_kind, op.bytes);
  }
  joiner_.AddDeviceOp(op);
  Observe(op.start_ns, end);
}

void Analysis::OnCounterSample(const CounterSampleEvent& sample) {
  if (finished_) return;
  counters_requested_ = true;  // a sample says so even if the announcement was missed
  if (!sample.aligned || !SaneTimes(sample.start_ns, sample.end_ns)) {
    ++samples_unaligned_;
    return;
  }
  sample_clock_basis_ = sample.clock_basis;
  kernel_counters_.AddSample({sample.start_ns, sample.end_ns, sample.sm_pct, sample.dram_pct,
                              sample.active_pct, sample.device_id});
}

void Analysis::OnApiActivity(const ApiActivity& api) {
  if (finished_) return;
  if (!SaneTimes(api.start_ns, api.end_ns)) {
    ++counters_.invalid_times;
    return;
  }
  ++counters_.api_records;
  if (IsLaunchConfigurationCall(api.driver, api.cbid)) {
    // Part of a <<<>>> launch (see api_catalog.h): not a call of its own in the report.
    ++counters_.launch_configuration_records;
    breakdown_.ObserveTime(api.end_ns);
    return;
  }
  joiner_.AddApiActivity(api);
  breakdown_.ObserveTime(api.end_ns);
  Observe(api.start_ns, api.end_ns);
}

void Analysis::OnSyncActivity(const SyncActivity& sync) {
  if (finished_) return;
  if (!SaneTimes(sync.start_ns, sync.end_ns)) {
    ++counters_.invalid_times;
    return;
  }
  ++counters_.sync_records;
  joiner_.AddSyncActivity(sync);
  Observe(sync.start_ns, sync.end_ns);
}

void Analysis::OnNvtx(const NvtxEvent& event) {
  if (finished_) return;
  if (!SaneTimes(event.time_ns, event.time_ns)) {
    ++counters_.invalid_times;
    return;
  }
  ++counters_.nvtx_events;
  if (!phases_.active()) {
    // From the first range on, the breakdown's finalized idle time goes to the phases too.
    phases_.OnSwept(breakdown_.finalized_until());
    breakdown_.SetIdleListener(&phases_);
  }
  phases_.OnNvtx(event);
  const bool had_steps = steps_.active();
  steps_.OnNvtx(event);
  // From the first step on, the breakdown's pieces go to the steps too.
  if (!had_steps && steps_.active()) breakdown_.SetPartListener(&part_fanout_);
  Observe(event.time_ns, event.time_ns);  // a run killed inside a range still ends after it
}

void Analysis::OnStack(const Stack& /*stack*/) {
  // Stacks are symbolized by the collector's symbolizer, which the report callback reaches.
  ++counters_.stacks;
}

Report Analysis::Finish(const Symbolizer& symbolize) {
  Report report;
  if (finished_) return report;
  ResolvePending();
  const int64_t start = run_info_.start_ns > 0 ? run_info_.start_ns : (seen_any_ ? oldest_ : 0);
  const int64_t end = run_info_.end_ns > 0 ? run_info_.end_ns : (seen_any_ ? newest_ : start);
  FinishTimeParts(&report, end);
  finished_ = true;
  FinishRunFacts(&report, start, end);
  FinishCoverage(&report);
  FinishKernels(&report);
  const bool counters_elsewhere = FinishKernelCounters(&report);
  const std::optional<TracedWindows::Estimate> sampled = FinishDeviceSampling(&report, start, end);
  FinishOverhead(&report, sampled);
  FinishLaunchLatency(&report);
  FinishStacks(&report, symbolize);
  if (sampled.has_value() && sampled->traced_launches > 0) {
    ScaleSitesAndPhases(sampled->scale, &report);
  }
  report.verdict = DecideVerdict(VerdictInputsFor(report, counters_elsewhere));
  return report;
}

void Analysis::ScaleSitesAndPhases(double scale, Report* report) {
  auto scaled = [scale](auto v) { return static_cast<decltype(v)>(std::llround(v * scale)); };
  for (LaunchSite& site : report->launch_sites) {
    for (LaunchKernel& k : site.kernels) {
      k.kernels = scaled(k.kernels);
      k.device_ns = scaled(k.device_ns);
    }
  }
  for (Phase& p : report->phases) p.device_ns = scaled(p.device_ns);
  if (report->steps.has_value()) ScaleStepParts(scale, &*report->steps);
}

void Analysis::ScaleStepParts(double scale, StepsSummary* steps) {
  // The means per step, as a device's parts (ScaleBusyParts): the run's share of busy time.
  StepsSummary::PerStep& mean = steps->per_step;
  int64_t busy = std::llround(mean.busy_ns);
  IdleBreakdown idle{std::llround(mean.launch_bound_ns), std::llround(mean.sync_drain_ns),
                     std::llround(mean.host_outside_cuda_ns)};
  TracedWindows::ScaleBusyParts(scale, &busy, &idle);
  mean.busy_ns = static_cast<double>(busy);
  mean.launch_bound_ns = static_cast<double>(idle.launch_bound_ns);
  mean.sync_drain_ns = static_cast<double>(idle.sync_drain_ns);
  mean.host_outside_cuda_ns = static_cast<double>(idle.host_outside_cuda_ns);
  // Each step's own parts (the step chart) stay as recorded: a step inside a window has its
  // device time, one outside none, and scaling either would be wrong for it.
  steps->device_parts_scaled = true;
}

void Analysis::ResolvePending() {
  joiner_.Finish();
  pending_copies_.Finish();
  for (auto* polls : {&host_polls_, &cupti_polls_}) {
    for (auto& [thread, poll] : *polls) {
      if (std::optional<PollStall> done = poll.Flush()) {
        stall_stats_.Add(done->key, StallReason::kQueryPoll, done->stack_id,
                         done->end_ns - done->start_ns);
        breakdown_.AddHostSpan(done->start_ns, done->end_ns, /*stall=*/true);
      }
    }
  }
  active_polls_ = 0;
}

void Analysis::FinishTimeParts(Report* out, int64_t end) {
  Report& report = *out;
  if (traced_windows_.enabled()) {
    // A window still open (a killed app, a snapshot) ends with the run.
    if (run_info_.device_window_open_ns > 0) {
      traced_windows_.AddWindow({static_cast<int64_t>(run_info_.device_window_open_ns), 0});
    }
    traced_windows_.CloseOpenWindow(end);
  }
  report.devices = breakdown_.Finish(end);
  breakdown_.SetPartListener(nullptr);
  report.steps = steps_.Finish();
  // Under sampled device tracing the breakdown is an estimate for the run as a whole: its time
  // series would show the windows, not the run. No timeline then.
  if (!traced_windows_.enabled()) report.timeline = timeline_.Finish(report.devices);
  report.phases = phases_.Finish(end, options_.top_phases);
  report.phases_over_cap = phases_.over_cap();
  breakdown_.SetIdleListener(nullptr);
}

void Analysis::FinishRunFacts(Report* out, int64_t start, int64_t end) const {
  Report& report = *out;
  report.command = run_info_.command;
  report.wall_ns =
      report.devices.empty() ? std::max<int64_t>(end - start, 0) : report.devices.front().wall_ns;
  report.exit_code = run_info_.exit_code;
  report.exit_code_known = !run_info_.vanished && !run_info_.running && !run_info_.execed;
  report.end = run_info_.running                ? "running"
               : run_info_.execed               ? "exec"
               : run_info_.term_signal != 0     ? absl::StrCat("killed by signal ",
                                                               run_info_.term_signal)
               : run_info_.vanished             ? "killed"
                                                : "exited";
  report.host_only = run_info_.host_only;
  report.host_only_reason = run_info_.host_only_reason;
  report.events.recorded = run_info_.host_records + run_info_.device_records;
  if (report.events.recorded == 0) {
    report.events.recorded = counters_.host_calls + counters_.api_records + counters_.device_ops +
                             counters_.sync_records;
  }
  report.events.dropped = run_info_.host_dropped + run_info_.device_dropped;
  report.events.host = {run_info_.host_records, run_info_.host_dropped};
  report.events.device = {run_info_.device_records, run_info_.device_dropped};
}

void Analysis::FinishCoverage(Report* report) const {
  CoverageFacts coverage_facts;
  coverage_facts.host_only = run_info_.host_only;
  coverage_facts.host_only_reason = run_info_.host_only_reason;
  coverage_facts.host_dropped = run_info_.host_dropped;
  coverage_facts.host_dropped_no_ring = std::min(run_info_.host_dropped_no_ring, run_info_.host_dropped);
  coverage_facts.max_threads = run_info_.max_threads;
  coverage_facts.execs = run_info_.execs;
  coverage_facts.device_dropped = run_info_.device_dropped;
  coverage_facts.api_records = counters_.api_records;
  coverage_facts.device_ops = counters_.device_ops;
  coverage_facts.join_dropped = joiner_.counters().dropped_over_cap;
  coverage_facts.join_late = joiner_.counters().api_records_late;
  coverage_facts.invalid_times = counters_.invalid_times;
  coverage_facts.untimed_device_ops = counters_.untimed_device_ops;
  coverage_facts.term_signal = run_info_.term_signal;
  coverage_facts.vanished = run_info_.vanished;
  coverage_facts.execed = run_info_.execed;
  coverage_facts.cupti_detaches = run_info_.cupti_detaches;
  coverage_facts.no_window = traced_windows_.enabled() && traced_windows_.no_window();
  report->coverage = coverage_.Finish(api_stats_, coverage_facts, options_.top_without_stack);
}

void Analysis::FinishKernels(Report* out) const {
  Report& report = *out;
  report.api = api_stats_.Report();
  report.kernels.launches = kernel_stats_.launches();
  report.kernels.launch_calls = api_stats_.MergedCategory(ApiCategory::kLaunch).count();
  report.kernels.device_ns = kernel_stats_.device_ns();
  report.kernels.top = kernel_stats_.Top(options_.top_kernels);
  report.kernels.classes = kernel_stats_.Classes();
}

bool Analysis::FinishKernelCounters(Report* out) const {
  Report& report = *out;
  const KernelCounters::Totals& joined = kernel_counters_.totals();
  const bool counters_asked =
      counters_requested_ || counters_measured_.has_value() || !counters_unavailable_.empty();
  bool counters_elsewhere = false;
  if (joined.samples > 0 || samples_unaligned_ > 0 || counters_asked) {
    // Only samples on the kernels' clock say anything about a kernel (coverage 0 included).
    if (joined.samples > 0) AttachKernelCounters(kernel_counters_, &report.kernels.top);
    KernelCounterJoin& j = report.kernels.counters.emplace();
    j.clock = joined.samples > 0        ? CounterClockBasisText(sample_clock_basis_)
              : samples_unaligned_ > 0 ? "no clock brrr knows puts the samples inside the run: "
                                         "not joined"
                                       : "no PM sample reached the collector: not joined";
    j.samples = joined.samples;
    j.samples_unaligned = samples_unaligned_ + joined.samples_skipped;
    j.samples_late = joined.samples_late;
    j.kernels_late = joined.kernels_late;
    j.unavailable = counters_unavailable_;
    j.metrics = counters_metrics_;
    if (counters_measured_.has_value()) {
      j.busy_sm_pct = counters_measured_->sm_pct;
      j.busy_dram_pct = counters_measured_->dram_pct;
      j.busy_samples = counters_measured_->samples;
    }
    const KernelCounters::OtherDeviceKernels other = kernel_counters_.OtherDevices();
    j.device = kernel_counters_.sampled_device();
    j.other_device_kernels = other.kernels;
    j.other_device_ns = other.device_ns;
    // The run-wide figures describe the sampled device: they do not judge this process's work
    // when most of its kernel time ran elsewhere (a job's rank 3 on device 3).
    if (j.unavailable.empty() && other.device_ns > 0 &&
        other.device_ns * 2 > kernel_stats_.device_ns()) {
      counters_elsewhere = true;
      j.unavailable = absl::StrFormat(
          "they measure device %u, and %.0f%% of this process's kernel time ran on other devices",
          j.device,
          100.0 * static_cast<double>(other.device_ns) /
              static_cast<double>(std::max<int64_t>(kernel_stats_.device_ns(), 1)));
    }
  }
  return counters_elsewhere;
}

void Analysis::FinishLaunchLatency(Report* out) const {
  Report& report = *out;
  report.launch_latency_ns.count = launch_latency_.count();
  report.launch_latency_ns.p50 = launch_latency_.Percentile(50);
  report.launch_latency_ns.p90 = launch_latency_.Percentile(90);
  report.launch_latency_ns.p99 = launch_latency_.Percentile(99);
  report.launch_latency_ns.max = launch_latency_.max();
  report.launch_latency_ns.histogram = PowerOfTwoBuckets(launch_latency_);
}

void Analysis::FinishStacks(Report* out, const Symbolizer& symbolize) const {
  Report& report = *out;
  // Every row, for the run-wide count of stacks that ended early; the report keeps the top ones.
  report.stalls = stall_stats_.Top(SIZE_MAX, api_stats_, symbolize);
  report.python = SummarizePython(run_info_);
  report.capture = SummarizeCapture(run_info_);
  report.launch_sample_period = run_info_.launch_sample_period;
  report.launch_sites =
      launch_sites_.Top(SIZE_MAX, run_info_.launch_sample_period, symbolize,
                        [this](uint32_t name_id) { return kernel_stats_.NameOf(name_id); });
  StackEndTally stack_ends(ring::kMaxStackDepth);
  for (const Stall& s : report.stalls) {
    if (StallStats::SeenOnlyInCuptiRecords(s)) {
      stack_ends.AddCuptiRecordOnly(s.calls);
    } else {
      stack_ends.Add(s.stack, s.calls);
    }
  }
  for (const LaunchSite& s : report.launch_sites) {
    stack_ends.Add(s.stack, s.launches / std::max<uint32_t>(run_info_.launch_sample_period, 1));
  }
  report.stack_ends = stack_ends.Summary();
  report.collectives = collectives_.Build();
  {
    std::map<std::string, StallReasonTotal> by_reason;  // every row, before the top is cut
    for (const Stall& s : report.stalls) {
      StallReasonTotal& t = by_reason[s.reason];
      t.reason = s.reason;
      t.calls += s.calls;
      t.total_ns += s.total_ns;
    }
    for (auto& [reason, t] : by_reason) report.stall_reasons.push_back(std::move(t));
  }
  if (report.stalls.size() > options_.top_stalls) report.stalls.resize(options_.top_stalls);
  {
    SyncCalls& syncs = report.sync_calls.emplace();
    syncs.calls = sync_sites_.calls();
    syncs.rows = sync_sites_.Top(SIZE_MAX, api_stats_, symbolize);
    syncs.sites = syncs.rows.size();  // after merging sites whose frames symbolize alike
    std::stable_sort(syncs.rows.begin(), syncs.rows.end(),
                     [](const Stall& x, const Stall& y) { return x.calls > y.calls; });
    if (syncs.rows.size() > kMaxSyncSitesKept) syncs.rows.resize(kMaxSyncSitesKept);
    MarkStackEnds(syncs.rows);
  }
  if (report.launch_sites.size() > options_.top_launch_sites) {
    report.launch_sites.resize(options_.top_launch_sites);
  }
  MarkStackEnds(report.stalls);
  for (LaunchSite& s : report.launch_sites) {
    s.plumbing_frames = LeadingCudaPlumbing(s.stack);
    s.ended_early = StackEndedEarly(s.stack, ring::kMaxStackDepth);
  }
}

VerdictInputs Analysis::VerdictInputsFor(const Report& report, bool counters_elsewhere) const {
  VerdictInputs in;
  in.devices = report.devices;
  if (report.steps.has_value() && !report.steps->device_parts_scaled) {
    // The run's own spread (verdict.h): each kept step's parts, as the step chart has them.
    const StepsSummary::PartSamples& p = report.steps->part_samples;
    for (size_t i = 0; i < p.busy_ns.size() && i < p.launch_bound_ns.size() &&
                       i < p.sync_drain_ns.size() && i < p.host_outside_cuda_ns.size();
         ++i) {
      in.step_parts.push_back(
          {p.busy_ns[i], p.launch_bound_ns[i], p.sync_drain_ns[i], p.host_outside_cuda_ns[i]});
    }
  }
  in.host_split = breakdown_.host_split();
  in.have_device_records = counters_.device_ops > 0;
  in.kernel_launches = kernel_stats_.launches();
  in.median_kernel_ns = kernel_stats_.durations().Percentile(50);
  in.median_launch_call_ns = api_stats_.MergedCategory(ApiCategory::kLaunch).Percentile(50);
  if (!report.kernels.top.empty()) {
    in.top_kernel = report.kernels.top.front().name;
    in.top_kernel_ns = report.kernels.top.front().device_ns;
  }
  if (!report.stalls.empty()) {
    const Stall& top = report.stalls.front();
    in.top_stall = absl::StrCat(top.api, " (", top.reason, ")");
    in.top_stall_calls = top.calls;
    in.top_stall_ns = top.total_ns;
    in.top_stall_row = top;
  }
  in.kernel_classes = report.kernels.classes;
  in.top_kernels = report.kernels.top;
  if (!report.launch_sites.empty()) in.top_launch_site = report.launch_sites.front();
  // Counters that measured another device than this process's work are not used (above).
  if (counters_elsewhere) {
    in.counters_unavailable = report.kernels.counters->unavailable;
  } else {
    in.counters = counters_measured_;
    in.counters_unavailable = counters_unavailable_;
  }
  in.cuda_calls = report.coverage->hooked_calls + report.coverage->callback_calls +
                  report.coverage->cupti_only_calls;  // (coverage is always set above)
  in.python = run_info_.python_status != 0;
  return in;
}

std::optional<TracedWindows::Estimate> Analysis::FinishDeviceSampling(Report* report,
                                                                     int64_t run_start,
                                                                     int64_t run_end) {
  if (!traced_windows_.enabled()) return std::nullopt;
  int64_t steady = 0;
  for (const DeviceBreakdown& d : report->devices) {
    steady += d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
              d.idle.host_outside_cuda_ns;
  }
  const uint64_t launch_calls = report->kernels.launch_calls;
  const TracedWindows::Estimate e =
      traced_windows_.Finish(launch_calls, steady, run_info_.cupti_detaches > 0);
  DeviceSampling& s = report->device_sampling.emplace();
  s.fraction = run_info_.device_sample_permille / 1000.0;
  s.windows = std::max<uint64_t>(e.windows, run_info_.device_windows);
  s.traced_ns = e.traced_ns;
  s.traced_launches = e.traced_launches;
  // The schedule's span: from its start (the shim's first CUDA call; a value outside the run is
  // damage, and the run's start stands in) to the run's end.
  const int64_t schedule_start = static_cast<int64_t>(run_info_.device_sampling_start_ns);
  s.span_ns = std::max<int64_t>(
      run_end - (schedule_start >= run_start && schedule_start <= run_end ? schedule_start
                                                                           : run_start),
      0);
  if (run_info_.device_budget_permille > 0) {
    // Steered under a budget: the share the windows really covered, and the budget.
    s.budget_pct = run_info_.device_budget_permille / 10.0;
    if (s.span_ns > 0) {
      s.fraction = std::min(1.0, static_cast<double>(s.traced_ns) / static_cast<double>(s.span_ns));
    }
  }
  s.scale = e.scale;
  s.busy_error_points = e.busy_error_points;
  s.error_windows = e.error_windows;
  s.cupti_detaches = run_info_.cupti_detaches;
  s.calls_classified_early = e.calls_classified_early;
  if (e.traced_launches == 0) return e;  // nothing traced: the device figures stay as recorded
  TracedWindows::ScaleBusy(e.scale, &report->devices);
  const double k = e.scale;
  auto scaled = [k](auto v) { return static_cast<decltype(v)>(std::llround(v * k)); };
  report->kernels.estimated = true;
  report->kernels.launches = scaled(report->kernels.launches);
  report->kernels.device_ns = scaled(report->kernels.device_ns);
  for (KernelStat& row : report->kernels.top) {
    row.launches = scaled(row.launches);
    row.device_ns = scaled(row.device_ns);
  }
  for (KernelClassStat& c : report->kernels.classes) {
    c.launches = scaled(c.launches);
    c.device_ns = scaled(c.device_ns);
  }
  if (!report->devices.empty()) {
    const DeviceBreakdown& d = report->devices.front();
    const int64_t st = d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                       d.idle.host_outside_cuda_ns;
    s.device = d.id;
    if (st > 0) s.busy_pct = 100.0 * static_cast<double>(d.busy_ns) / static_cast<double>(st);
  }
  return e;
}

void Analysis::FinishOverhead(Report* report,
                              const std::optional<TracedWindows::Estimate>& sampled) const {
  Overhead& o = report->overhead.emplace();
  std::vector<std::string> basis;
  int64_t app_ns = 0;
  // What each window costs whatever its launches (turning kernel records on, detaching and
  // attaching CUPTI), on average; 0 = none measured.
  int64_t per_window_ns = 0;
  const uint64_t calls = run_info_.host_records > 0 ? run_info_.host_records : counters_.host_calls;
  const std::string captures =
      counters_.timed_captures == 0
          ? std::string("no stack capture was timed")
          : absl::StrCat("plus ", FormatDuration(counters_.capture_ns), " of stack captures (",
                         FormatCount(counters_.timed_captures),
                         " of stalls, sampled launches and CUPTI-callback calls), timed in the "
                         "run");
  if (run_info_.hook_record_ns > 0) {
    o.hooks_ns = static_cast<int64_t>(calls) * run_info_.hook_record_ns + counters_.capture_ns;
    app_ns += *o.hooks_ns;
    basis.push_back(absl::StrCat("hooks: ", FormatCount(calls), " calls recorded x ",
                                 run_info_.hook_record_ns,
                                 " ns, the record path as the shim timed it at start, ", captures));
  } else {
    basis.push_back(
        absl::StrCat("hooks: unknown (the shim measured no record cost; ", captures, ")"));
  }
  if (run_info_.host_only && counters_.device_ops == 0) {
    o.device_tracing_ns = 0;
    basis.push_back("device tracing: none (host-only run)");
  } else if (sampled.has_value() && sampled->tracing_ns_per_launch.has_value()) {
    // Detaching and attaching again cost apart from the calls the A/B compares (on an H100 the
    // A/B alone saw a fifth to a third of what sampled tracing with detaches cost a launch loop):
    // timed, added.
    // Each waits for the device's queued work, which kept the device busy: up to the least the
    // device was behind at a window's end, of each one, is hidden (traced_windows.h).
    const auto detach_ns = static_cast<int64_t>(run_info_.cupti_detach_ns);
    const auto attach_ns = static_cast<int64_t>(run_info_.cupti_attach_ns);
    const TracedWindows::Switches switches{run_info_.cupti_detaches, run_info_.cupti_detach_ns,
                                           run_info_.cupti_attach_ns};
    const uint64_t attaches =
        TracedWindows::Attaches(switches.detaches, sampled->windows_attached_before,
                                sampled->detaches_named, sampled->windows);
    const TracedWindows::SwitchCost switch_cost =
        TracedWindows::CostOfSwitches(switches, attaches, sampled->device_lag_min_ns);
    const int64_t switching_hidden = switch_cost.hidden;
    const int64_t switching = switch_cost.counted;
    const int64_t after = sampled->after_window_ns_per_launch.value_or(0) *
                          static_cast<int64_t>(sampled->launch_calls_after);
    const int64_t opening = sampled->window_opening_ns.value_or(0);
    // The host ahead of its device through every window (and the spans after them): what tracing
    // added to the calls there was hidden.
    const int64_t detach_mean = TracedWindows::MeanDetachNs(switches.detaches, switches.detach_ns);
    const TracedWindows::HiddenAb ab_hidden =
        TracedWindows::AbHiddenByQueue(sampled->device_lag_min_ns, detach_mean);
    const int64_t inside =
        *sampled->tracing_ns_per_launch * static_cast<int64_t>(sampled->launch_calls_in);
    const int64_t inside_hidden = ab_hidden.inside ? inside : 0;
    const int64_t after_hidden = ab_hidden.after ? after : 0;
    o.device_tracing_ns = inside - inside_hidden + after - after_hidden + opening + switching;
    if (sampled->windows > 0) {
      per_window_ns = (opening + switching) / static_cast<int64_t>(sampled->windows);
    }
    const int64_t hidden =
        sampled->window_opening_hidden_ns + switching_hidden + inside_hidden + after_hidden;
    if (hidden > 0) o.hidden_by_device_ns = hidden;
    app_ns += *o.device_tracing_ns;
    basis.push_back(absl::StrCat(
        "device tracing: a launch call took ", sampled->launch_mean_in_ns,
        " ns on average inside the traced windows and ", sampled->launch_mean_out_ns,
        " ns outside (", FormatCount(sampled->launch_calls_in), " and ",
        FormatCount(sampled->launch_calls_out), " calls; medians ", sampled->launch_p50_in_ns,
        " and ", sampled->launch_p50_out_ns,
        " ns: the means count the rare costly calls, e.g. CUPTI handing over a full buffer): +",
        *sampled->tracing_ns_per_launch, " ns x ",
        FormatCount(sampled->launch_calls_in),
        run_info_.cupti_detaches > 0
            ? " calls; CUPTI was detached between windows, so the calls outside paid nothing for it"
            : " calls; what CUPTI costs between windows (attached, kinds off: about 0.45 us a "
              "launch on an H100) is not seen by this (BRRR_CUPTI_DETACH=1 removes it)",
        inside_hidden == 0
            ? std::string()
            : absl::StrCat("; but the device was at least ",
                           FormatDuration(*sampled->device_lag_min_ns),
                           " behind its host at the end of every window, so the host stayed "
                           "ahead of it through each: those ",
                           FormatDuration(inside_hidden), " cost the app nothing (not counted)")));
    if (run_info_.cupti_detaches > 0 && sampled->windows_kept_attached > 0) {
      basis.push_back(absl::StrCat(
          "but after ", FormatCount(sampled->windows_kept_attached), " of the ",
          FormatCount(sampled->windows),
          " windows CUPTI stayed attached (the device ran behind its host, which waited for it "
          "anyway: a detach had waited for its queued work, or a whole window's wait still "
          "found work queued), and what it cost the calls outside then is not seen by this"));
    }
    if (run_info_.cupti_detaches > 0 && sampled->launch_calls_after > 0) {
      // The span's length: the mean of what the close records said (the shim's wait adapts), else
      // the window length.
      const std::string span =
          sampled->after_span_mean_ns > 0
              ? absl::StrCat(FormatDuration(sampled->after_span_mean_ns),
                             " (on average) after each window")
              : absl::StrCat(run_info_.device_window_ms, " ms after each window");
      basis.push_back(
          sampled->after_window_ns_per_launch.has_value()
              ? absl::StrCat(
                    "in the ", span, ", while CUPTI waited to detach, a launch call took ",
                    sampled->launch_mean_after_ns, " ns on average: +",
                    *sampled->after_window_ns_per_launch,
                    " ns x ", FormatCount(sampled->launch_calls_after), " calls",
                    after_hidden == 0
                        ? std::string()
                        : absl::StrCat("; but the detaches that ended those spans waited ",
                                       FormatDuration(detach_mean),
                                       " on average for the device's queued work, so the host was "
                                       "still ahead of it: those ",
                                       FormatDuration(after_hidden),
                                       " cost the app nothing (not counted)"))
              : absl::StrCat("the ", FormatCount(sampled->launch_calls_after), " calls in the ",
                             span, ", while CUPTI waited to detach, are too few to price (under ",
                             TracedWindows::kMinAbCalls, "): not counted"));
    }
    if (sampled->windows_with_first_call > 0 && sampled->window_opening_ns.has_value()) {
      const int64_t excess = *sampled->window_opening_ns + sampled->window_opening_hidden_ns +
                             sampled->window_opening_in_attach_ns;
      const std::string hidden =
          sampled->windows_opening_hidden == 0
              ? std::string()
              : absl::StrCat("; in ", FormatCount(sampled->windows_opening_hidden),
                             " of them the device was still busy with earlier work when the call "
                             "returned (its kernel started later), which hid ",
                             FormatDuration(sampled->window_opening_hidden_ns),
                             " of it from the app (not counted)");
      const std::string in_attach =
          sampled->window_opening_in_attach_ns == 0
              ? std::string()
              : absl::StrCat("; ", FormatDuration(sampled->window_opening_in_attach_ns),
                             " of it came before the windows' starts, waiting for CUPTI to attach "
                             "again (counted with the attaches below)");
      basis.push_back(absl::StrCat(
          "the first launch call in each window took ",
          FormatDuration(excess / static_cast<int64_t>(sampled->windows_with_first_call)),
          " more than the median inside (on average over ",
          FormatCount(sampled->windows_with_first_call),
          " windows; turning kernel records on costs the next launch: 5.6-5.9 ms on an H200)",
          hidden, in_attach, ": +", FormatDuration(*sampled->window_opening_ns)));
    }
    if (detach_ns + attach_ns > 0) {
      const std::string hidden =
          switching_hidden == 0
              ? std::string()
              : absl::StrCat(
                    "; but each waits for the device's queued work, and the device was at least ",
                    FormatDuration(*sampled->device_lag_min_ns),
                    " behind its host at the end of every one of ",
                    FormatCount(sampled->lag_windows),
                    " windows (their last launches' kernels started that late): up to that much "
                    "of each of the ",
                    FormatCount(run_info_.cupti_detaches), " detaches and ", FormatCount(attaches),
                    " attaches, ", FormatDuration(switching_hidden),
                    " in all, kept the device busy and is not counted");
      basis.push_back(absl::StrCat(
          "detaching CUPTI took ", FormatDuration(detach_ns),
          " on the app's threads and attaching it again ", FormatDuration(attach_ns),
          " on brrr's control thread, both timed and counted in device tracing (the attach in "
          "full: the app's CUDA calls can wait for it)",
          hidden, ": +", FormatDuration(switching)));
    }
  } else if (sampled.has_value()) {
    basis.push_back(absl::StrCat("device tracing: unknown (under ", TracedWindows::kMinAbCalls,
                                 " launch calls inside or outside the windows to compare)"));
  } else {
    basis.push_back("device tracing: unknown under full tracing (no untraced launch calls to "
                    "compare with; --sample-device measures it in the run)");
  }
  std::vector<std::string> unmeasured;
  if (!o.hooks_ns.has_value()) unmeasured.push_back("the hooks (the shim timed no record)");
  if (!o.device_tracing_ns.has_value()) {
    unmeasured.push_back(sampled.has_value()
                             ? "device tracing (too few launch calls inside or outside the "
                               "windows to compare)"
                             : "device tracing (full tracing has no untraced launch calls to "
                               "compare with: --sample-device or --overhead-budget measure it)");
  } else if (sampled.has_value() && run_info_.cupti_detaches == 0 && !run_info_.host_only) {
    unmeasured.push_back(
        "CUPTI attached between the windows (about 0.45 us a launch on an H100; "
        "BRRR_CUPTI_DETACH=1 removes it)");
  }
  o.unmeasured = absl::StrJoin(unmeasured, "; ");
  o.pct_of_wall = report->wall_ns > 0 ? 100.0 * static_cast<double>(app_ns) /
                                            static_cast<double>(report->wall_ns)
                                      : 0;
  if (run_info_.device_budget_permille > 0 && report->device_sampling.has_value()) {
    const double budget = run_info_.device_budget_permille / 10.0;
    std::string line = absl::StrFormat(
        "budget: %.3g%% of wall; the traced share was steered once a second from this cost as "
        "measured so far (%.3g%% traced on average, %.3g%% at the end)",
        budget, 100 * report->device_sampling->fraction, run_info_.device_sample_permille / 10.0);
    if (o.pct_of_wall > budget) {
      const bool hooks_over =
          o.hooks_ns.has_value() && report->wall_ns > 0 &&
          100.0 * static_cast<double>(*o.hooks_ns) / static_cast<double>(report->wall_ns) > budget;
      const double floor_share = OverheadBudget::Options{}.min_share;
      std::string why;
      if (hooks_over) {
        why =
            "the hooks alone cost more (fewer recorded calls would: --capture-range, "
            "BRRR_START=paused)";
      } else if (run_info_.device_sample_permille <= std::lround(floor_share * 1000) &&
                 per_window_ns > 0) {
        // At the floor, what is left is each window's own cost: only longer, fewer windows
        // spread it.
        why = absl::StrCat(
            "the traced share fell to its floor (", absl::StrFormat("%.3g", 100 * floor_share),
            "%) and each window still cost ", FormatDuration(per_window_ns),
            " whatever it traced (turning kernel records on",
            run_info_.cupti_detaches > 0 ? ", detaching and attaching CUPTI)" : ")",
            run_info_.device_window_ms > 0
                ? absl::StrCat(" against its ", run_info_.device_window_ms, " ms")
                : std::string(),
            ": longer windows (BRRR_SAMPLE_WINDOW_MS) spread that over more launches, or "
            "--no-cupti (host-only) costs no device tracing");
      } else {
        why = "the run was too short for the steering to settle";
      }
      absl::StrAppend(&line, "; not met: ", why);
    }
    basis.push_back(line);
  }
  o.basis = absl::StrJoin(basis, "; ");
}

Analysis::Counters Analysis::counters() const {
  Counters c = counters_;
  c.join = joiner_.counters();
  c.breakdown_late = breakdown_.late_items();
  c.kernels_folded = kernel_stats_.folded_launches();
  c.phases = phases_.counters();
  return c;
}

size_t Analysis::RetainedItemsForTest() const {
  return joiner_.RetainedItemsForTest() + breakdown_.RetainedItemsForTest() +
         pending_copies_.size() + phases_.RetainedItemsForTest() + kernel_counters_.held() +
         traced_windows_.held_calls();
}

}  // namespace brrr
