// Comparing two reports. See report_diff.h.
//
// Must never: divide by a zero step count or a zero `a` (delta_pct is then absent).
#include "collector/diff/report_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "viewer/format/report.h"
#include "collector/diff/mann_whitney.h"

namespace brrr::diff {
namespace {

double Steps(const Report& r, bool by_steps) {
  return by_steps ? static_cast<double>(std::max<uint64_t>(r.steps->count, 1)) : 1.0;
}

// The busy share of the first device's steady state, in percent.
double BusyPct(const Report& r) {
  if (r.devices.empty()) return 0;
  const DeviceBreakdown& d = r.devices.front();
  const int64_t steady = d.wall_ns - d.startup_ns - d.teardown_ns;
  return steady > 0 ? 100.0 * static_cast<double>(d.busy_ns) / static_cast<double>(steady) : 0;
}

DiffMetric Metric(std::string name, bool count, double a, double b) {
  DiffMetric m;
  m.name = std::move(name);
  m.count = count;
  m.a = a;
  m.b = b;
  m.delta = b - a;
  if (a != 0) m.delta_pct = 100.0 * (b - a) / a;
  return m;
}

double AbsPct(const DiffMetric& m) {
  if (m.delta_pct.has_value()) return std::fabs(*m.delta_pct);
  return m.b == m.a ? 0 : INFINITY;
}

void DecideCount(DiffMetric& m) {
  // Means of exact counts over steps: equal up to rounding of the division, or not.
  m.significant = std::fabs(m.b - m.a) > 1e-9 * std::max({1.0, std::fabs(m.a), std::fabs(m.b)});
  m.test = "a count: any change";
}

void DecideByEffect(DiffMetric& m, double min_pct) {
  m.significant = AbsPct(m) >= min_pct;
  m.test = absl::StrFormat("no per-step samples to test: a change of at least %.0f%%", min_pct);
}

// Rows of stalls or sync sites of both runs matched by (reason, API, stack), per step.
std::vector<DiffStall> MatchSites(const std::vector<Stall>& a_rows, double a_steps,
                                  const std::vector<Stall>& b_rows, double b_steps) {
  using Key = std::tuple<std::string, std::string, std::vector<std::string>>;
  std::map<Key, DiffStall> sites;
  for (const auto& [rows, steps, is_a] :
       {std::tuple<const std::vector<Stall>*, double, bool>{&a_rows, a_steps, true},
        {&b_rows, b_steps, false}}) {
    for (const Stall& s : *rows) {
      DiffStall& row = sites[Key{s.reason, s.api, s.stack}];
      row.reason = s.reason;
      row.api = s.api;
      row.stack = s.stack;
      (is_a ? row.a_calls_per_step : row.b_calls_per_step) += static_cast<double>(s.calls) / steps;
      (is_a ? row.a_ns_per_step : row.b_ns_per_step) += static_cast<double>(s.total_ns) / steps;
    }
  }
  std::vector<DiffStall> out;
  for (auto& [key, row] : sites) out.push_back(std::move(row));
  return out;
}

// Syncing calls per step, new and gone sync sites, and syncing calls per step of each API:
// exact counts. Nothing when either report predates syncing calls.
void AddSyncMetrics(const Report& a, const Report& b, bool by_steps, double sa, double sb,
                    ReportDiff& d) {
  if (!a.sync_calls.has_value() || !b.sync_calls.has_value()) return;
  if (by_steps && (!a.steps->per_step.sync_calls.has_value() ||
                   !b.steps->per_step.sync_calls.has_value())) {
    return;
  }
  {
    DiffMetric m = Metric("sync_calls_per_step", true,
                          by_steps ? *a.steps->per_step.sync_calls
                                   : static_cast<double>(a.sync_calls->calls),
                          by_steps ? *b.steps->per_step.sync_calls
                                   : static_cast<double>(b.sync_calls->calls));
    DecideCount(m);
    d.metrics.push_back(std::move(m));
  }
  d.sync_sites = MatchSites(a.sync_calls->rows, sa, b.sync_calls->rows, sb);
  std::stable_sort(d.sync_sites.begin(), d.sync_sites.end(),
                   [](const DiffStall& x, const DiffStall& y) {
                     return std::fabs(x.b_calls_per_step - x.a_calls_per_step) >
                            std::fabs(y.b_calls_per_step - y.a_calls_per_step);
                   });
  d.sync_sites_not_kept = (a.sync_calls->sites - std::min<uint64_t>(a.sync_calls->sites,
                                                                      a.sync_calls->rows.size())) +
                          (b.sync_calls->sites - std::min<uint64_t>(b.sync_calls->sites,
                                                                      b.sync_calls->rows.size()));
  const std::string among =
      d.sync_sites_not_kept == 0
          ? std::string("exact: sites matched by API, reason and stack")
          : absl::StrCat("sites matched by API, reason and stack, among the ", kMaxSyncSitesKept,
                         " most-called of each run (", d.sync_sites_not_kept, " not kept)");
  double fresh = 0, gone = 0;
  for (const DiffStall& s : d.sync_sites) {
    if (s.a_calls_per_step == 0) ++fresh;
    if (s.b_calls_per_step == 0) ++gone;
  }
  for (const auto& [name, value] : {std::pair<const char*, double>{"new_sync_sites", fresh},
                                    {"gone_sync_sites", gone}}) {
    DiffMetric m = Metric(name, true, 0, value);
    m.significant = value != 0;
    m.test = among;
    d.metrics.push_back(std::move(m));
  }
  std::map<std::string, std::pair<double, double>> by_api;
  for (const DiffStall& s : d.sync_sites) {
    by_api[s.api].first += s.a_calls_per_step;
    by_api[s.api].second += s.b_calls_per_step;
  }
  for (const auto& [api, calls] : by_api) {
    DiffMetric m = Metric(absl::StrCat("sync_calls_per_step[", api, "]"), true, calls.first,
                          calls.second);
    DecideCount(m);
    if (d.sync_sites_not_kept != 0) absl::StrAppend(&m.test, " (", among, ")");
    d.metrics.push_back(std::move(m));
  }
}

}  // namespace

ReportDiff DiffReports(const Report& a, const Report& b) {
  ReportDiff d;
  const bool by_steps =
      a.steps.has_value() && b.steps.has_value() && a.steps->count > 0 && b.steps->count > 0;
  d.basis = by_steps ? "steps" : "run";
  d.a_steps = static_cast<uint64_t>(Steps(a, by_steps));
  d.b_steps = static_cast<uint64_t>(Steps(b, by_steps));
  d.a_command = a.command;
  d.b_command = b.command;
  d.a_verdict = absl::StrCat(a.verdict.regime, a.verdict.why.empty() ? "" : ": ", a.verdict.why);
  d.b_verdict = absl::StrCat(b.verdict.regime, b.verdict.why.empty() ? "" : ": ", b.verdict.why);
  const double sa = Steps(a, by_steps), sb = Steps(b, by_steps);

  // Step times.
  const MannWhitney test = by_steps
                               ? MannWhitneyTest(a.steps->wall_samples_ns, b.steps->wall_samples_ns)
                               : MannWhitney{};
  const bool testable = by_steps && a.steps->wall_samples_ns.size() >= kMinTestSteps &&
                        b.steps->wall_samples_ns.size() >= kMinTestSteps;
  d.significance_rule = absl::StrFormat(
      "significant: counts are exact, any change is one; step times by a Mann-Whitney U test "
      "(p < %.2g, at least %zu steps per run) and a change of at least %.0f%%; other timings by a "
      "stated minimum change, no test",
      kAlpha, kMinTestSteps, kMinStepEffectPct);
  for (const bool p99 : {false, true}) {
    const double va = by_steps
                          ? static_cast<double>(p99 ? a.steps->wall_ns.p99 : a.steps->wall_ns.p50)
                          : static_cast<double>(a.wall_ns);
    const double vb = by_steps
                          ? static_cast<double>(p99 ? b.steps->wall_ns.p99 : b.steps->wall_ns.p50)
                          : static_cast<double>(b.wall_ns);
    DiffMetric m = Metric(p99 ? "step_wall_p99_ns" : "step_wall_p50_ns", false, va, vb);
    if (testable) {
      m.significant = test.p < kAlpha && AbsPct(m) >= kMinStepEffectPct;
      m.test = absl::StrFormat(
          "Mann-Whitney U over the steps' times: p = %.2g (significant below %.2g), and a change "
          "of at least %.0f%%",
          test.p, kAlpha, kMinStepEffectPct);
    } else {
      m.significant = false;
      m.test = by_steps ? absl::StrFormat(
                              "n too small: %zu and %zu steps (the rank test needs at least %zu "
                              "per run); not tested",
                              a.steps->wall_samples_ns.size(), b.steps->wall_samples_ns.size(),
                              kMinTestSteps)
                        : std::string("n too small: one value per run (no steps); not tested");
    }
    d.metrics.push_back(std::move(m));
  }
  {
    DiffMetric m = Metric("device_busy_pct", false, BusyPct(a), BusyPct(b));
    m.significant = std::fabs(m.delta) >= kMinBusyEffectPoints;
    m.test = absl::StrFormat("a change of at least %.0f points", kMinBusyEffectPoints);
    d.metrics.push_back(std::move(m));
  }
  auto totals = [](const Report& r) {
    uint64_t calls = 0;
    int64_t ns = 0;
    for (const StallReasonTotal& t : r.stall_reasons) {
      calls += t.calls;
      ns += t.total_ns;
    }
    return std::pair<uint64_t, int64_t>(calls, ns);
  };
  const auto [a_stalls, a_stall_ns] = totals(a);
  const auto [b_stalls, b_stall_ns] = totals(b);
  {
    DiffMetric m =
        Metric("launches_per_step", true,
               by_steps ? a.steps->per_step.launches : static_cast<double>(a.kernels.launch_calls),
               by_steps ? b.steps->per_step.launches : static_cast<double>(b.kernels.launch_calls));
    DecideCount(m);
    d.metrics.push_back(std::move(m));
  }
  AddSyncMetrics(a, b, by_steps, sa, sb, d);
  {
    // A count, but of calls that waited long enough: whether one does is timing (remove one sync
    // and the next one waits instead), so it is judged as a timing.
    DiffMetric m = Metric("stalls_per_step", false,
                          by_steps ? a.steps->per_step.stall_calls : static_cast<double>(a_stalls),
                          by_steps ? b.steps->per_step.stall_calls : static_cast<double>(b_stalls));
    DecideByEffect(m, kMinTimingEffectPct);
    m.test = absl::StrFormat(
        "depends on timing (a call is a stall when it waited): a change of at least %.0f%%; gate "
        "on sync_calls_per_step instead",
        kMinTimingEffectPct);
    d.metrics.push_back(std::move(m));
  }
  {
    DiffMetric m = Metric("stall_ns_per_step", false,
                          by_steps ? a.steps->per_step.stall_ns : static_cast<double>(a_stall_ns),
                          by_steps ? b.steps->per_step.stall_ns : static_cast<double>(b_stall_ns));
    DecideByEffect(m, kMinTimingEffectPct);
    d.metrics.push_back(std::move(m));
  }
  for (const bool h2d : {true, false}) {
    DiffMetric m =
        Metric(h2d ? "h2d_bytes_per_step" : "d2h_bytes_per_step", true,
               by_steps ? (h2d ? a.steps->per_step.h2d_bytes : a.steps->per_step.d2h_bytes) : 0,
               by_steps ? (h2d ? b.steps->per_step.h2d_bytes : b.steps->per_step.d2h_bytes) : 0);
    if (by_steps) {
      DecideCount(m);
    } else {
      m.test = "not known without steps";
    }
    d.metrics.push_back(std::move(m));
  }
  {
    DiffMetric m =
        Metric("kernel_device_ns_per_step", false, static_cast<double>(a.kernels.device_ns) / sa,
               static_cast<double>(b.kernels.device_ns) / sb);
    DecideByEffect(m, kMinTimingEffectPct);
    d.metrics.push_back(std::move(m));
  }
  {
    DiffMetric m =
        Metric("launch_latency_p50_ns", false, static_cast<double>(a.launch_latency_ns.p50),
               static_cast<double>(b.launch_latency_ns.p50));
    DecideByEffect(m, kMinLatencyEffectPct);
    d.metrics.push_back(std::move(m));
  }

  // Stalls by (reason, api, stack).
  d.stalls = MatchSites(a.stalls, sa, b.stalls, sb);
  std::stable_sort(d.stalls.begin(), d.stalls.end(), [](const DiffStall& x, const DiffStall& y) {
    return std::fabs(x.b_ns_per_step - x.a_ns_per_step) >
           std::fabs(y.b_ns_per_step - y.a_ns_per_step);
  });
  // Kernels by name.
  std::map<std::string, DiffKernel> kernels;
  for (const KernelStat& k : a.kernels.top) {
    DiffKernel& row = kernels[k.name];
    row.name = k.name;
    row.a_device_ns_per_step += static_cast<double>(k.device_ns) / sa;
  }
  for (const KernelStat& k : b.kernels.top) {
    DiffKernel& row = kernels[k.name];
    row.name = k.name;
    row.b_device_ns_per_step += static_cast<double>(k.device_ns) / sb;
  }
  for (auto& [name, row] : kernels) d.kernels.push_back(std::move(row));
  std::stable_sort(d.kernels.begin(), d.kernels.end(),
                   [](const DiffKernel& x, const DiffKernel& y) {
                     return std::max(x.a_device_ns_per_step, x.b_device_ns_per_step) >
                            std::max(y.a_device_ns_per_step, y.b_device_ns_per_step);
                   });
  return d;
}

}  // namespace brrr::diff
