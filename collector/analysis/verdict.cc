// DecideVerdict (see verdict.h).
//
// Must never: divide by a zero wall time.
#include "collector/analysis/verdict.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/analysis/advice.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

double Percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string Pct(int64_t part, int64_t whole) {
  return absl::StrFormat("%.1f%%", Percent(part, whole));
}

std::string StallClause(const VerdictInputs& in) {
  if (in.top_stall.empty()) return "";
  return absl::StrCat("; top stall: ", in.top_stall, ", ", in.top_stall_calls, " calls, ",
                      FormatDuration(in.top_stall_ns), " blocked");
}

std::string StartupClause(int64_t startup, int64_t teardown) {
  if (startup <= 0 && teardown <= 0) return "";
  return absl::StrCat(" (start-up ", FormatDuration(startup), " and teardown ",
                      FormatDuration(teardown), " not counted)");
}

AdviceInputs BaseAdvice(const VerdictInputs& in) {
  AdviceInputs a;
  a.kernel_launches = in.kernel_launches;
  a.median_kernel_ns = in.median_kernel_ns;
  a.median_launch_call_ns = in.median_launch_call_ns;
  a.top_launch_site = in.top_launch_site;
  a.top_stall = in.top_stall_row;
  a.classes = in.kernel_classes;
  a.top_kernels = in.top_kernels;
  a.python = in.python;
  return a;
}

// The steady state's shares behind a verdict, in percent (busy < 0: not known, host-only).
struct Shares {
  double busy = -1;
  double launch = 0, drain = 0, outside = 0;
  double threshold = 70;
};

Regime DecideCore(const VerdictInputs& in, AdviceInputs& advice, Verdict& v, Shares& shares);

// Verdict.runner_up, margin_pts, close and close_note (verdict.h says how).
void RankRunnerUp(Regime decided, const Shares& s, Verdict& v) {
  std::pair<double, Regime> idle[] = {{s.launch, Regime::kLaunchBound},
                                      {s.drain, Regime::kSyncBound},
                                      {s.outside, Regime::kInputBound}};
  std::stable_sort(std::begin(idle), std::end(idle),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const auto note = [&](Regime runner, const std::string& numbers) {
    v.close = true;
    v.close_note = absl::StrCat(std::string(RegimeName(runner)), " close behind: ", numbers);
  };
  if (decided == Regime::kDeviceBound) {
    v.runner_up = std::string(RegimeName(idle[0].second));
    v.margin_pts = s.busy - s.threshold;
    if (*v.margin_pts < kCloseMarginPts) {
      note(idle[0].second,
           absl::StrFormat("device busy %.1f%% of the steady state, against the %.0f%% that makes "
                           "a run device-bound",
                           s.busy, s.threshold));
    }
    return;
  }
  if (s.busy >= 0 && s.busy >= s.threshold - kCloseMarginPts) {
    v.runner_up = std::string(RegimeName(Regime::kDeviceBound));
    v.margin_pts = s.threshold - s.busy;
    note(Regime::kDeviceBound,
         absl::StrFormat("device busy %.1f%% of the steady state, %.0f%% makes a run device-bound",
                         s.busy, s.threshold));
    return;
  }
  // The decided regime is the top idle part (ties go its way, as DecideCore's do).
  const auto& second = idle[0].second == decided ? idle[1] : idle[0];
  const double top = std::max({s.launch, s.drain, s.outside});
  v.runner_up = std::string(RegimeName(second.second));
  v.margin_pts = top - second.first;
  if (*v.margin_pts < kCloseMarginPts || (top > 0 && second.first >= kCloseRatio * top)) {
    note(second.second, absl::StrFormat("%.1f%% vs %.1f%% of the steady state idle", top,
                                        second.first));
  }
}

// The run's own spread (verdict.h, step_parts): each step judged by the same rule as the run (busy
// at least the threshold of its steady state -> device-bound, else its largest idle part); when a
// kSpreadShare of the steps name another regime, the verdict is close, the runner-up the most
// common of those.
void RankBySteps(Regime decided, const VerdictInputs& in, double threshold, Verdict& v) {
  if (in.step_parts.size() < kSpreadMinSteps) return;
  std::map<Regime, size_t> others;
  size_t judged = 0;
  for (const std::array<int64_t, 4>& p : in.step_parts) {
    const int64_t steady = p[0] + p[1] + p[2] + p[3];
    if (steady <= 0 || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0) continue;
    ++judged;
    Regime r = Regime::kDeviceBound;
    if (100.0 * static_cast<double>(p[0]) < threshold * static_cast<double>(steady)) {
      r = p[1] >= p[2] && p[1] >= p[3] ? Regime::kLaunchBound
          : p[2] >= p[3]               ? Regime::kSyncBound
                                       : Regime::kInputBound;
    }
    if (r != decided) ++others[r];
  }
  size_t differing = 0;
  Regime most = decided;
  size_t most_steps = 0;
  for (const auto& [r, n] : others) {
    differing += n;
    if (n > most_steps) {
      most = r;
      most_steps = n;
    }
  }
  if (judged < kSpreadMinSteps || static_cast<double>(differing) < kSpreadShare * judged) return;
  const std::string spread = absl::StrCat(differing, " of ", judged, " steps judged alone name ",
                                          differing == most_steps ? "" : "mostly ",
                                          std::string(RegimeName(most)));
  if (v.close) {
    absl::StrAppend(&v.close_note, "; ", spread);
    return;
  }
  v.close = true;
  if (v.runner_up.empty()) v.runner_up = std::string(RegimeName(most));
  v.close_note = absl::StrCat(std::string(RegimeName(most)), " close behind in the run's own "
                              "spread: ", spread);
}

}  // namespace

Verdict DecideVerdict(const VerdictInputs& in) {
  AdviceInputs advice = BaseAdvice(in);
  Verdict v;
  Shares shares;
  const Regime regime = DecideCore(in, advice, v, shares);
  v.regime = std::string(RegimeName(regime));
  if (regime != Regime::kNoCudaWork) {
    RankRunnerUp(regime, shares, v);
    RankBySteps(regime, in, shares.threshold, v);
  }
  advice.regime = regime;
  advice.device_regime = v.device_regime;
  v.advice = Advise(advice);
  return v;
}

namespace {

Regime DecideCore(const VerdictInputs& in, AdviceInputs& advice, Verdict& v, Shares& shares) {
  if (in.cuda_calls == 0 && !in.have_device_records && in.host_split.in_or_near_cuda_ns == 0 &&
      in.host_split.in_stall_ns == 0) {
    v.why =
        "no CUDA call and no device work were recorded: the program did not use CUDA (or used it "
        "out of brrr's sight: see COVERAGE)";
    return Regime::kNoCudaWork;
  }
  if (!in.have_device_records || in.devices.empty()) {
    const auto& h = in.host_split;
    advice.host_only = true;
    const int64_t steady = h.wall_ns - h.startup_ns - h.teardown_ns;
    advice.steady_ns = steady;
    advice.launch_idle_ns = h.in_or_near_cuda_ns;
    advice.sync_idle_ns = h.in_stall_ns;
    advice.outside_idle_ns = h.outside_cuda_ns;
    if (h.wall_ns <= 0 || steady <= 0) {
      v.why = "no steady state to judge: the CUDA calls recorded took no measurable time "
              "(inferred from host timing only: no device records)";
      return Regime::kNoCudaWork;
    }
    const int64_t parts[] = {h.in_or_near_cuda_ns, h.in_stall_ns, h.outside_cuda_ns};
    shares.launch = Percent(h.in_or_near_cuda_ns, steady);
    shares.drain = Percent(h.in_stall_ns, steady);
    shares.outside = Percent(h.outside_cuda_ns, steady);
    const int largest = static_cast<int>(std::max_element(parts, parts + 3) - parts);
    static constexpr Regime kRegimes[] = {Regime::kLaunchBound, Regime::kSyncBound,
                                          Regime::kInputBound};
    v.why = absl::StrCat("inferred from host timing only (no device records): the host spent ",
                         Pct(h.in_stall_ns, steady),
                         " of the steady state blocked in synchronizing calls, ",
                         Pct(h.in_or_near_cuda_ns, steady), " in or between other CUDA calls, ",
                         Pct(h.outside_cuda_ns, steady), " outside CUDA",
                         StartupClause(h.startup_ns, h.teardown_ns));
    if (largest == 1) v.why += StallClause(in);
    return kRegimes[largest];
  }

  int64_t wall = 0, busy = 0, launch = 0, drain = 0, outside = 0, startup = 0, teardown = 0;
  for (const DeviceBreakdown& d : in.devices) {
    // The steady state: start-up and teardown are not the workload's.
    wall += d.wall_ns - d.startup_ns - d.teardown_ns;
    startup += d.startup_ns;
    teardown += d.teardown_ns;
    busy += d.busy_ns;
    launch += d.idle.launch_bound_ns;
    drain += d.idle.sync_drain_ns;
    outside += d.idle.host_outside_cuda_ns;
  }
  advice.steady_ns = wall;
  advice.launch_idle_ns = launch;
  advice.sync_idle_ns = drain;
  advice.outside_idle_ns = outside;
  shares.busy = Percent(busy, wall);
  shares.launch = Percent(launch, wall);
  shares.drain = Percent(drain, wall);
  shares.outside = Percent(outside, wall);
  shares.threshold = 100 * in.device_bound_fraction;
  const std::string busy_text =
      absl::StrCat("device busy ", Pct(busy, wall), " of the steady state (", FormatDuration(busy),
                   " of ", FormatDuration(wall), ")", StartupClause(startup, teardown));
  if (wall > 0 &&
      static_cast<double>(busy) >= in.device_bound_fraction * static_cast<double>(wall)) {
    v.why = busy_text;
    if (!in.top_kernel.empty()) {
      v.why += absl::StrCat("; top kernel ", in.top_kernel, " takes ", Pct(in.top_kernel_ns, busy),
                            " of busy time");
    }
    DeviceRegimeInputs regime;
    regime.classes = in.kernel_classes;
    regime.counters = in.counters;
    regime.counters_unavailable = in.counters_unavailable;
    v.device_regime = DecideDeviceRegime(regime);
    return Regime::kDeviceBound;
  }
  if (launch >= drain && launch >= outside) {
    v.why = absl::StrCat(busy_text, "; ", Pct(launch, wall),
                         " idle while the host was launching or between launches");
    if (in.kernel_launches > 0 && in.median_launch_call_ns > 0) {
      v.why += absl::StrCat("; median kernel ", FormatDuration(in.median_kernel_ns),
                            " vs median launch call ", FormatDuration(in.median_launch_call_ns));
    }
    return Regime::kLaunchBound;
  }
  if (drain >= outside) {
    v.why = absl::StrCat(busy_text, "; ", Pct(drain, wall),
                         " idle because the host was blocked in synchronizations", StallClause(in));
    return Regime::kSyncBound;
  }
  v.why = absl::StrCat(busy_text, "; ", Pct(outside, wall), " idle while the host was outside CUDA",
                       in.python ? " (data loading, Python, I/O)" : " (input, I/O, host work)");
  return Regime::kInputBound;
}

}  // namespace

}  // namespace brrr
