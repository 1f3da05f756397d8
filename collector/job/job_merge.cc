// Merging per-process reports into a job report. See job_merge.h.
//
// Must never: trust the inputs' figures not to overflow (sums saturate), or drop a process.
#include "collector/job/job_merge.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collector/analysis/regime.h"
#include "collector/job/collective_waits.h"
#include "collector/job/job_devices.h"
#include "collector/job/job_timeline.h"
#include "collector/job/saturating.h"
#include "collector/job/straggler.h"
#include "viewer/text_format.h"

namespace brrr::job {
namespace {

constexpr size_t kTopKernels = 20;
constexpr size_t kTopStalls = 20;
constexpr size_t kTopPhases = 50;
constexpr size_t kTopLaunchSites = 10;
constexpr size_t kTopWithoutStack = 20;
constexpr size_t kMaxGaps = 20;

void Add(IdleBreakdown& into, const IdleBreakdown& from) {
  into.launch_bound_ns = AddI(into.launch_bound_ns, from.launch_bound_ns);
  into.sync_drain_ns = AddI(into.sync_drain_ns, from.sync_drain_ns);
  into.host_outside_cuda_ns = AddI(into.host_outside_cuda_ns, from.host_outside_cuda_ns);
}

std::string ProcessName(const ProcessRow& row) {
  return row.rank >= 0 ? absl::StrCat("rank ", row.rank) : absl::StrCat("pid ", row.pid);
}

std::vector<ApiStat> MergeApi(const std::vector<Report>& in) {
  std::map<std::string, ApiStat> by_name;
  for (const Report& r : in) {
    for (const ApiStat& a : r.api) {
      auto [it, fresh] = by_name.try_emplace(a.name, a);
      if (fresh) continue;
      ApiStat& m = it->second;
      m.calls = AddU(m.calls, a.calls);
      m.total_ns = AddI(m.total_ns, a.total_ns);
      m.p50_ns = std::max(m.p50_ns, a.p50_ns);
      m.p99_ns = std::max(m.p99_ns, a.p99_ns);
    }
  }
  std::vector<ApiStat> out;
  for (auto& [name, a] : by_name) out.push_back(std::move(a));
  std::stable_sort(out.begin(), out.end(),
                   [](const ApiStat& a, const ApiStat& b) { return a.total_ns > b.total_ns; });
  return out;
}

void MergeKernels(const std::vector<Report>& in, Report& out) {
  std::map<std::string, KernelStat> by_name;
  for (const Report& r : in) {
    out.kernels.launches = AddU(out.kernels.launches, r.kernels.launches);
    out.kernels.device_ns = AddI(out.kernels.device_ns, r.kernels.device_ns);
    out.kernels.estimated = out.kernels.estimated || r.kernels.estimated;  // one estimate taints
    for (const KernelStat& k : r.kernels.top) {
      KernelStat& m = by_name[k.name];
      m.name = k.name;
      m.kernel_class = k.kernel_class;
      m.launches = AddU(m.launches, k.launches);
      m.device_ns = AddI(m.device_ns, k.device_ns);
    }
  }
  // Classes by name, summed: they still add up to the job's kernels.
  std::map<std::string, KernelClassStat> by_class;
  for (const Report& r : in) {
    for (const KernelClassStat& c : r.kernels.classes) {
      KernelClassStat& m = by_class[c.kernel_class];
      m.kernel_class = c.kernel_class;
      m.launches = AddU(m.launches, c.launches);
      m.device_ns = AddI(m.device_ns, c.device_ns);
    }
  }
  for (auto& [name, c] : by_class) out.kernels.classes.push_back(std::move(c));
  std::stable_sort(out.kernels.classes.begin(), out.kernels.classes.end(),
                   [](const KernelClassStat& a, const KernelClassStat& b) {
                     return a.device_ns > b.device_ns;
                   });
  for (auto& [name, k] : by_name) {
    k.mean_ns = k.launches > 0 ? k.device_ns / static_cast<int64_t>(k.launches) : 0;
    out.kernels.top.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.top.begin(), out.kernels.top.end(),
                   [](const KernelStat& a, const KernelStat& b) { return a.device_ns > b.device_ns; });
  if (out.kernels.top.size() > kTopKernels) out.kernels.top.resize(kTopKernels);
}

// Rows of stalls (or of sync sites) with the same API, reason and stack added up, in key order.
std::vector<Stall> MergeStallRows(const std::vector<const std::vector<Stall>*>& lists) {
  std::map<std::tuple<std::string, std::string, std::vector<std::string>>, Stall> by_key;
  for (const std::vector<Stall>* rows : lists) {
    for (const Stall& s : *rows) {
      auto [it, fresh] = by_key.try_emplace(std::make_tuple(s.api, s.reason, s.stack), s);
      if (fresh) continue;
      it->second.calls = AddU(it->second.calls, s.calls);
      it->second.total_ns = AddI(it->second.total_ns, s.total_ns);
    }
  }
  std::vector<Stall> out;
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

std::vector<Stall> MergeStalls(const std::vector<Report>& in) {
  std::vector<const std::vector<Stall>*> lists;
  for (const Report& r : in) lists.push_back(&r.stalls);
  std::vector<Stall> out = MergeStallRows(lists);
  std::stable_sort(out.begin(), out.end(),
                   [](const Stall& a, const Stall& b) { return a.total_ns > b.total_ns; });
  if (out.size() > kTopStalls) out.resize(kTopStalls);
  return out;
}

// Absent when any process's report predates syncing calls (the job's count would be short). The
// job's sites are its processes' kept rows merged: sites a process did not keep are not among
// them, and `sites` counts at least every process's own.
std::optional<SyncCalls> MergeSyncCalls(const std::vector<Report>& in) {
  SyncCalls job;
  std::vector<const std::vector<Stall>*> lists;
  for (const Report& r : in) {
    if (!r.sync_calls.has_value()) return std::nullopt;
    job.calls = AddU(job.calls, r.sync_calls->calls);
    job.sites = std::max(job.sites, r.sync_calls->sites);
    lists.push_back(&r.sync_calls->rows);
  }
  job.rows = MergeStallRows(lists);
  job.sites = std::max<uint64_t>(job.sites, job.rows.size());
  std::stable_sort(job.rows.begin(), job.rows.end(),
                   [](const Stall& a, const Stall& b) { return a.calls > b.calls; });
  if (job.rows.size() > kMaxSyncSitesKept) job.rows.resize(kMaxSyncSitesKept);
  return job;
}

std::vector<Phase> MergePhases(const std::vector<Report>& in) {
  std::map<std::string, Phase> by_name;
  for (const Report& r : in) {
    for (const Phase& p : r.phases) {
      Phase& m = by_name[p.name];
      m.name = p.name;
      m.calls = AddU(m.calls, p.calls);
      m.wall_ns = AddI(m.wall_ns, p.wall_ns);
      m.launches = AddU(m.launches, p.launches);
      m.device_ns = AddI(m.device_ns, p.device_ns);
      m.stall_ns = AddI(m.stall_ns, p.stall_ns);
      Add(m.idle, p.idle);
    }
  }
  std::vector<Phase> out;
  for (auto& [name, p] : by_name) out.push_back(std::move(p));
  std::stable_sort(out.begin(), out.end(),
                   [](const Phase& a, const Phase& b) { return a.wall_ns > b.wall_ns; });
  if (out.size() > kTopPhases) out.resize(kTopPhases);
  return out;
}

std::vector<LaunchSite> MergeLaunchSites(const std::vector<Report>& in) {
  // The same stack has the same leading CUDA frames in every report: the first one's count stays.
  std::map<std::vector<std::string>, LaunchSite> by_stack;
  for (const Report& r : in) {
    for (const LaunchSite& s : r.launch_sites) {
      auto [it, fresh] = by_stack.try_emplace(s.stack, s);
      if (fresh) continue;
      it->second.launches = AddU(it->second.launches, s.launches);
      for (const LaunchKernel& k : s.kernels) {  // the same kernel on the same device: one row
        auto same = std::find_if(
            it->second.kernels.begin(), it->second.kernels.end(),
            [&](const LaunchKernel& o) { return o.name == k.name && o.device == k.device; });
        if (same == it->second.kernels.end()) {
          it->second.kernels.push_back(k);
        } else {
          same->kernels = AddU(same->kernels, k.kernels);
          same->device_ns = AddI(same->device_ns, k.device_ns);
        }
      }
    }
  }
  for (auto& [stack, site] : by_stack) {
    std::stable_sort(site.kernels.begin(), site.kernels.end(),
                     [](const LaunchKernel& a, const LaunchKernel& b) {
                       return a.device_ns > b.device_ns;
                     });
  }
  std::vector<LaunchSite> out;
  for (auto& [stack, site] : by_stack) out.push_back(std::move(site));
  std::stable_sort(out.begin(), out.end(), [](const LaunchSite& a, const LaunchSite& b) {
    return a.launches > b.launches;
  });
  if (out.size() > kTopLaunchSites) out.resize(kTopLaunchSites);
  return out;
}

// Every stall of the job by reason: the processes' totals summed, by reason name.
std::vector<StallReasonTotal> MergeStallReasons(const std::vector<Report>& in) {
  std::map<std::string, StallReasonTotal> by_reason;
  for (const Report& r : in) {
    for (const StallReasonTotal& t : r.stall_reasons) {
      StallReasonTotal& m = by_reason[t.reason];
      m.reason = t.reason;
      m.calls = AddU(m.calls, t.calls);
      m.total_ns = AddI(m.total_ns, t.total_ns);
    }
  }
  std::vector<StallReasonTotal> out;
  for (auto& [reason, t] : by_reason) out.push_back(std::move(t));
  return out;
}

// Each process's rows counted as its own (the same stack in two processes is two rows); kinds
// summed, most rows first.
std::optional<StackEnds> MergeStackEnds(const std::vector<Report>& in) {
  std::optional<StackEnds> out;
  std::map<std::string, StackEnds::Ended> by_kind;
  for (const Report& r : in) {
    if (!r.stack_ends.has_value()) continue;
    if (!out.has_value()) out.emplace();
    out->stacks = AddU(out->stacks, r.stack_ends->stacks);
    out->whole = AddU(out->whole, r.stack_ends->whole);
    for (const StackEnds::Ended& e : r.stack_ends->ended_early) {
      StackEnds::Ended& m = by_kind[e.kind];
      m.kind = e.kind;
      m.stacks = AddU(m.stacks, e.stacks);
      m.calls = AddU(m.calls, e.calls);
    }
  }
  if (!out.has_value()) return out;
  for (auto& [kind, e] : by_kind) out->ended_early.push_back(e);
  std::stable_sort(out->ended_early.begin(), out->ended_early.end(),
                   [](const StackEnds::Ended& a, const StackEnds::Ended& b) {
                     return a.stacks > b.stacks;
                   });
  return out;
}

// The job's sampled tracing: windows, traced time, span and traced launches summed; the scale is
// the job's launch calls over its traced ones; the fraction the largest asked; the busy share and
// its bound those of the process whose estimate is least certain (the widest bound), so the job
// never claims more certainty than its weakest process.
std::optional<DeviceSampling> MergeDeviceSampling(const std::vector<Report>& in) {
  std::optional<DeviceSampling> out;
  double launch_calls = 0;
  const DeviceSampling* widest = nullptr;
  for (const Report& r : in) {
    if (!r.device_sampling.has_value()) continue;
    const DeviceSampling& s = *r.device_sampling;
    if (!out.has_value()) out.emplace().fraction = 0;
    out->fraction = std::max(out->fraction, s.fraction);
    out->windows = AddU(out->windows, s.windows);
    out->traced_ns = AddI(out->traced_ns, s.traced_ns);
    out->span_ns = AddI(out->span_ns, s.span_ns);
    out->traced_launches = AddU(out->traced_launches, s.traced_launches);
    out->cupti_detaches = AddU(out->cupti_detaches, s.cupti_detaches);
    out->calls_classified_early = AddU(out->calls_classified_early, s.calls_classified_early);
    launch_calls += s.scale * static_cast<double>(s.traced_launches);
    const double bound = s.busy_error_points.value_or(std::numeric_limits<double>::infinity());
    if (widest == nullptr ||
        bound > widest->busy_error_points.value_or(std::numeric_limits<double>::infinity())) {
      widest = &s;
    }
  }
  if (!out.has_value()) return out;
  out->scale = out->traced_launches > 0 ? launch_calls / static_cast<double>(out->traced_launches)
                                        : 1;
  out->device = widest->device;
  out->busy_pct = widest->busy_pct;
  out->busy_error_points = widest->busy_error_points;
  out->error_windows = widest->error_windows;
  return out;
}

// brrr's cost on the job: what the processes' threads paid, summed, as a share of their summed
// wall; a part unknown in any process is unknown for the job. One collector served them all, so
// its CPU is the largest any process's report saw (each saw the collector's total so far).
std::optional<Overhead> MergeOverhead(const std::vector<Report>& in) {
  std::optional<Overhead> out;
  double paid = 0, wall = 0;
  bool hooks_known = true, tracing_known = true;
  for (const Report& r : in) {
    if (!r.overhead.has_value()) continue;
    const Overhead& o = *r.overhead;
    if (!out.has_value()) {
      out.emplace();
      out->hooks_ns = 0;
      out->device_tracing_ns = 0;
      out->basis = absl::StrCat("summed over the job's processes; each: ", o.basis);
    }
    paid += o.pct_of_wall / 100.0 * static_cast<double>(r.wall_ns);
    if (!o.unmeasured.empty() && out->unmeasured.empty()) out->unmeasured = o.unmeasured;
    wall += static_cast<double>(r.wall_ns);
    hooks_known = hooks_known && o.hooks_ns.has_value();
    tracing_known = tracing_known && o.device_tracing_ns.has_value();
    if (hooks_known) out->hooks_ns = AddI(*out->hooks_ns, *o.hooks_ns);
    if (tracing_known) out->device_tracing_ns = AddI(*out->device_tracing_ns, *o.device_tracing_ns);
    if (o.collector_cpu_ns.has_value()) {
      out->collector_cpu_ns = std::max(out->collector_cpu_ns.value_or(0), *o.collector_cpu_ns);
    }
    if (o.hidden_by_device_ns.has_value()) {
      out->hidden_by_device_ns = AddI(out->hidden_by_device_ns.value_or(0), *o.hidden_by_device_ns);
    }
  }
  if (!out.has_value()) return out;
  if (!hooks_known) out->hooks_ns.reset();
  if (!tracing_known) out->device_tracing_ns.reset();
  out->pct_of_wall = wall > 0 ? 100.0 * paid / wall : 0;
  return out;
}

std::optional<Coverage> MergeCoverage(const std::vector<Report>& in,
                                      const std::vector<ProcessRow>& rows) {
  std::optional<Coverage> out;
  std::map<std::string, uint64_t> without_stack;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].coverage.has_value()) continue;
    const Coverage& c = *in[i].coverage;
    if (!out.has_value()) out.emplace();
    out->hooked_calls = AddU(out->hooked_calls, c.hooked_calls);
    out->callback_calls = AddU(out->callback_calls, c.callback_calls);
    out->cupti_only_calls = AddU(out->cupti_only_calls, c.cupti_only_calls);
    out->calls_without_stack = AddU(out->calls_without_stack, c.calls_without_stack);
    out->untimed_device_ops = AddU(out->untimed_device_ops, c.untimed_device_ops);
    for (const CallsWithoutStack& row : c.without_stack) {
      without_stack[row.api] = AddU(without_stack[row.api], row.calls);
    }
    out->complete = out->complete && c.complete;
    for (const std::string& gap : c.gaps) {
      if (out->gaps.size() < kMaxGaps) out->gaps.push_back(ProcessName(rows[i]) + ": " + gap);
    }
  }
  if (!out.has_value()) return out;
  for (auto& [api, calls] : without_stack) out->without_stack.push_back({api, calls});
  std::stable_sort(out->without_stack.begin(), out->without_stack.end(),
                   [](const CallsWithoutStack& a, const CallsWithoutStack& b) {
                     return a.calls > b.calls;
                   });
  if (out->without_stack.size() > kTopWithoutStack) out->without_stack.resize(kTopWithoutStack);
  return out;
}

// "rank 3", "ranks 0, 1 and 3", "pids 17 and 18", "rank 0 and pid 18"; past 8, "and N more".
std::string Names(const std::vector<const ProcessRow*>& rows) {
  const bool all_ranked = std::all_of(rows.begin(), rows.end(),
                                      [](const ProcessRow* r) { return r->rank >= 0; });
  const bool none_ranked = std::none_of(rows.begin(), rows.end(),
                                        [](const ProcessRow* r) { return r->rank >= 0; });
  std::vector<std::string> names;
  for (const ProcessRow* r : rows) {
    if (names.size() == 8) break;
    names.push_back(all_ranked    ? absl::StrCat(r->rank)
                    : none_ranked ? absl::StrCat(r->pid)
                                  : ProcessName(*r));
  }
  if (rows.size() > names.size()) names.push_back(absl::StrCat(rows.size() - 8, " more"));
  std::string list = names.back();
  if (names.size() > 1) {
    list = absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " and ", names.back());
  }
  const char* kind = all_ranked ? "rank" : none_ranked ? "pid" : "";
  if (*kind == '\0') return list;
  return absl::StrCat(kind, rows.size() > 1 ? "s " : " ", list);
}

// The job's advice: the straggler first, with what it does on the host (its top stall); then each
// regime's first advice once, for the processes that share it, most processes first.
std::vector<std::string> JobAdvice(const std::vector<ProcessRow>& rows,
                                   const std::optional<Straggler>& straggler,
                                   const std::map<std::string, std::pair<size_t, int64_t>>& regimes) {
  std::vector<std::string> advice;
  if (straggler.has_value()) {
    std::string line = absl::StrCat("straggler: ", straggler->why);
    for (const ProcessRow& row : rows) {
      if (row.pid == straggler->pid && row.rank == straggler->rank && !row.top_stall.empty()) {
        absl::StrAppend(&line, "; its top stall: ", row.top_stall);
      }
    }
    advice.push_back(line);
  }
  std::vector<std::pair<std::string, size_t>> order;
  for (const auto& [regime, stats] : regimes) order.emplace_back(regime, stats.first);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [regime, count] : order) {
    std::vector<const ProcessRow*> sharing;
    const ProcessRow* first = nullptr;
    for (const ProcessRow& row : rows) {
      if (row.verdict.regime != regime || row.verdict.advice.empty()) continue;
      sharing.push_back(&row);
      if (first == nullptr) first = &row;
    }
    if (first == nullptr) continue;
    // The advice's figures are one process's: say whose when several share it.
    advice.push_back(absl::StrCat(
        Names(sharing),
        sharing.size() > 1 ? absl::StrCat(" (figures of ", ProcessName(*first), ")") : "", ": ",
        first->verdict.advice.front()));
  }
  return advice;
}

std::vector<CollectiveParticipant> Participants(const std::vector<Report>& in,
                                                const std::vector<ProcessRow>& rows) {
  std::vector<CollectiveParticipant> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i].rank = rows[i].rank;
    out[i].pid = rows[i].pid;
    out[i].host = rows[i].host;
    out[i].log = in[i].collectives.has_value() ? &*in[i].collectives : nullptr;
    out[i].sampled = in[i].device_sampling.has_value();
  }
  return out;
}

// A device-bound process whose device was busy at least half the time in collectives waiting
// for others is not device-bound: its verdict says whom it waited for and how long.
void NameCollectiveWaits(const JobCollectives& c, const std::optional<Straggler>& straggler,
                         std::vector<ProcessRow>& rows) {
  for (const CollectiveWait& w : c.waits) {
    for (ProcessRow& row : rows) {
      if (row.rank != w.rank || row.pid != w.pid) continue;
      int64_t busy = 0;
      for (const DeviceBreakdown& d : row.devices) busy = AddI(busy, d.busy_ns);
      if (row.verdict.regime != RegimeName(Regime::kDeviceBound) || busy <= 0 ||
          w.wait_ns < busy / 2) {
        break;
      }
      std::string whom = row.rank >= 0 ? "the other ranks" : "the other processes";
      if (straggler.has_value() && straggler->basis == "collectives" &&
          (straggler->rank != row.rank || straggler->pid != row.pid)) {
        whom = straggler->rank >= 0 ? absl::StrCat("rank ", straggler->rank)
                                    : absl::StrCat("pid ", straggler->pid);
      }
      row.verdict.regime = std::string(RegimeName(Regime::kCollectiveWait));
      row.verdict.device_regime.reset();
      row.verdict.why =
          absl::StrCat("waited ", FormatDuration(w.wait_ns), " (", FormatPercent(w.wait_ns, busy),
                       " of its busy time) in ", c.count, " collectives for ", whom);
      row.verdict.advice = {
          absl::StrCat(row.verdict.why, ": make ", whom,
                       " arrive sooner; this process's own kernels are not what it waits on")};
      break;
    }
  }
}

// The regime most processes share (ties: the one whose processes ran the most device time); when
// the collectives name a straggler, the job goes at its pace: its regime.
Verdict JobVerdict(const std::vector<ProcessRow>& rows, const std::optional<Straggler>& straggler) {
  std::map<std::string, std::pair<size_t, int64_t>> regimes;
  for (const ProcessRow& row : rows) {
    if (row.verdict.regime.empty()) continue;
    auto& [count, device] = regimes[row.verdict.regime];
    ++count;
    device = AddI(device, row.kernels.device_ns);
  }
  Verdict v;
  if (regimes.empty()) {
    if (straggler.has_value()) v.why = straggler->why + ".";
    v.advice = JobAdvice(rows, straggler, regimes);
    return v;
  }
  if (straggler.has_value() && straggler->basis == "collectives") {
    for (const ProcessRow& row : rows) {
      if (row.pid != straggler->pid || row.rank != straggler->rank) continue;
      if (row.verdict.regime.empty()) break;
      v.regime = row.verdict.regime;
      v.why = absl::StrCat("The collectives wait for ", ProcessName(row), ", which is ", v.regime,
                           row.verdict.why.empty() ? "" : ": ", row.verdict.why);
      if (v.why.back() != '.') v.why.push_back('.');
      absl::StrAppend(&v.why, " Straggler: ", straggler->why, ".");
      v.advice = JobAdvice(rows, straggler, regimes);
      return v;
    }
  }
  const auto best = std::max_element(regimes.begin(), regimes.end(), [](const auto& a,
                                                                         const auto& b) {
    return a.second < b.second;
  });
  v.regime = best->first;
  v.why = absl::StrCat(best->second.first, " of ", rows.size(), " processes are ", v.regime, ".");
  for (const ProcessRow& row : rows) {
    if (row.verdict.regime == v.regime && !row.verdict.why.empty()) {
      absl::StrAppend(&v.why, " ", ProcessName(row), ": ", row.verdict.why);
      if (v.why.back() != '.') v.why.push_back('.');
      break;
    }
  }
  if (straggler.has_value()) absl::StrAppend(&v.why, " Straggler: ", straggler->why, ".");
  v.advice = JobAdvice(rows, straggler, regimes);
  return v;
}

// Indices of `rows` by rank (unknown ranks last), then pid.
std::vector<size_t> ByRankThenPid(const std::vector<ProcessRow>& rows) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ProcessRow& x = rows[a];
    const ProcessRow& y = rows[b];
    const uint64_t rx = x.rank < 0 ? UINT64_MAX : static_cast<uint64_t>(x.rank);
    const uint64_t ry = y.rank < 0 ? UINT64_MAX : static_cast<uint64_t>(y.rank);
    return std::tie(rx, x.pid) < std::tie(ry, y.pid);
  });
  return order;
}

// The caller's command, else the processes' distinct commands in row order, joined.
std::string JobCommand(const std::vector<ProcessRow>& rows, const JobContext& context) {
  if (!context.command.empty()) return context.command;
  std::vector<std::string> commands;
  for (const ProcessRow& row : rows) {
    if (std::find(commands.begin(), commands.end(), row.command) == commands.end()) {
      commands.push_back(row.command);
    }
  }
  return commands.size() == 1 ? commands.front() : absl::StrJoin(commands, " | ");
}

// The caller's wall, else the longest process's.
int64_t JobWall(const std::vector<ProcessRow>& rows, const JobContext& context) {
  if (context.wall_ns.has_value()) return *context.wall_ns;
  int64_t wall_ns = 0;
  for (const ProcessRow& row : rows) wall_ns = std::max(wall_ns, row.wall_ns);
  return wall_ns;
}

// The caller's exit code, else the first nonzero one in row order (by rank), else 0.
int JobExitCode(const std::vector<ProcessRow>& rows, const JobContext& context) {
  if (context.exit_code.has_value()) return *context.exit_code;
  for (const ProcessRow& row : rows) {
    if (row.exit_code.value_or(0) != 0) return *row.exit_code;
  }
  return 0;
}

void AddEvents(const Report::EventCounts& from, Report::EventCounts& into) {
  into.recorded = AddU(into.recorded, from.recorded);
  into.dropped = AddU(into.dropped, from.dropped);
}

// Counts summed; percentiles and the maximum the highest process's (no samples are kept).
void MergeLatency(const LatencySummary& from, LatencySummary& into) {
  into.count = AddU(into.count, from.count);
  into.p50 = std::max(into.p50, from.p50);
  into.p90 = std::max(into.p90, from.p90);
  into.p99 = std::max(into.p99, from.p99);
  into.max = std::max(into.max, from.max);
}

// Capture ranges: one mode when every process had it ("mixed" otherwise), ranges and dropped
// records summed, the longest time captured (processes capture side by side).
void MergeCapture(const Capture& from, std::optional<Capture>& into) {
  if (!into.has_value()) into = Capture{from.mode, from.nvtx_name};
  Capture& c = *into;
  if (c.mode != from.mode || c.nvtx_name != from.nvtx_name) {
    c.mode = "mixed";
    c.nvtx_name.clear();
  }
  c.ranges = static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{c.ranges} + from.ranges, std::numeric_limits<uint32_t>::max()));
  c.captured_ns = std::max(c.captured_ns, from.captured_ns);
  c.records_dropped = AddU(c.records_dropped, from.records_dropped);
}

// The first process's Python frames, or the first active one's; dropped frames summed.
void MergePython(const PythonFrames& from, std::optional<PythonFrames>& into) {
  if (!into.has_value() || (into->status != "active" && from.status == "active")) {
    const uint64_t dropped = into.has_value() ? into->frames_dropped : 0;
    const PythonFrames kept = into.value_or(PythonFrames{});
    into = from;
    into->frames_dropped = dropped;
    if (from.torch_annotations.empty()) {  // torch seen in an earlier process only
      into->torch_annotations = kept.torch_annotations;
      into->torch_version = kept.torch_version;
      into->torch_reason = kept.torch_reason;
    }
  }
  into->frames_dropped = AddU(into->frames_dropped, from.frames_dropped);
  // PyTorch's labels: active where any process had them, else the first process that saw torch.
  if (from.torch_annotations == "active" || into->torch_annotations.empty()) {
    if (!from.torch_annotations.empty()) {
      into->torch_annotations = from.torch_annotations;
      into->torch_version = from.torch_version;
      into->torch_reason = from.torch_reason;
    }
  }
}

// The job's single figures over its processes: host-only (and the first reason) when every
// process was, events, launch latency, phases over the cap, capture, launch sampling and Python.
void MergeFigures(const std::vector<Report>& in, Report& job) {
  job.host_only = !in.empty();
  for (const Report& r : in) {
    job.host_only = job.host_only && r.host_only;
    if (r.host_only && job.host_only_reason.empty()) job.host_only_reason = r.host_only_reason;
    AddEvents(r.events, job.events);
    AddEvents(r.events.host, job.events.host);
    AddEvents(r.events.device, job.events.device);
    MergeLatency(r.launch_latency_ns, job.launch_latency_ns);
    job.phases_over_cap = AddU(job.phases_over_cap, r.phases_over_cap);
    if (r.capture.has_value()) MergeCapture(*r.capture, job.capture);
    job.launch_sample_period = std::max(job.launch_sample_period, r.launch_sample_period);
    if (r.python.has_value()) MergePython(*r.python, job.python);
  }
  if (!job.host_only) job.host_only_reason.clear();
}

// The job's lists and optional sections, each merged over its processes.
void MergeSections(const std::vector<Report>& in, const std::vector<ProcessRow>& rows,
                   Report& job) {
  job.coverage = MergeCoverage(in, rows);
  job.api = MergeApi(in);
  MergeKernels(in, job);
  std::vector<std::string> hosts;
  hosts.reserve(rows.size());
  for (const ProcessRow& row : rows) hosts.push_back(row.host);
  job.devices = MergeDevices(in, hosts);
  job.stalls = MergeStalls(in);
  job.phases = MergePhases(in);
  job.launch_sites = MergeLaunchSites(in);
  job.stack_ends = MergeStackEnds(in);
  job.stall_reasons = MergeStallReasons(in);
  job.sync_calls = MergeSyncCalls(in);
  job.device_sampling = MergeDeviceSampling(in);
  job.overhead = MergeOverhead(in);
}

uint32_t DistinctRanks(const std::vector<ProcessRow>& rows) {
  std::vector<int64_t> ranks;
  for (const ProcessRow& row : rows) {
    if (row.rank >= 0 && std::find(ranks.begin(), ranks.end(), row.rank) == ranks.end()) {
      ranks.push_back(row.rank);
    }
  }
  return static_cast<uint32_t>(ranks.size());
}

// The straggler the collectives name, else the one the rows' figures name.
std::optional<Straggler> JobStraggler(const std::optional<JobCollectives>& collectives,
                                      const std::vector<ProcessRow>& rows) {
  std::optional<Straggler> straggler;
  if (collectives.has_value()) straggler = StragglerFromCollectives(*collectives);
  if (!straggler.has_value()) straggler = FindStraggler(rows);
  return straggler;
}

std::optional<size_t> RowIndexOf(const std::vector<ProcessRow>& rows,
                                 const std::optional<Straggler>& straggler) {
  for (size_t i = 0; i < rows.size() && straggler.has_value(); ++i) {
    if (rows[i].pid == straggler->pid && rows[i].rank == straggler->rank) return i;
  }
  return std::nullopt;
}

// Each row's timeline on the job's clock (the straggler's marked); what was left out in summary.
void AttachTimelines(const std::vector<Report>& in, std::optional<size_t> straggler_index,
                     std::vector<ProcessRow>& rows, JobSummary& summary) {
  JobTimelines timelines = MergeTimelines(in, straggler_index);
  for (size_t i = 0; i < rows.size(); ++i) rows[i].timeline = std::move(timelines.per_process[i]);
  summary.timeline_rows_left_out = timelines.rows_left_out;
  summary.timeline_note = std::move(timelines.note);
}

// The job's summary: processes and ranks, collectives, the straggler and the timelines. Renames
// the verdict of a row that mostly waited in collectives and gives each row its timeline.
JobSummary Summarize(const std::vector<Report>& in, std::vector<ProcessRow>& rows) {
  JobSummary summary;
  summary.processes = static_cast<uint32_t>(rows.size());
  summary.ranks = DistinctRanks(rows);
  summary.collectives = MatchCollectives(Participants(in, rows));
  summary.straggler = JobStraggler(summary.collectives, rows);
  if (summary.collectives.has_value()) {
    NameCollectiveWaits(*summary.collectives, summary.straggler, rows);
  }
  AttachTimelines(in, RowIndexOf(rows, summary.straggler), rows, summary);
  return summary;
}

}  // namespace

ProcessRow RowOf(const Report& r) {
  ProcessRow row;
  if (r.process.has_value()) {
    row.pid = r.process->pid;
    row.rank = r.process->rank;
    row.host = r.process->host;
  }
  row.command = r.command;
  // The process's identity (its parent's view) and the report's own end say the same; a report
  // whose exit status is unknown (exit_code null) never gives one here either.
  const bool exit_seen =
      r.exit_code_known && (!r.process.has_value() || r.process->exit_seen);
  const int term_signal = r.process.has_value() ? r.process->term_signal : 0;
  if (r.end == "running") {
    row.ended = "running (a snapshot)";
  } else if (r.end == "exec") {
    row.ended = "exec'd another program";
  } else if (term_signal != 0) {
    row.exit_code = r.exit_code;
    row.ended = absl::StrCat("killed by signal ", term_signal);
  } else if (!exit_seen) {
    row.ended = "vanished (killed or crashed)";
  } else {
    row.exit_code = r.exit_code;
    row.ended = "exited";
  }
  row.wall_ns = r.wall_ns;
  row.kernels.launches = r.kernels.launches;
  row.kernels.device_ns = r.kernels.device_ns;
  row.devices = r.devices;
  row.events_dropped = r.events.dropped;
  if (!r.stalls.empty()) {
    const Stall& s = r.stalls.front();
    row.top_stall = absl::StrCat(s.api, " ", s.reason, " ", FormatCount(s.calls), " calls ",
                                 FormatDuration(s.total_ns));
  }
  row.verdict = r.verdict;
  return row;
}

Report MergeJob(const std::vector<Report>& processes, const JobContext& context) {
  // Rows by rank (unknown ranks last), then pid; the inputs in the same order.
  std::vector<ProcessRow> unsorted;
  for (const Report& r : processes) unsorted.push_back(RowOf(r));
  std::vector<Report> in;
  std::vector<ProcessRow> rows;
  for (size_t i : ByRankThenPid(unsorted)) {
    in.push_back(processes[i]);
    rows.push_back(std::move(unsorted[i]));
  }
  Report job;
  job.command = JobCommand(rows, context);
  job.wall_ns = JobWall(rows, context);
  job.exit_code = JobExitCode(rows, context);
  MergeFigures(in, job);
  MergeSections(in, rows, job);
  JobSummary summary = Summarize(in, rows);
  job.verdict = JobVerdict(rows, summary.straggler);
  job.processes = std::move(rows);
  job.job = std::move(summary);
  return job;
}

}  // namespace brrr::job
