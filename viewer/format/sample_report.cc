// Test support: SampleReport() and Report equality.
//
// Must never: depend on the renderers it helps to test (equality is field by field).
#include "viewer/format/sample_report.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>

namespace brrr {

Report SampleReport() {
  Report r;
  r.command = "python3 train.py --name \"run 1\" C:\\data\ttab \xc3\xa9t\xc3\xa9 \xe2\x9c\x93";
  r.wall_ns = 12'345'678'901;
  r.exit_code = -3;
  r.end = "killed by signal 9";
  r.host_only = false;
  r.host_only_reason = "";
  r.events.recorded = std::numeric_limits<uint64_t>::max();
  r.events.dropped = 0;
  Coverage coverage;
  coverage.hooked_calls = 120'500;
  coverage.callback_calls = 100;
  coverage.cupti_only_calls = 3;
  coverage.calls_without_stack = 103;
  coverage.without_stack = {{"cudaStreamSynchronize", 100}, {"cuMemFree_v2", 3}};
  coverage.untimed_device_ops = 2;
  coverage.complete = false;
  coverage.gaps = {
      "7 device records dropped (device ring or CUPTI buffers full): kernels, "
      "copies or calls seen only by CUPTI may be missing"};
  r.coverage = coverage;
  r.api = {
      {"cudaLaunchKernel", "launch", 120'000, 3'000'000'000, 20'000, 90'000},
      {"cudaMemcpy", "copy", 500, 2'000'000'000, 3'000'000, 9'000'000},
      {"cudaStreamSynchronize", "sync", 100, 1'000'000'000, 9'000'000, 20'000'000},
      {"cudaFree", "free", 3, 4'500'000, 1'000'000, 3'000'000},
  };
  r.kernels.launches = 120'000;
  r.kernels.launch_calls = 120'400;
  r.kernels.device_ns = 4'000'000'000;
  r.kernels.top = {
      {"void gemm_kernel<float, 128>(float const*, float*, int)", 60'000, 3'000'000'000, 50'000,
       "matmul"},
      {"elementwise_add", 60'000, 1'000'000'000, 16'666, "pointwise"},
  };
  r.kernels.classes = {{"matmul", 60'000, 3'000'000'000}, {"pointwise", 60'000, 1'000'000'000}};
  r.launch_latency_ns = {120'000, 15'000, 40'000, 120'000, std::numeric_limits<int64_t>::max()};
  r.launch_latency_ns.histogram = {
      {4096, 20'000}, {8192, 50'000}, {16384, 30'000}, {65536, 19'999}, {int64_t{1} << 62, 1}};
  DeviceBreakdown d0;
  d0.id = 0;
  d0.wall_ns = 12'000'000'000;
  d0.busy_ns = 4'000'000'000;
  d0.idle = {6'000'000'000, 1'500'000'000, 500'000'000};
  DeviceBreakdown d1;
  d1.id = 1;
  d1.wall_ns = 1'000;
  d1.busy_ns = 0;
  d1.idle = {0, 0, 1'000};
  r.devices = {d0, d1};
  // Buckets of 4 s adding up to the devices' parts.
  r.timeline = Timeline{
      4'000'000'000,
      {{0,
        {{1'000'000'000, 2'500'000'000, 500'000'000, 0, 0, 0},
         {2'000'000'000, 1'500'000'000, 500'000'000, 0, 0, 0},
         {1'000'000'000, 2'000'000'000, 500'000'000, 500'000'000, 0, 0}}},
       {1, {{0, 0, 0, 1'000, 0, 0}}}}};
  r.stalls = {
      {"cudaMemcpy",
       "d2h_copy",
       500,
       2'000'000'000,
       {"loss_item (train.cc:42)", "train_step (train.cc:97)", "main (train)"}},
      {"cudaFree", "free_syncs_device", 3, 4'500'000, {}},
  };
  r.phases = {
      {"step", 1'000, 11'000'000'000, 120'000, 4'000'000'000, 2'000'000'000,
       {5'500'000'000, 1'500'000'000, 0}},
      {"step/megatron:fwd", 1'000, 3'000'000'000, 80'000, 2'500'000'000, 0,
       {400'000'000, 0, 0}},
      {"data:load", 7, 900'000'000, 0, 0, 0, {0, 0, 500'000'000}},
  };
  r.phases_over_cap = 12;
  PythonFrames python;
  python.status = "active";
  python.version = "3.12.1";
  python.frames_dropped = 3;
  python.note = "3 captures lost their Python frames (native frames kept)";
  python.torch_annotations = "active";
  python.torch_version = "2.11.0+cu130";
  r.python = python;
  r.capture = Capture{"nvtx", "train \"step\"", 3, 750'000'000, 1234};
  r.launch_sample_period = 64;
  r.launch_sites = {
      {{"cudaLaunchKernel (libcudart.so.13)", "Model.forward (model.py:88)",
        "train_step (train.py:31)"},
       76'800,
       1,
       "ends at train_step: no frame pointer or call-frame information led past it",
       {{"square(float*, int)", 0, 76'800, 1'228'800'000},
        {"(several kernels)", 1, 128, 9'600'000}}},
      {{}, 128},
  };
  r.stack_ends = StackEnds{14, 11, {{"no_unwind_info", 2, 1'201}, {"no_stack", 1, 2}}};
  r.steps.emplace();
  r.steps->source = "nvtx:ProfilerStep#N";
  r.steps->count = 12;
  r.steps->kept = 12;
  r.steps->wall_ns = {10'000'000, 12'000'000, 30'000'000, 30'500'000, 12'562'500.5};
  r.steps->per_step = {8e6, 1e5, 2e5, 3.5e6, 12, 1, 250'000, 4096, 4, 2};
  r.steps->outlier_rule = "wall above the median";
  r.steps->outliers_total = 1;
  r.steps->outliers = {
      {9, "ProfilerStep#9", 30'500'000, "host_outside_cuda_ns", "cudaMemcpy d2h_copy 1.00 ms"}};
  r.steps->wall_samples_ns = {10'000'000, 9'000'000, 30'500'000};
  r.steps->part_samples = {{8'000'000, 7'000'000, 8'000'000},
                           {100, 200, 300},
                           {1'000'000, 1'000'000, 1'000'000},
                           {999'900, 799'800, 21'499'700}};
  r.collectives = CollectiveLog{
      3, 1'700'000'000'000'000'000, {{13, {1'000, 5'000}, {2'000, 6'000}}, {14, {3'000}, {4'500}}}};
  r.stall_reasons = {{"d2h_copy", 520, 2'100'000'000}, {"stream_sync", 100, 1'000'000'000}};
  r.sync_calls = SyncCalls{
      1'200,
      3,
      {{"cudaMemcpy",
        "d2h_copy",
        1'000,
        2'100'000'000,
        {"loss_item (train.cc:42)", "train_step (train.cc:97)", "main (train)"}},
       {"cudaStreamSynchronize", "stream_sync", 200, 1'000'000'000, {"main (train)"}}}};
  r.verdict.regime = "launch-bound";
  r.verdict.runner_up = "input-bound";
  r.verdict.margin_pts = 2.5;
  r.verdict.close = true;
  r.verdict.close_note = "input-bound close behind: 50.0% vs 47.5% of the steady state";
  r.verdict.why =
      "The device was idle 50% of the wall time with nothing queued while the host launched "
      "120,000 kernels of 33 us mean.";
  r.verdict.advice = {
      "launch-bound: capture the loop in a CUDA graph (torch.compile(mode=\"reduce-overhead\")) "
      "and use fewer, larger ops: up to 6 s idle while launching, 10,000 launches/s",
      "host stalls: cudaMemcpy d2h_copy at loss_item (train.cc:42), 500 calls, 2 s blocked: keep "
      "the value on the device or read it every N steps"};
  return r;
}

DeviceSampling SampleDeviceSampling() {
  DeviceSampling s;
  s.fraction = 0.1;
  s.windows = 42;
  s.traced_ns = 2'100'000'000;
  s.span_ns = 20'000'000'000;
  s.traced_launches = 9'876;
  s.scale = 9.75;
  s.device = 1;
  s.busy_pct = 37.5;
  s.busy_error_points = 1.25;
  s.error_windows = 41;
  s.cupti_detaches = 37;
  s.calls_classified_early = 512;
  return s;
}

Overhead SampleOverhead() {
  Overhead o;
  o.pct_of_wall = 0.1;  // the hooks alone (the part known) of the sample's 12.3 s
  o.hooks_ns = 12'345'678;
  o.collector_cpu_ns = 250'000'000;  // device_tracing_ns unknown: absent
  o.unmeasured = "device tracing (full tracing)";
  o.basis = "hooks: 617,283 calls recorded x 20 ns; device tracing: unknown";
  return o;
}

namespace {

auto Tie(const ApiStat& a) {
  return std::tie(a.name, a.category, a.calls, a.total_ns, a.p50_ns, a.p99_ns);
}
auto Tie(const KernelStat& k) {
  return std::tie(k.name, k.launches, k.device_ns, k.mean_ns, k.kernel_class, k.achieved_sm_pct,
                  k.achieved_dram_pct, k.counter_coverage, k.counter_shared,
                  k.counter_lower_bound);
}
auto Tie(const KernelClassStat& c) { return std::tie(c.kernel_class, c.launches, c.device_ns); }
auto Tie(const DeviceBreakdown& d) {
  return std::tie(d.id, d.wall_ns, d.busy_ns, d.idle.launch_bound_ns, d.idle.sync_drain_ns,
                  d.idle.host_outside_cuda_ns, d.startup_ns, d.teardown_ns);
}
auto Tie(const LatencyBucket& b) { return std::tie(b.lo_ns, b.count); }
auto Tie(const TimelineBucket& b) {
  return std::tie(b.busy_ns, b.launch_bound_ns, b.sync_drain_ns, b.host_outside_cuda_ns,
                  b.startup_ns, b.teardown_ns);
}
auto Tie(const Stall& s) {
  return std::tie(s.api, s.reason, s.calls, s.total_ns, s.stack, s.plumbing_frames, s.ended_early);
}
auto Tie(const CallsWithoutStack& c) { return std::tie(c.api, c.calls); }
auto Tie(const LaunchKernel& k) { return std::tie(k.name, k.device, k.kernels, k.device_ns); }
auto Tie(const LaunchSite& s) {
  return std::tie(s.stack, s.launches, s.plumbing_frames, s.ended_early);
}
auto Tie(const StackEnds::Ended& e) { return std::tie(e.kind, e.stacks, e.calls); }
auto Tie(const StallReasonTotal& t) { return std::tie(t.reason, t.calls, t.total_ns); }
auto Tie(const Phase& p) {
  return std::tie(p.name, p.calls, p.wall_ns, p.launches, p.device_ns, p.stall_ns,
                  p.idle.launch_bound_ns, p.idle.sync_drain_ns, p.idle.host_outside_cuda_ns);
}

auto Tie(const CollectiveStream& s) { return std::tie(s.stream_id, s.start_ns, s.end_ns); }
auto Tie(const CollectiveWait& w) {
  return std::tie(w.rank, w.pid, w.wait_ns, w.last_arrivals, w.caused_wait_ns);
}

template <typename T>
bool SameList(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Tie(a[i]) != Tie(b[i])) return false;
  }
  return true;
}

bool SameLaunchSites(const std::vector<LaunchSite>& a, const std::vector<LaunchSite>& b) {
  if (!SameList(a, b)) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameList(a[i].kernels, b[i].kernels)) return false;
  }
  return true;
}

bool SameTimeline(const std::optional<Timeline>& a, const std::optional<Timeline>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  if (a->bucket_ns != b->bucket_ns || a->origin_unix_ns != b->origin_unix_ns ||
      a->devices.size() != b->devices.size()) {
    return false;
  }
  for (size_t i = 0; i < a->devices.size(); ++i) {
    if (a->devices[i].id != b->devices[i].id ||
        !SameList(a->devices[i].buckets, b->devices[i].buckets)) {
      return false;
    }
  }
  return true;
}

bool SameCapture(const std::optional<Capture>& a, const std::optional<Capture>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return std::tie(a->mode, a->nvtx_name, a->ranges, a->captured_ns, a->records_dropped) ==
         std::tie(b->mode, b->nvtx_name, b->ranges, b->captured_ns, b->records_dropped);
}

bool SamePython(const std::optional<PythonFrames>& a, const std::optional<PythonFrames>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return std::tie(a->status, a->version, a->frames_dropped, a->note, a->torch_annotations,
                  a->torch_version, a->torch_reason) ==
         std::tie(b->status, b->version, b->frames_dropped, b->note, b->torch_annotations,
                  b->torch_version, b->torch_reason);
}

bool SameStackEnds(const std::optional<StackEnds>& a, const std::optional<StackEnds>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return a->stacks == b->stacks && a->whole == b->whole &&
         SameList(a->ended_early, b->ended_early);
}

bool SameVerdict(const Verdict& a, const Verdict& b) {
  if (std::tie(a.regime, a.why, a.advice, a.runner_up, a.margin_pts, a.close, a.close_note) !=
      std::tie(b.regime, b.why, b.advice, b.runner_up, b.margin_pts, b.close, b.close_note)) {
    return false;
  }
  if (a.device_regime.has_value() != b.device_regime.has_value()) return false;
  if (!a.device_regime.has_value()) return true;
  return std::tie(a.device_regime->regime, a.device_regime->basis, a.device_regime->why) ==
         std::tie(b.device_regime->regime, b.device_regime->basis, b.device_regime->why);
}

bool SameCoverage(const std::optional<Coverage>& a, const std::optional<Coverage>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return std::tie(a->hooked_calls, a->callback_calls, a->cupti_only_calls, a->calls_without_stack,
                  a->untimed_device_ops, a->complete, a->gaps) ==
             std::tie(b->hooked_calls, b->callback_calls, b->cupti_only_calls,
                      b->calls_without_stack, b->untimed_device_ops, b->complete, b->gaps) &&
         SameList(a->without_stack, b->without_stack);
}

bool SameCounterJoin(const std::optional<KernelCounterJoin>& a,
                     const std::optional<KernelCounterJoin>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return std::tie(a->clock, a->samples, a->samples_unaligned, a->samples_late, a->kernels_late,
                  a->unavailable, a->metrics, a->busy_sm_pct, a->busy_dram_pct, a->busy_samples, a->device,
                  a->other_device_kernels, a->other_device_ns) ==
         std::tie(b->clock, b->samples, b->samples_unaligned, b->samples_late, b->kernels_late,
                  b->unavailable, b->metrics, b->busy_sm_pct, b->busy_dram_pct, b->busy_samples, b->device,
                  b->other_device_kernels, b->other_device_ns);
}

bool SameProcess(const std::optional<ProcessIdentity>& a,
                 const std::optional<ProcessIdentity>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return std::tie(a->pid, a->host, a->rank, a->local_rank, a->world_size, a->rank_from,
                  a->exit_seen, a->term_signal) == std::tie(b->pid, b->host, b->rank,
                                                            b->local_rank, b->world_size,
                                                            b->rank_from, b->exit_seen,
                                                            b->term_signal);
}

bool SameRows(const std::vector<ProcessRow>& a, const std::vector<ProcessRow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const ProcessRow& x = a[i];
    const ProcessRow& y = b[i];
    if (std::tie(x.pid, x.rank, x.host, x.command, x.exit_code, x.ended, x.wall_ns,
                 x.kernels.launches, x.kernels.device_ns, x.events_dropped, x.top_stall) !=
            std::tie(y.pid, y.rank, y.host, y.command, y.exit_code, y.ended, y.wall_ns,
                     y.kernels.launches, y.kernels.device_ns, y.events_dropped, y.top_stall) ||
        !SameList(x.devices, y.devices) || !SameTimeline(x.timeline, y.timeline) ||
        !SameVerdict(x.verdict, y.verdict)) {
      return false;
    }
  }
  return true;
}

bool SameCollectiveLog(const std::optional<CollectiveLog>& a,
                       const std::optional<CollectiveLog>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() ||
         (a->count == b->count && a->unix_minus_monotonic_ns == b->unix_minus_monotonic_ns &&
          SameList(a->streams, b->streams));
}

bool SameJobCollectives(const std::optional<JobCollectives>& a,
                        const std::optional<JobCollectives>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  if (std::tie(a->count, a->processes, a->alignment, a->unmatched) !=
          std::tie(b->count, b->processes, b->alignment, b->unmatched) ||
      !SameList(a->waits, b->waits) || a->last_arriver.has_value() != b->last_arriver.has_value()) {
    return false;
  }
  return !a->last_arriver.has_value() ||
         std::tie(a->last_arriver->rank, a->last_arriver->pid, a->last_arriver->share) ==
             std::tie(b->last_arriver->rank, b->last_arriver->pid, b->last_arriver->share);
}

bool SameSteps(const std::optional<StepsSummary>& a, const std::optional<StepsSummary>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  const auto& pa = a->per_step;
  const auto& pb = b->per_step;
  auto tie_outlier = [](const StepOutlier& o) {
    return std::tie(o.index, o.name, o.wall_ns, o.cause, o.top_stall);
  };
  if (a->outliers.size() != b->outliers.size()) return false;
  for (size_t i = 0; i < a->outliers.size(); ++i) {
    if (tie_outlier(a->outliers[i]) != tie_outlier(b->outliers[i])) return false;
  }
  return std::tie(a->source, a->count, a->kept, a->unfinished, a->wall_ns.p50, a->wall_ns.p90,
                  a->wall_ns.p99, a->wall_ns.max, a->wall_ns.mean, a->estimated, a->outlier_rule,
                  a->outliers_total, a->wall_samples_ns, a->part_samples.busy_ns,
                  a->part_samples.launch_bound_ns, a->part_samples.sync_drain_ns,
                  a->part_samples.host_outside_cuda_ns) ==
             std::tie(b->source, b->count, b->kept, b->unfinished, b->wall_ns.p50, b->wall_ns.p90,
                      b->wall_ns.p99, b->wall_ns.max, b->wall_ns.mean, b->estimated,
                      b->outlier_rule, b->outliers_total, b->wall_samples_ns,
                      b->part_samples.busy_ns, b->part_samples.launch_bound_ns,
                      b->part_samples.sync_drain_ns, b->part_samples.host_outside_cuda_ns) &&
         std::tie(pa.busy_ns, pa.launch_bound_ns, pa.sync_drain_ns, pa.host_outside_cuda_ns,
                  pa.launches, pa.stall_calls, pa.stall_ns, pa.h2d_bytes, pa.d2h_bytes,
                  pa.sync_calls) ==
             std::tie(pb.busy_ns, pb.launch_bound_ns, pb.sync_drain_ns, pb.host_outside_cuda_ns,
                      pb.launches, pb.stall_calls, pb.stall_ns, pb.h2d_bytes, pb.d2h_bytes,
                      pb.sync_calls);
}

bool SameSyncCalls(const std::optional<SyncCalls>& a, const std::optional<SyncCalls>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() ||
         (a->calls == b->calls && a->sites == b->sites && SameList(a->rows, b->rows));
}

bool SameJob(const std::optional<JobSummary>& a, const std::optional<JobSummary>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  if (!SameJobCollectives(a->collectives, b->collectives)) return false;
  if (std::tie(a->processes, a->ranks, a->timeline_rows_left_out, a->timeline_note) !=
      std::tie(b->processes, b->ranks, b->timeline_rows_left_out, b->timeline_note)) {
    return false;
  }
  if (a->straggler.has_value() != b->straggler.has_value()) return false;
  return !a->straggler.has_value() ||
         std::tie(a->straggler->rank, a->straggler->pid, a->straggler->why, a->straggler->basis) ==
             std::tie(b->straggler->rank, b->straggler->pid, b->straggler->why,
                      b->straggler->basis);
}

}  // namespace

bool operator==(const Report& a, const Report& b) {
  const auto& la = a.launch_latency_ns;
  const auto& lb = b.launch_latency_ns;
  return a.schema == b.schema && a.command == b.command && a.wall_ns == b.wall_ns &&
         a.exit_code == b.exit_code && a.exit_code_known == b.exit_code_known && a.end == b.end &&
         a.kernels.launch_calls == b.kernels.launch_calls && a.host_only == b.host_only &&
         a.host_only_reason == b.host_only_reason && a.events.recorded == b.events.recorded &&
         a.events.dropped == b.events.dropped && SameCoverage(a.coverage, b.coverage) &&
         SameList(a.api, b.api) && a.kernels.launches == b.kernels.launches &&
         a.kernels.device_ns == b.kernels.device_ns && SameList(a.kernels.top, b.kernels.top) &&
         SameList(a.kernels.classes, b.kernels.classes) &&
         SameCounterJoin(a.kernels.counters, b.kernels.counters) &&
         std::tie(la.count, la.p50, la.p90, la.p99, la.max) ==
             std::tie(lb.count, lb.p50, lb.p90, lb.p99, lb.max) &&
         SameList(la.histogram, lb.histogram) && SameTimeline(a.timeline, b.timeline) &&
         SameList(a.devices, b.devices) && SameList(a.stalls, b.stalls) &&
         SameList(a.stall_reasons, b.stall_reasons) && SameSyncCalls(a.sync_calls, b.sync_calls) &&
         SameList(a.phases, b.phases) &&
         a.phases_over_cap == b.phases_over_cap && SamePython(a.python, b.python) &&
         SameCapture(a.capture, b.capture) && a.launch_sample_period == b.launch_sample_period &&
         SameLaunchSites(a.launch_sites, b.launch_sites) && SameStackEnds(a.stack_ends, b.stack_ends) &&
         SameCollectiveLog(a.collectives, b.collectives) && SameSteps(a.steps, b.steps) &&
         SameVerdict(a.verdict, b.verdict) && SameProcess(a.process, b.process) &&
         SameRows(a.processes, b.processes) && SameJob(a.job, b.job);
}

void PrintTo(const Report& r, std::ostream* os) {
  *os << "Report{command=\"" << r.command << "\", wall_ns=" << r.wall_ns << ", api=" << r.api.size()
      << " rows, kernels.top=" << r.kernels.top.size() << ", devices=" << r.devices.size()
      << ", stalls=" << r.stalls.size() << ", verdict=\"" << r.verdict.regime << "\"}";
}

}  // namespace brrr
