// The HTML report page. See render_html.h.
//
// Must never: emit report text outside HtmlEscape, or a tag that loads anything.
#include "viewer/render_html.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "viewer/cost_headline.h"
#include "viewer/counter_note.h"
#include "viewer/breakdown_bar.h"
#include "viewer/stack_end_words.h"
#include "viewer/svg_charts.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

// The breakdown's parts (breakdown_bar.h, the one list), unaccounted last.
const std::vector<ChartPart>& Parts() {
  static const std::vector<ChartPart> parts = [] {
    std::vector<ChartPart> out;
    for (const BarPart& p : BreakdownParts(DeviceBreakdown{})) out.push_back({p.label, p.color});
    return out;
  }();
  return parts;
}

// The timeline's buckets have the first kTimelineParts parts (no unaccounted).
const std::vector<ChartPart>& TimelineParts() {
  static const std::vector<ChartPart> parts(Parts().begin(), Parts().begin() + kTimelineParts);
  return parts;
}

std::vector<int64_t> DeviceValues(const DeviceBreakdown& d) {
  std::vector<int64_t> values;
  for (const BarPart& p : BreakdownParts(d)) values.push_back(p.ns);
  return values;
}

}  // namespace

const char kReportPageStyle[] = R"(<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#fafafa;color:#222}
main{max-width:1320px;margin:0 auto;padding:16px 24px}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
.cmd{font-family:ui-monospace,monospace;color:#555;word-break:break-all}
.verdict{background:#fff;border:2px solid #333;border-radius:8px;padding:12px 16px;margin:10px 0}
.regime{font-size:26px;font-weight:700;letter-spacing:.5px}
.regime.launch-bound{color:#c77800}.regime.sync-bound{color:#c0352d}.regime.input-bound{color:#4a6d9a}.regime.device-bound{color:#23834a}
.advice li{margin:4px 0}
.muted{color:#666}.warn{color:#b3261e;font-weight:600}.ok{color:#23834a;font-weight:600}
table{border-collapse:collapse;background:#fff;margin:4px 0 8px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}th.sort{cursor:pointer}th.sort:after{content:" \2195";color:#999}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.mono{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
details summary{cursor:pointer}ol.stack{margin:4px 0;padding-left:28px}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.dev{margin:6px 0 12px}
</style>)";

namespace {

// Sorts a table by the clicked column: numbers by their data-v, text otherwise.
constexpr char kScript[] = R"(<script>
document.querySelectorAll("table.sortable th").forEach(function(th,col){
th.classList.add("sort");th.addEventListener("click",function(){
var body=th.closest("table").tBodies[0],rows=Array.from(body.rows),asc=th.dataset.asc!=="1";
th.dataset.asc=asc?"1":"0";
rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];
var u=x.dataset.v,v=y.dataset.v;var r=(u!==undefined&&v!==undefined)?(Number(u)-Number(v)):x.textContent.localeCompare(y.textContent);
return asc?r:-r;});rows.forEach(function(r){body.appendChild(r);});});});
</script>)";

std::string E(absl::string_view s) { return HtmlEscape(s); }

// A numeric cell that sorts by its raw value.
std::string Num(int64_t sort_value, const std::string& shown) {
  return absl::StrCat("<td class=\"n\" data-v=\"", sort_value, "\">", E(shown), "</td>");
}
std::string Dur(int64_t ns) { return Num(ns, FormatDuration(ns)); }
std::string Count(uint64_t n) {
  return absl::StrCat("<td class=\"n\" data-v=\"", n, "\">", FormatCount(n), "</td>");
}

std::string Legend() {
  std::string out = "<div class=\"legend\">";
  for (const ChartPart& p : Parts()) {
    absl::StrAppend(&out, "<span><i style=\"background:", p.color, "\"></i>", E(p.label),
                    "</span>");
  }
  return out + "</div>";
}

// A stack as a list under its first frame that is not CUDA plumbing (the report says how many
// frames lead: Stall/LaunchSite.plumbing_frames), those folded into one marker.
std::string Stack(const std::vector<std::string>& frames, uint32_t plumbing,
                  const std::string& ended_early) {
  if (frames.empty()) {
    return ended_early.empty()
               ? std::string("<span class=\"muted\">no stack</span>")
               : absl::StrCat("<span class=\"muted\">no stack: it ", E(ended_early), "</span>");
  }
  const size_t first = plumbing < frames.size() ? plumbing : 0;
  std::string out = absl::StrCat("<details><summary>", E(frames[first]),
                                 "</summary><ol class=\"stack mono\">");
  if (first > 0) {
    absl::StrAppend(&out, "<li class=\"muted\">(+", first, " CUDA frame", first == 1 ? "" : "s",
                    ")</li>");
  }
  for (size_t i = first; i < frames.size(); ++i) absl::StrAppend(&out, "<li>", E(frames[i]), "</li>");
  if (!ended_early.empty()) {
    absl::StrAppend(&out, "<li class=\"muted\">(the stack ", E(ended_early), ")</li>");
  }
  return out + "</ol></details>";
}

void Header(std::string& out, const Report& r) {
  absl::StrAppend(&out, "<h1>brrr report</h1><div class=\"cmd\">", E(r.command), "</div>",
                  "<div class=\"muted\">wall time ", E(FormatDuration(r.wall_ns)), ", exit code ",
                  r.exit_code, r.host_only ? ", host-only run" : "", "</div>");
  if (r.process.has_value()) {
    const ProcessIdentity& p = *r.process;
    absl::StrAppend(&out, "<div class=\"muted\">process ", p.pid, " on ", E(p.host));
    if (p.rank >= 0) absl::StrAppend(&out, ", rank ", p.rank);
    if (p.world_size >= 0) absl::StrAppend(&out, " of ", p.world_size);
    out += "</div>";
  }
}

void VerdictBox(std::string& out, const Report& r) {
  const Verdict& v = r.verdict;
  absl::StrAppend(&out, "<section class=\"verdict\" id=\"verdict\"><div class=\"regime ",
                  E(v.regime), "\">", E(v.regime.empty() ? "no verdict" : v.regime), "</div>");
  if (v.close) {
    absl::StrAppend(&out, "<p class=\"close\"><b>", E(v.close_note),
                    "</b>: runs that differ only by noise may name either.</p>");
  }
  absl::StrAppend(&out, "<p>", E(v.why), "</p>");
  if (v.device_regime.has_value()) {
    absl::StrAppend(&out, "<p><b>Device regime: ", E(v.device_regime->regime), "</b> (",
                    E(v.device_regime->basis), ") ", E(v.device_regime->why), "</p>");
  }
  if (!v.advice.empty()) {
    out += "<b>What to do</b><ol class=\"advice\">";
    for (const std::string& a : v.advice) absl::StrAppend(&out, "<li>", E(a), "</li>");
    out += "</ol>";
  }
  if (r.host_only && !r.host_only_reason.empty()) {
    absl::StrAppend(&out, "<p class=\"warn\">", E(r.host_only_reason), "</p>");
  }
  out += "</section>";
}

void CoverageLine(std::string& out, const Report& r) {
  if (!r.coverage.has_value()) return;
  const Coverage& c = *r.coverage;
  const uint64_t total = c.hooked_calls + c.callback_calls + c.cupti_only_calls;
  absl::StrAppend(&out, "<p id=\"coverage\"><b>Coverage:</b> ", FormatCount(total),
                  " CUDA calls, seen by the runtime hooks ", FormatCount(c.hooked_calls),
                  ", by CUPTI callbacks ", FormatCount(c.callback_calls),
                  ", by CUPTI records only ", FormatCount(c.cupti_only_calls), "; ",
                  c.calls_without_stack == 0
                      ? std::string("every call has a stack")
                      : absl::StrCat(FormatCount(c.calls_without_stack), " without a stack"),
                  ". ",
                  c.complete && c.gaps.empty() ? "<span class=\"ok\">nothing escaped</span>"
                                               : "<span class=\"warn\">something escaped: see "
                                                 "Dropped and lost below</span>",
                  "</p>");
}

std::string TimelineChart(const DeviceTimeline& t, int64_t bucket_ns, int height) {
  std::vector<std::vector<int64_t>> columns;
  for (const TimelineBucket& b : t.buckets) {
    columns.push_back({b.busy_ns, b.launch_bound_ns, b.sync_drain_ns, b.host_outside_cuda_ns,
                       b.startup_ns, b.teardown_ns});
  }
  return SvgTimeline(TimelineParts(), columns, bucket_ns, 1000, height);
}

void Devices(std::string& out, const Report& r) {
  if (const std::string unknown = DeviceViewUnknown(r); !unknown.empty()) {
    absl::StrAppend(&out, "<h2>Where the device time went</h2><p id=\"device_unknown\">",
                    E(unknown), "</p>");
    return;
  }
  if (r.devices.empty()) return;
  out += "<h2>Where the device time went</h2>" + Legend();
  for (const DeviceBreakdown& d : r.devices) {
    const std::vector<int64_t> values = DeviceValues(d);
    std::vector<std::string> shares;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] == 0) continue;
      shares.push_back(absl::StrCat(Parts()[i].label, " ", FormatDuration(values[i]), " (",
                                    FormatPercent(values[i], d.wall_ns), ")"));
    }
    absl::StrAppend(&out, "<div class=\"dev\"><b>GPU ", d.id, E(DeviceOwners(d)),
                    "</b> <span class=\"muted\">wall ",
                    E(FormatDuration(d.wall_ns)), ": ", E(absl::StrJoin(shares, ", ")),
                    "</span><br>", SvgStackedBar(Parts(), values, 1000, 26));
    if (r.timeline.has_value()) {
      for (const DeviceTimeline& t : r.timeline->devices) {
        if (t.id != d.id) continue;
        absl::StrAppend(&out, "<div class=\"muted\">timeline, ", t.buckets.size(),
                        " buckets of ", E(FormatDuration(r.timeline->bucket_ns)), "</div>",
                        TimelineChart(t, r.timeline->bucket_ns, 150));
      }
    }
    out += "</div>";
  }
}

std::string PowerOfTwoLabel(int64_t lo) {
  if (lo == 0) return "0";
  return absl::StrCat(FormatDuration(lo), "+");
}

void Latency(std::string& out, const Report& r) {
  const LatencySummary& l = r.launch_latency_ns;
  if (l.count == 0) return;
  absl::StrAppend(&out, "<h2>Launch latency</h2><p>", FormatCount(l.count),
                  " launches from the call to the kernel's start: p50 ", FormatDuration(l.p50),
                  ", p90 ", FormatDuration(l.p90), ", p99 ", FormatDuration(l.p99), ", max ",
                  FormatDuration(l.max), "</p>");
  if (l.histogram.empty()) return;
  std::vector<std::string> labels;
  std::vector<uint64_t> counts;
  for (const LatencyBucket& b : l.histogram) {
    labels.push_back(PowerOfTwoLabel(b.lo_ns));
    counts.push_back(b.count);
  }
  const int width = std::clamp(static_cast<int>(labels.size()) * 70, 300, 1000);
  out += SvgHistogram(labels, counts, "#6f8fb8", width, 170);
}

void Stalls(std::string& out, const Report& r) {
  out += "<h2>Stalls: host calls that waited for the device</h2>";
  if (r.stalls.empty()) {
    out += "<p class=\"muted\">none</p>";
    return;
  }
  out += "<table class=\"sortable\" id=\"stalls\"><thead><tr><th>call</th><th>reason</th>"
         "<th>calls</th><th>blocked</th><th>where</th></tr></thead><tbody>";
  for (const Stall& s : r.stalls) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", E(s.api), "</td><td>", E(s.reason), "</td>",
                    Count(s.calls), Dur(s.total_ns), "<td>", Stack(s.stack, s.plumbing_frames, s.ended_early),
                    "</td></tr>");
  }
  out += "</tbody></table>";
}

void Kernels(std::string& out, const Report& r) {
  absl::StrAppend(&out, "<h2>Kernels</h2><p>", FormatCount(r.kernels.launches),
                  " launches, ", FormatDuration(r.kernels.device_ns), " of device time</p>");
  if (!r.kernels.classes.empty()) {
    out += "<table class=\"sortable\" id=\"classes\"><thead><tr><th>class</th><th>launches</th>"
           "<th>device time</th><th>share</th></tr></thead><tbody>";
    for (const KernelClassStat& c : r.kernels.classes) {
      absl::StrAppend(&out, "<tr><td>", E(c.kernel_class), "</td>", Count(c.launches),
                      Dur(c.device_ns), Num(c.device_ns, FormatPercent(c.device_ns,
                                                                       r.kernels.device_ns)),
                      "</tr>");
    }
    out += "</tbody></table>";
  }
  if (r.kernels.top.empty()) return;
  bool classes = false, counters = false;
  for (const KernelStat& k : r.kernels.top) {
    classes |= !k.kernel_class.empty();
    counters |= k.counter_coverage.has_value();
  }
  absl::StrAppend(&out, "<table class=\"sortable\" id=\"kernels\"><thead><tr><th>kernel</th>",
                  classes ? "<th>class</th>" : "",
                  "<th>launches</th><th>device time</th><th>mean</th><th>share</th>",
                  counters ? "<th title=\"achieved SM throughput, % of peak, from PM samples while "
                             "the GPU was active\">SM %</th><th title=\"achieved DRAM "
                             "throughput, % of peak\">DRAM %</th><th title=\"share of the "
                             "kernel's time inside PM samples\">sampled</th>"
                           : "",
                  "</tr></thead><tbody>");
  // A counter cell: the value, "≥" before a lower bound, an empty cell (sorting lowest) without.
  const auto pct = [](const std::optional<double>& v, bool lower) {
    if (!v) return std::string("<td class=\"n\" data-v=\"-1\"></td>");
    return absl::StrCat("<td class=\"n\" data-v=\"", absl::StrFormat("%.3f", *v), "\">",
                        lower ? "&ge;" : "", absl::StrFormat("%.1f", *v), "</td>");
  };
  for (const KernelStat& k : r.kernels.top) {
    std::string cells;
    if (counters) {
      const bool shared = k.counter_shared.value_or(0) > 0.1;
      cells = absl::StrCat(
          pct(k.achieved_sm_pct, k.counter_lower_bound),
          pct(k.achieved_dram_pct, k.counter_lower_bound),
          k.counter_coverage
              ? absl::StrCat("<td class=\"n\" data-v=\"",
                             absl::StrFormat("%.3f", *k.counter_coverage), "\"",
                             shared ? absl::StrFormat(
                                          " title=\"%.0f%% of the sampled time shared with "
                                          "other kernels: the figures are the device's\"",
                                          *k.counter_shared * 100)
                                    : "",
                             ">", absl::StrFormat("%.0f%%", *k.counter_coverage * 100),
                             shared ? "*" : "", "</td>")
              : std::string("<td class=\"n\" data-v=\"-1\"></td>"));
    }
    absl::StrAppend(&out, "<tr><td class=\"mono\">", E(k.name), "</td>",
                    classes ? absl::StrCat("<td>", E(k.kernel_class), "</td>") : "",
                    Count(k.launches), Dur(k.device_ns), Dur(k.mean_ns),
                    Num(k.device_ns, FormatPercent(k.device_ns, r.kernels.device_ns)), cells,
                    "</tr>");
  }
  out += "</tbody></table>";
  if (const std::optional<KernelCounterJoin>& j = r.kernels.counters) {
    const bool nothing_sampled = j->samples == 0 && j->samples_unaligned == 0;
    absl::StrAppend(&out, "<p id=\"kernel-counters\">", E(CounterUseNote(*j)),
                    nothing_sampled && !j->unavailable.empty() ? ""
                    : j->samples == 0
                        ? absl::StrCat("Counters per kernel not joined (",
                                       FormatCount(j->samples_unaligned), " PM samples): ",
                                       E(j->clock), ".")
                        : absl::StrCat("Per-kernel counters: ", FormatCount(j->samples),
                                       " PM samples joined to kernels by time (", E(j->clock),
                                       "); ", FormatCount(j->samples_unaligned),
                                       " not aligned, ", FormatCount(j->samples_late),
                                       " samples and ", FormatCount(j->kernels_late),
                                       " kernels too late for the join window. * other kernels "
                                       "ran inside the same samples."),
                    "</p>");
  }
}

void Api(std::string& out, const Report& r) {
  if (r.api.empty()) return;
  out += "<h2>CUDA calls</h2><table class=\"sortable\" id=\"api\"><thead><tr><th>call</th>"
         "<th>category</th><th>calls</th><th>host time</th><th>p50</th><th>p99</th></tr>"
         "</thead><tbody>";
  for (const ApiStat& a : r.api) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", E(a.name), "</td><td>", E(a.category),
                    "</td>", Count(a.calls), Dur(a.total_ns), Dur(a.p50_ns), Dur(a.p99_ns),
                    "</tr>");
  }
  out += "</tbody></table>";
}

// A loop's steps: each a column split into the breakdown's parts, the outliers marked; then the
// outlier steps with their cause.
void Steps(std::string& out, const Report& r) {
  if (!r.steps.has_value()) return;
  const StepsSummary& s = *r.steps;
  absl::StrAppend(
      &out, "<h2 id=\"steps\">Steps</h2><p>", FormatCount(s.count), " steps (", E(s.source),
      "): p50 ", FormatDuration(s.wall_ns.p50), ", p90 ", FormatDuration(s.wall_ns.p90), ", p99 ",
      FormatDuration(s.wall_ns.p99), ", max ", FormatDuration(s.wall_ns.max),
      s.estimated ? " (estimated)" : "", "; busy ",
      FormatPercent(static_cast<int64_t>(s.per_step.busy_ns), static_cast<int64_t>(s.wall_ns.mean)),
      " of a step on average",
      s.device_parts_scaled ? " (estimated from the traced windows; each step's column below shows "
                              "device time only where a window saw it)"
                            : "",
      "</p>");
  const StepsSummary::PartSamples& p = s.part_samples;
  std::vector<std::vector<int64_t>> columns;
  for (size_t i = 0; i < p.busy_ns.size() && i < p.launch_bound_ns.size() &&
                     i < p.sync_drain_ns.size() && i < p.host_outside_cuda_ns.size();
       ++i) {
    columns.push_back(
        {p.busy_ns[i], p.launch_bound_ns[i], p.sync_drain_ns[i], p.host_outside_cuda_ns[i]});
  }
  std::vector<bool> marked(columns.size(), false);
  for (const StepOutlier& o : s.outliers) {
    if (o.index < marked.size()) marked[o.index] = true;
  }
  if (!columns.empty()) {
    static const std::vector<ChartPart> step_parts(Parts().begin(), Parts().begin() + 4);
    absl::StrAppend(&out, "<div id=\"step_chart\">",
                    SvgStepBars(step_parts, columns, marked, 1000, 180), "</div>",
                    columns.size() < s.count ? absl::StrCat("<p class=\"muted\">the first ",
                                                            columns.size(), " steps</p>")
                                             : std::string());
  }
  absl::StrAppend(&out, "<p class=\"muted\">Outliers: ", E(s.outlier_rule), "</p>");
  if (s.outliers.empty()) return;
  out +=
      "<table class=\"sortable\" id=\"step_outliers\"><thead><tr><th>step</th><th>range</th>"
      "<th>wall</th><th>grew most</th><th>top stall</th></tr></thead><tbody>";
  for (const StepOutlier& o : s.outliers) {
    absl::StrAppend(&out, "<tr>", Count(o.index), "<td class=\"mono\">", E(o.name), "</td>",
                    Dur(o.wall_ns), "<td>", E(o.cause), "</td><td class=\"mono\">", E(o.top_stall),
                    "</td></tr>");
  }
  out += "</tbody></table>";
}

void Phases(std::string& out, const Report& r) {
  if (r.phases.empty()) return;
  out += "<h2>Phases (NVTX ranges)</h2><table class=\"sortable\" id=\"phases\"><thead><tr>"
         "<th>phase</th><th>ranges</th><th>wall</th><th>launches</th><th>device time</th>"
         "<th>stalls</th><th>launch-bound idle</th><th>sync drain idle</th>"
         "<th>outside CUDA idle</th></tr></thead><tbody>";
  for (const Phase& p : r.phases) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", E(p.name), "</td>", Count(p.calls),
                    Dur(p.wall_ns), Count(p.launches), Dur(p.device_ns), Dur(p.stall_ns),
                    Dur(p.idle.launch_bound_ns), Dur(p.idle.sync_drain_ns),
                    Dur(p.idle.host_outside_cuda_ns), "</tr>");
  }
  out += "</tbody></table>";
  if (r.phases_over_cap > 0) {
    absl::StrAppend(&out, "<p class=\"muted\">", FormatCount(r.phases_over_cap),
                    " ranges over the cap on distinct paths are not rows</p>");
  }
}

void LaunchSites(std::string& out, const Report& r) {
  if (r.launch_sites.empty()) return;
  absl::StrAppend(&out, "<h2>Where launches come from</h2><p class=\"muted\">1 in ",
                  r.launch_sample_period, " launches sampled; counts estimated</p>",
                  "<table class=\"sortable\" id=\"launch_sites\"><thead><tr><th>launches</th>"
                  "<th>ran (device time)</th><th>stack</th></tr></thead><tbody>");
  for (const LaunchSite& s : r.launch_sites) {
    std::string ran;
    for (const LaunchKernel& k : s.kernels) {
      absl::StrAppend(&ran, ran.empty() ? "" : "<br>", E(k.name), " (~",
                      E(FormatDuration(k.device_ns)), ", device ", k.device, ")");
    }
    absl::StrAppend(&out, "<tr>", Count(s.launches), "<td>", ran, "</td><td>",
                    Stack(s.stack, s.plumbing_frames, s.ended_early), "</td></tr>");
  }
  out += "</tbody></table>";
}

// How every stall row's and launch site's stack ends, when any ends early.
void StackEndsNote(std::string& out, const Report& r) {
  if (!r.stack_ends.has_value() || r.stack_ends->ended_early.empty()) return;
  const StackEnds& e = *r.stack_ends;
  absl::StrAppend(&out, "<p class=\"muted\" id=\"stack_ends\">Stacks: ", FormatCount(e.whole),
                  " of ", FormatCount(e.stacks),
                  " (every stall and launch site) reach their thread's start; ended early:");
  const char* sep = " ";
  for (const StackEnds::Ended& row : e.ended_early) {
    absl::StrAppend(&out, sep, FormatCount(row.stacks), " ", E(StackEndWords(row.kind)), " (",
                    FormatCount(row.calls), row.calls == 1 ? " call" : " calls", ")");
    sep = "; ";
  }
  out += "</p>";
}

// A job's processes over time, one chart per (process, GPU) in the table's order, all on the job's
// clock (same start and bucket width), so ranks line up and a straggler stands out; each chart's
// id is "timeline-pid-PID-gpu-ID". Then why rows were left out, if any were.
void ProcessTimelines(std::string& out, const Report& r) {
  const Timeline* first = nullptr;
  size_t charts = 0;
  for (const ProcessRow& p : r.processes) {
    if (!p.timeline.has_value()) continue;
    if (first == nullptr) first = &*p.timeline;
    charts += p.timeline->devices.size();
  }
  const std::string note = r.job.has_value() ? r.job->timeline_note : std::string();
  if (first == nullptr && note.empty()) return;
  out += "<h2 id=\"process-timelines\">Each process over time</h2>";
  if (first != nullptr) {
    absl::StrAppend(&out, "<div class=\"muted\">on the job's clock, from the first process's "
                          "start, in buckets of ",
                    E(FormatDuration(first->bucket_ns)), "</div>", Legend());
  }
  const int height = charts > 16 ? 60 : 110;
  for (const ProcessRow& p : r.processes) {
    if (!p.timeline.has_value()) continue;
    const bool straggler = r.job.has_value() && r.job->straggler.has_value() &&
                           r.job->straggler->pid == p.pid && r.job->straggler->rank == p.rank;
    for (const DeviceTimeline& t : p.timeline->devices) {
      absl::StrAppend(&out, "<div class=\"dev\" id=\"timeline-pid-", p.pid, "-gpu-", t.id,
                      "\"><b>", p.rank >= 0 ? absl::StrCat("rank ", p.rank) : "rank unknown",
                      "</b> <span class=\"muted\">pid ", p.pid, " on ", E(p.host), ", GPU ", t.id,
                      "</span>", straggler ? " <span class=\"warn\">straggler</span>" : "",
                      "<br>", TimelineChart(t, p.timeline->bucket_ns, height), "</div>");
    }
  }
  if (!note.empty()) absl::StrAppend(&out, "<p class=\"warn\">", E(note), "</p>");
}

// Who waited in the job's collectives, and for whom (JobCollectives).
void Collectives(std::string& out, const Report& r) {
  if (!r.job.has_value() || !r.job->collectives.has_value()) return;
  const JobCollectives& c = *r.job->collectives;
  absl::StrAppend(&out, "<h2 id=\"collectives\">Collectives</h2><p class=\"muted\">",
                  FormatCount(c.count), " matched across ", c.processes,
                  " processes (the k-th of each); clocks: ", E(c.alignment));
  if (c.unmatched > 0) {
    absl::StrAppend(&out, "; ", FormatCount(c.unmatched),
                    " collectives had no counterpart on every process");
  }
  out +=
      "</p><table class=\"sortable\" id=\"collective_waits\"><thead><tr><th>rank</th>"
      "<th>pid</th><th>waited</th><th>arrived last</th><th>others waited for it</th></tr>"
      "</thead><tbody>";
  for (const CollectiveWait& w : c.waits) {
    absl::StrAppend(&out, "<tr>", Num(w.rank, w.rank >= 0 ? absl::StrCat(w.rank) : "-"),
                    Num(w.pid, absl::StrCat(w.pid)), Dur(w.wait_ns), Count(w.last_arrivals),
                    Dur(w.caused_wait_ns), "</tr>");
  }
  out += "</tbody></table>";
}

void Processes(std::string& out, const Report& r) {
  if (r.processes.empty() && !r.job.has_value()) return;
  out += "<h2>Processes of the job</h2>";
  if (r.job.has_value()) {
    absl::StrAppend(&out, "<p>", r.job->processes, " processes, ", r.job->ranks, " ranks. ");
    if (r.job->straggler.has_value()) {
      const Straggler& s = *r.job->straggler;
      // `why` names the process itself ("rank 2 spent ..."): the label says only what it is.
      absl::StrAppend(&out, "<span class=\"warn\">Straggler:</span> ", E(s.why));
    } else {
      out += "No straggler.";
    }
    out += "</p>";
  }
  out += "<table class=\"sortable\" id=\"processes\"><thead><tr><th>rank</th><th>pid</th>"
         "<th>host</th><th>ended</th><th>wall</th><th>launches</th><th>device time</th>"
         "<th>dropped</th><th>verdict</th><th>top stall</th></tr></thead><tbody>";
  for (const ProcessRow& p : r.processes) {
    absl::StrAppend(&out, "<tr>", Num(p.rank, p.rank >= 0 ? absl::StrCat(p.rank) : "-"),
                    Num(p.pid, absl::StrCat(p.pid)), "<td>", E(p.host), "</td><td>", E(p.ended),
                    p.exit_code.has_value() ? absl::StrCat(" (", *p.exit_code, ")") : "",
                    "</td>", Dur(p.wall_ns), Count(p.kernels.launches), Dur(p.kernels.device_ns),
                    Count(p.events_dropped), "<td>", E(p.verdict.regime), "</td><td class=\"mono\">",
                    E(p.top_stall), "</td></tr>");
  }
  out += "</tbody></table>";
  Collectives(out, r);
  ProcessTimelines(out, r);
}

void Lost(std::string& out, const Report& r) {
  out += "<h2 id=\"lost\">Dropped and lost</h2><ul>";
  absl::StrAppend(&out, "<li>events: ", FormatCount(r.events.recorded), " recorded, ",
                  r.events.dropped > 0 ? "<span class=\"warn\">" : "<span>",
                  FormatCount(r.events.dropped), " dropped</span> (host calls ",
                  FormatCount(r.events.host.recorded), " recorded / ",
                  FormatCount(r.events.host.dropped), " dropped; device records ",
                  FormatCount(r.events.device.recorded), " / ",
                  FormatCount(r.events.device.dropped), ")</li>");
  if (r.coverage.has_value()) {
    for (const std::string& gap : r.coverage->gaps) {
      absl::StrAppend(&out, "<li class=\"warn\">", E(gap), "</li>");
    }
  }
  if (r.python.has_value()) {
    absl::StrAppend(&out, "<li>Python frames: ", E(r.python->status),
                    r.python->version.empty() ? "" : absl::StrCat(" (", E(r.python->version), ")"),
                    r.python->frames_dropped > 0
                        ? absl::StrCat(", ", FormatCount(r.python->frames_dropped), " dropped")
                        : "",
                    r.python->note.empty() ? "" : absl::StrCat(": ", E(r.python->note)), "</li>");
  }
  if (r.capture.has_value() && r.capture->mode != "all") {
    absl::StrAppend(&out, "<li>capture range ", E(r.capture->mode), " ", E(r.capture->nvtx_name),
                    ": ", r.capture->ranges, " ranges, ", FormatDuration(r.capture->captured_ns),
                    " inside, ", FormatCount(r.capture->records_dropped),
                    " records outside not counted</li>");
  }
  if (r.overhead.has_value()) {
    absl::StrAppend(&out, "<li>brrr's cost on this run: ", CostHeadline(*r.overhead),
                    r.overhead->collector_cpu_ns.has_value()
                        ? absl::StrCat("; collector CPU ",
                                       FormatDuration(*r.overhead->collector_cpu_ns))
                        : std::string(),
                    " (", E(r.overhead->basis), ")</li>");
  }
  if (r.device_sampling.has_value()) {
    const DeviceSampling& s = *r.device_sampling;
    absl::StrAppend(&out, "<li class=\"warn\">device traced in ", FormatCount(s.windows),
                    " windows (", FormatDuration(s.traced_ns), ", ",
                    absl::StrFormat("%.3g", 100 * s.fraction), "% asked, ",
                    FormatCount(s.traced_launches),
                    " launch calls traced): device busy time "
                    "and the kernel table are estimates (x",
                    absl::StrFormat("%.3g", s.scale), "); device ", s.device, " busy ",
                    s.busy_pct.has_value() ? absl::StrFormat("%.1f%%", *s.busy_pct)
                                           : "unknown (no launch traced)",
                    s.busy_error_points.has_value()
                        ? absl::StrFormat(" (+/- %.1f points over %d windows)",
                                          *s.busy_error_points, static_cast<int>(s.error_windows))
                        : std::string(),
                    s.calls_classified_early > 0
                        ? absl::StrCat("; ", FormatCount(s.calls_classified_early),
                                       " launch calls were counted inside or outside a window "
                                       "before its record came: the scale may be off by their "
                                       "share")
                        : std::string(),
                    "</li>");
  }
  out += "</ul>";
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>brrr: ";
  absl::StrAppend(&out, E(r.verdict.regime), " ", E(r.command.substr(0, 120)), "</title>", kReportPageStyle,
                  "</head><body><main>");
  Header(out, r);
  VerdictBox(out, r);
  CoverageLine(out, r);
  Devices(out, r);
  Steps(out, r);
  Stalls(out, r);
  Kernels(out, r);
  Latency(out, r);
  Phases(out, r);
  LaunchSites(out, r);
  StackEndsNote(out, r);
  Processes(out, r);
  Api(out, r);
  Lost(out, r);
  absl::StrAppend(&out, "</main>", kScript, "</body></html>\n");
  return out;
}

}  // namespace brrr
