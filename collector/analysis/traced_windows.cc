// See traced_windows.h.
#include "collector/analysis/traced_windows.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace brrr {
namespace {

// A launch call that entered this close to a window's edge is that window's: the shim stamps a
// window's opening after CUPTI is on and its close before CUPTI is off.
constexpr int64_t kEdgeSlackNs = 1'000'000;
// A window record is drained within one drain of its stamp (drains are at most 10 ms apart:
// collector/ingest/drain_loop.h): a call this much older than the newest one is settled, but for a
// collector stalled that long.
constexpr int64_t kSettledNs = 1'000'000'000;

}  // namespace

void TracedWindows::AddWindow(const TracingWindowEvent& w) {
  Enable();
  const bool open = w.end_ns == 0;
  if (!windows_.empty() && windows_.back().end == kOpen) {
    Window& last = windows_.back();
    if (!open && last.start == w.start_ns) {  // the close of the open one
      last.end = std::max(w.end_ns, last.start);
      SetAfterEnd(last, w);
      ++closed_;
      traced_ns_ += last.end - last.start;
      KnownUntil(last.end);
      return;
    }
    if (w.start_ns < last.start) {
      ++bad_windows_;
      return;
    }
    last.end = w.start_ns;  // its close was lost: it ended no later than this one began
    ++closed_;
    traced_ns_ += last.end - last.start;
  }
  if ((!windows_.empty() && w.start_ns < windows_.back().end) ||
      (!open && w.end_ns <= w.start_ns)) {
    ++bad_windows_;
    return;
  }
  const bool attached_before = !windows_.empty() && windows_.back().after_end > 0;
  if (windows_.size() >= options_.max_windows) {
    Fold(windows_.front());
    windows_.pop_front();
  }
  windows_.push_back(Window{w.start_ns, open ? kOpen : w.end_ns});
  windows_.back().attached_before = attached_before;
  if (!open) {
    SetAfterEnd(windows_.back(), w);
    ++closed_;
    traced_ns_ += w.end_ns - w.start_ns;
  }
  KnownUntil(open ? w.start_ns : w.end_ns);
}

void TracedWindows::SetAfterEnd(Window& w, const TracingWindowEvent& close) {
  const int64_t detach_at_ns = close.detach_at_ns;
  if (detach_at_ns <= w.end) {
    if (close.kept_attached) ++kept_attached_;
    return;
  }
  w.after_end = detach_at_ns;
  after_spans_ns_ += detach_at_ns - w.end;
  ++after_spans_;
}

void TracedWindows::CloseOpenWindow(int64_t end_ns) {
  if (!windows_.empty() && windows_.back().end == kOpen) {
    Window& last = windows_.back();
    last.end = std::max(end_ns, last.start);
    ++closed_;
    traced_ns_ += last.end - last.start;
  }
  KnownUntil(end_ns);  // the run ended: no edge comes after it
}

void TracedWindows::Hold(int64_t enter_ns, int64_t duration_ns, SeenBy seen_by) {
  newest_held_ = std::max(newest_held_, enter_ns);
  if (held_.size() >= std::max<size_t>(options_.max_held_calls, 1)) {
    // A long gap between windows (a small share, or none after CUPTI was taken) on a busy loop.
    const HeldCall& oldest = held_.front();
    Classify(oldest.enter_ns, oldest.duration_ns, oldest.seen_by);
    if (newest_held_ - oldest.enter_ns < kSettledNs) ++classified_early_;
    held_.pop_front();
  }
  const auto duration = static_cast<uint32_t>(std::clamp<int64_t>(duration_ns, 0, UINT32_MAX));
  held_.push_back({enter_ns, duration, seen_by});
}

void TracedWindows::KnownUntil(int64_t stamp) {
  if (stamp <= known_until_) return;
  known_until_ = stamp;
  // Calls of several threads interleave: each one is looked at, those still after the stamp are
  // kept in their order. Twice a window at most, over a window's period of calls.
  for (size_t n = held_.size(); n-- > 0;) {
    const HeldCall call = held_.front();
    held_.pop_front();
    if (call.enter_ns < stamp) {
      Classify(call.enter_ns, call.duration_ns, call.seen_by);
    } else {
      held_.push_back(call);
    }
  }
}

void TracedWindows::AddKernelInWindows(int64_t enter, int64_t device_ns, bool first,
                                       int64_t start_ns) {
  // The last window that began (less the slack) at or before the call.
  auto it = std::upper_bound(windows_.begin(), windows_.end(), enter,
                             [](int64_t t, const Window& w) { return t + kEdgeSlackNs < w.start; });
  if (it == windows_.begin()) {
    if (first) ++unattributed_;
    return;
  }
  Window& w = *std::prev(it);
  if (w.end != kOpen && enter >= w.end + kEdgeSlackNs) {
    if (first) ++unattributed_;
    return;
  }
  if (first) ++w.launches;
  w.kernel_ns += std::max<int64_t>(device_ns, 0);
  if (first && start_ns > 0 && enter > w.last_kernel_enter) {
    w.last_kernel_enter = enter;
    w.last_kernel_start = start_ns;
  }
}

TracedWindows::Side TracedWindows::SideOf(int64_t t, int64_t duration, Window** window) {
  auto it = std::upper_bound(windows_.begin(), windows_.end(), t,
                             [](int64_t time, const Window& w) { return time < w.start; });
  if (it != windows_.end() && duration > it->start - t) *window = &*it;  // ran into its opening
  if (it == windows_.begin()) return Side::kOutside;
  Window& w = *std::prev(it);
  if (t < w.end) {
    *window = &w;
    return Side::kInside;
  }
  if (w.after_end > 0) return t < w.after_end ? Side::kAfter : Side::kOutside;
  // No detach named by a shim that names detaches or says when CUPTI stayed attached: no span after
  // it (CUPTI stayed attached, or the run ended), like any outside; else a shim that never says
  // (the window length).
  if (after_spans_ > 0 || kept_attached_ > 0) return Side::kOutside;
  return t - w.end < after_window_ns_ ? Side::kAfter : Side::kOutside;
}

void TracedWindows::NoteFirstCall(Window& w, int64_t enter_ns, int64_t duration_ns, Side side) {
  // Calls of several threads come in any order: the earliest entered one is the first.
  if (w.first_enter != 0 && w.first_enter <= enter_ns) return;
  if (w.first_enter == 0) {
    ++first_calls_;
  } else {  // the later one it replaces counts as any call of its side again
    --firsts_by_side_[w.first_side];
    firsts_ns_by_side_[w.first_side] -= w.first_ns;
  }
  w.first_enter = enter_ns;
  w.first_ns = std::max<int64_t>(duration_ns, 0);
  w.first_side = static_cast<uint8_t>(side);
  ++firsts_by_side_[w.first_side];
  firsts_ns_by_side_[w.first_side] += w.first_ns;  // as the histogram got it (0 at least)
}

void TracedWindows::NoteFirstKernel(int64_t enter_ns, int64_t start_ns) {
  // The window it entered in, or the next one (a call that ran into its opening).
  auto it = std::partition_point(windows_.begin(), windows_.end(),
                                 [&](const Window& w) { return w.end <= enter_ns; });
  if (it == windows_.end()) return;
  // The calls just after the previous window are its own (AddKernelInWindows' slack).
  if (it != windows_.begin() && enter_ns < std::prev(it)->end + kEdgeSlackNs) return;
  if (it->first_kernel_enter != 0 && it->first_kernel_enter <= enter_ns) return;
  it->first_kernel_enter = enter_ns;
  it->first_kernel_start = start_ns;
}

void TracedWindows::Opening::Add(const Window& w, int64_t median) {
  if (w.first_enter == 0) return;
  const int64_t excess = w.first_ns - median;
  // The device was busy with earlier work until the call's kernel started: a stall that ended
  // before then left it nothing idle (a kernel of an unknown call, or an earlier start: no credit).
  int64_t hid = 0;
  if (excess > 0 && w.first_kernel_enter == w.first_enter && w.first_kernel_start > 0) {
    hid = std::clamp<int64_t>(w.first_kernel_start - (w.first_enter + w.first_ns), 0, excess);
  }
  // A call that entered before a window CUPTI was attached again for waited for that attach there.
  const int64_t attach = w.attached_before && excess > 0
                             ? std::clamp<int64_t>(w.start - w.first_enter, 0, excess - hid)
                             : 0;
  cost += excess - hid - attach;
  hidden += hid;
  in_attach += attach;
  if (hid > 0) ++hidden_windows;
}

std::optional<TracedWindows::Opening> TracedWindows::WindowOpening() const {
  if (launch_in_.count() < kMinAbCalls) return std::nullopt;
  const int64_t median = launch_in_.Percentile(50);
  Opening o = folded_opening_;
  for (const Window& w : windows_) o.Add(w, median);
  o.cost = std::max<int64_t>(o.cost, 0);
  return o;
}

int64_t TracedWindows::MeanNs(Side side) const {
  const size_t k = static_cast<size_t>(side);
  const LogHistogram& h = side == Side::kInside  ? launch_in_
                          : side == Side::kAfter ? launch_after_
                                                 : launch_out_;
  const uint64_t firsts = std::min(firsts_by_side_[k], h.count());
  if (h.count() == firsts) return 0;
  return std::max<int64_t>(h.sum() - firsts_ns_by_side_[k], 0) /
         static_cast<int64_t>(h.count() - firsts);
}

std::optional<int64_t> TracedWindows::TracingNsPerLaunch() const {
  if (launch_in_.count() < kMinAbCalls || launch_out_.count() < kMinAbCalls) return std::nullopt;
  return std::max<int64_t>(MeanNs(Side::kInside) - MeanNs(Side::kOutside), 0);
}

std::optional<int64_t> TracedWindows::AfterWindowNsPerLaunch() const {
  if (launch_after_.count() < kMinAbCalls || launch_out_.count() < kMinAbCalls) {
    return std::nullopt;
  }
  return std::max<int64_t>(MeanNs(Side::kAfter) - MeanNs(Side::kOutside), 0);
}

std::optional<double> TracedWindows::CostPerTracedLaunchNs(const Switches& switches) const {
  const std::optional<int64_t> inside = TracingNsPerLaunch();
  if (!inside.has_value()) return std::nullopt;
  const bool detached = switches.detaches > 0;
  std::optional<int64_t> after = detached ? AfterWindowNsPerLaunch() : std::nullopt;
  const std::optional<int64_t> least_lag = LeastLagNs();
  const HiddenAb hidden =
      AbHiddenByQueue(least_lag, MeanDetachNs(switches.detaches, switches.detach_ns));
  if (hidden.after) after.reset();
  const uint64_t attaches =
      Attaches(switches.detaches, WindowsAttachedBefore(), after_spans_, closed_);
  const SwitchCost switching = CostOfSwitches(switches, attaches, least_lag);
  const double in = static_cast<double>(launch_in_.count());
  return (hidden.inside ? 0.0 : static_cast<double>(*inside)) +
         (after.has_value()
              ? static_cast<double>(*after) * static_cast<double>(launch_after_.count()) / in
              : 0.0) +
         static_cast<double>(WindowOpening().value_or(Opening{}).cost + switching.counted) / in;
}

TracedWindows::SwitchCost TracedWindows::CostOfSwitches(const Switches& switches, uint64_t attaches,
                                                        std::optional<int64_t> least_lag_ns) {
  const auto detach_ns = static_cast<int64_t>(switches.detach_ns);
  const auto attach_ns = static_cast<int64_t>(switches.attach_ns);
  SwitchCost cost;
  if (least_lag_ns.has_value()) {
    // In 128 bits: the counts come from the app's shared memory.
    const __int128 lag = std::max<int64_t>(*least_lag_ns, 0);
    cost.hidden = static_cast<int64_t>(std::min<__int128>(detach_ns, lag * switches.detaches) +
                                       std::min<__int128>(attach_ns, lag * attaches));
  }
  cost.counted = detach_ns + attach_ns - cost.hidden;
  return cost;
}

uint64_t TracedWindows::WindowsAttachedBefore() const {
  uint64_t n = attached_before_;
  for (const Window& w : windows_) n += w.attached_before ? 1 : 0;
  return n;
}

std::optional<int64_t> TracedWindows::LeastLagNs() const {
  int64_t least = lag_min_;
  uint64_t n = lag_windows_;
  for (const Window& w : windows_) {
    if (w.end == kOpen) continue;
    if (const std::optional<int64_t> lag = LagAtEnd(w)) {
      least = std::min(least, *lag);
      ++n;
    }
  }
  if (n < kMinLagWindows) return std::nullopt;
  return least;
}

void TracedWindows::Fold(const Window& w) {
  folded_opening_.Add(w, launch_in_.Percentile(50));
  if (w.attached_before) ++attached_before_;
  if (const std::optional<int64_t> lag = LagAtEnd(w)) {
    lag_min_ = std::min(lag_min_, *lag);
    ++lag_windows_;
  }
  const double n = static_cast<double>(w.launches), k = static_cast<double>(w.kernel_ns);
  m_ += 1;
  sn_ += n;
  sk_ += k;
  snn_ += n * n;
  skk_ += k * k;
  snk_ += n * k;
}

TracedWindows::Estimate TracedWindows::Finish(uint64_t launch_calls, int64_t steady_ns,
                                              bool callbacks_detached) {
  KnownUntil(INT64_MAX);  // what still waits is classified by the windows known at the end
  for (const Window& w : windows_) {
    if (w.end != kOpen) {
      Fold(w);
    } else {
      folded_opening_.Add(w, launch_in_.Percentile(50));
    }
  }
  windows_.clear();
  Estimate e;
  e.windows = closed_;
  e.traced_ns = traced_ns_;
  e.bad_windows = bad_windows_;
  e.traced_launches = traced_launches_;
  e.unattributed_launches = unattributed_;
  // Launch calls seen outside the windows as well as inside: the hooks', and the callbacks'
  // unless CUPTI was detached between windows.
  const auto everywhere = [&](const uint64_t* by) {
    const uint64_t callbacks = by[static_cast<size_t>(SeenBy::kCallback)];
    return by[static_cast<size_t>(SeenBy::kHook)] + (callbacks_detached ? 0 : callbacks);
  };
  const uint64_t all_seen = everywhere(seen_all_), in_seen = everywhere(seen_in_);
  if (in_seen > 0 && all_seen > in_seen) {
    const double estimated = static_cast<double>(launch_in_.count()) *
                             static_cast<double>(all_seen) / static_cast<double>(in_seen);
    launch_calls = std::max<uint64_t>(launch_calls, static_cast<uint64_t>(std::llround(estimated)));
  }
  e.launch_calls = launch_calls;
  if (traced_launches_ > 0 && launch_calls >= traced_launches_) {
    e.scale = static_cast<double>(launch_calls) / static_cast<double>(traced_launches_);
  }
  e.error_windows = static_cast<uint64_t>(m_);
  if (callbacks_detached) {
    e.launch_calls_after = launch_after_.count();
    e.launch_p50_after_ns = launch_after_.Percentile(50);
    e.launch_mean_after_ns = MeanNs(Side::kAfter);
    e.after_window_ns_per_launch = AfterWindowNsPerLaunch();
    if (after_spans_ > 0) {
      e.after_span_mean_ns = after_spans_ns_ / static_cast<int64_t>(after_spans_);
    }
    e.windows_kept_attached = kept_attached_;
  } else {  // CUPTI stayed subscribed: the span after a window is like any other outside
    launch_out_.Merge(launch_after_);
    launch_after_ = LogHistogram();
    const size_t after = static_cast<size_t>(Side::kAfter), out = static_cast<size_t>(Side::kOutside);
    firsts_by_side_[out] += std::exchange(firsts_by_side_[after], 0);
    firsts_ns_by_side_[out] += std::exchange(firsts_ns_by_side_[after], 0);
  }
  e.launch_calls_in = launch_in_.count();
  e.launch_calls_out = launch_out_.count();
  e.launch_p50_in_ns = launch_in_.Percentile(50);
  e.launch_p50_out_ns = launch_out_.Percentile(50);
  e.launch_mean_in_ns = MeanNs(Side::kInside);
  e.launch_mean_out_ns = MeanNs(Side::kOutside);
  e.tracing_ns_per_launch = TracingNsPerLaunch();
  if (const std::optional<Opening> opening = WindowOpening()) {
    e.window_opening_ns = opening->cost;
    e.window_opening_hidden_ns = opening->hidden;
    e.windows_opening_hidden = opening->hidden_windows;
    e.window_opening_in_attach_ns = opening->in_attach;
  }
  e.lag_windows = lag_windows_;
  e.device_lag_min_ns = LeastLagNs();  // every window folded: the sums above
  e.windows_attached_before = attached_before_;
  e.detaches_named = after_spans_;
  e.windows_with_first_call = first_calls_;
  e.calls_classified_early = classified_early_;
  if (m_ >= 2 && sn_ > 0 && steady_ns > 0) {
    const double r = sk_ / sn_;  // device ns per launch call
    const double residual = std::max(skk_ - 2 * r * snk_ + r * r * snn_, 0.0);
    const double mean_n = sn_ / m_;
    const double se_r = std::sqrt(residual / (m_ * (m_ - 1))) / mean_n;
    e.busy_error_points =
        100.0 * 2.0 * se_r * static_cast<double>(launch_calls) / static_cast<double>(steady_ns);
  }
  return e;
}

void TracedWindows::ScaleBusy(double scale, std::vector<DeviceBreakdown>* devices) {
  for (DeviceBreakdown& d : *devices) ScaleBusyParts(scale, &d.busy_ns, &d.idle);
}

void TracedWindows::ScaleBusyParts(double scale, int64_t* busy_ns, IdleBreakdown* idle_parts) {
  IdleBreakdown& idle = *idle_parts;
  const int64_t idle_ns = idle.launch_bound_ns + idle.sync_drain_ns + idle.host_outside_cuda_ns;
  const int64_t steady = *busy_ns + idle_ns;
  const int64_t busy =
      std::clamp<int64_t>(std::llround(static_cast<double>(*busy_ns) * scale), 0, steady);
  const int64_t new_idle = steady - busy;
  if (idle_ns > 0) {
    const __int128 n = new_idle;
    const int64_t launch = static_cast<int64_t>(n * idle.launch_bound_ns / idle_ns);
    const int64_t drain = static_cast<int64_t>(n * idle.sync_drain_ns / idle_ns);
    idle.launch_bound_ns = launch;
    idle.sync_drain_ns = drain;
    idle.host_outside_cuda_ns = new_idle - launch - drain;
  } else {
    idle.launch_bound_ns = new_idle;  // nothing idle was seen: the launches' gaps
  }
  *busy_ns = busy;
}

}  // namespace brrr
