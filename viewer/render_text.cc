// The terminal report. Layout constants live here; formatting helpers in text_format.h, the bar
// in breakdown_bar.h.
//
// Must never: emit lines wider than kTextReportColumns (long names are elided), or raw report
// strings (everything from the report goes through TerminalSafe).
#include "viewer/render_text.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "viewer/breakdown_bar.h"
#include "viewer/cost_headline.h"
#include "viewer/counter_note.h"
#include "viewer/render_job_text.h"
#include "viewer/render_steps_text.h"
#include "viewer/stack_end_words.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

constexpr size_t kMaxApiRows = 20;
constexpr size_t kMaxKernelRows = 10;
constexpr size_t kMaxClassRows = 16;   // more than the classes there are: a bound for odd input
constexpr size_t kMaxAdviceRows = 10;
constexpr size_t kMaxStalls = 10;
constexpr size_t kMaxFramesPerStall = 16;
constexpr size_t kMaxDevices = 64;
constexpr size_t kMaxWithoutStackNames = 8;
constexpr size_t kMaxGaps = 10;
constexpr size_t kMaxPhaseRows = 20;

// FormatCount, or scientific notation ("1.84e+19") when the grouped digits are wider than `width`.
std::string CountInWidth(uint64_t n, size_t width) {
  std::string text = FormatCount(n);
  if (text.size() > width) text = absl::StrFormat("%.2e", static_cast<double>(n));
  return text;
}

std::string Safe(absl::string_view text, size_t width, Elide elide) {
  return FitWidth(TerminalSafe(text), width, elide);
}

void AppendHeader(std::string& out, const Report& r) {
  absl::StrAppend(&out, "brrr: ", Safe(r.command, kTextReportColumns - 6, Elide::kEnd), "\n");
  if (r.host_only) {
    const std::string reason = r.host_only_reason.empty() ? std::string("reason unknown")
                                                          : TerminalSafe(r.host_only_reason);
    AppendWrapped(out, absl::StrCat("HOST-ONLY: device times are missing (", reason, ")."), "!! ",
                  kTextReportColumns);
    absl::StrAppend(&out,
                    "!! Busy/idle breakdown, kernel times and launch latency were not measured; "
                    "host times are.\n");
  }
  if (r.events.dropped > 0) {
    absl::StrAppend(&out, "WARNING: ", FormatCount(r.events.dropped),
                    " events dropped (see COVERAGE for why): figures are lower bounds\n");
  }
  if (r.end == "running") {
    absl::StrAppend(&out, "wall ", FormatDuration(r.wall_ns), " so far   still running (snapshot)\n");
  } else if (!r.exit_code_known) {
    absl::StrAppend(&out, "wall ", FormatDuration(r.wall_ns), "   exit code unknown (",
                    r.end.empty()    ? "not seen"
                    : r.end == "exec" ? "the process exec'd another program"
                                      : r.end,
                    ")\n");
  } else if (!r.end.empty() && r.end != "exited") {
    absl::StrAppend(&out, "wall ", FormatDuration(r.wall_ns), "   exit code ", r.exit_code, " (",
                    r.end, ")\n");
  } else {
    absl::StrAppend(&out, "wall ", FormatDuration(r.wall_ns), "   exit code ", r.exit_code, "\n");
  }
}

// Which mechanism saw the calls, which calls have no stack, and whether anything could have
// escaped. Absent in reports written before coverage existed.
void AppendCoverage(std::string& out, const Report& r) {
  if (!r.coverage.has_value()) return;
  const Coverage& c = *r.coverage;
  const uint64_t total = c.hooked_calls + c.callback_calls + c.cupti_only_calls;
  absl::StrAppend(&out, "\nCOVERAGE  ", FormatCount(total), " CUDA calls\n");
  AppendWrapped(out,
                absl::StrCat("seen by the runtime hooks ", FormatCount(c.hooked_calls),
                             ", by CUPTI callbacks ", FormatCount(c.callback_calls),
                             ", by CUPTI records only ", FormatCount(c.cupti_only_calls)),
                "  ", kTextReportColumns);
  if (c.calls_without_stack == 0) {
    if (total > 0) absl::StrAppend(&out, "  every call has a stack\n");
  } else {
    std::vector<std::string> names;
    for (size_t i = 0; i < c.without_stack.size() && i < kMaxWithoutStackNames; ++i) {
      names.push_back(absl::StrCat(Safe(c.without_stack[i].api, 40, Elide::kEnd), " ",
                                   FormatCount(c.without_stack[i].calls)));
    }
    std::string line = absl::StrCat("no stack for ", FormatCount(c.calls_without_stack),
                                    " calls: ", absl::StrJoin(names, ", "));
    if (c.without_stack.size() > kMaxWithoutStackNames) {
      absl::StrAppend(&line, ", ... ", c.without_stack.size() - kMaxWithoutStackNames,
                      " more in the JSON");
    }
    AppendWrapped(out, line, "  ", kTextReportColumns);
  }
  if (c.complete && c.gaps.empty()) {
    absl::StrAppend(&out, "  nothing escaped\n");
    return;
  }
  absl::StrAppend(&out, "  could have escaped:\n");
  if (c.gaps.empty()) absl::StrAppend(&out, "  - (reasons not recorded)\n");
  for (size_t i = 0; i < c.gaps.size() && i < kMaxGaps; ++i) {
    const std::string text = TerminalSafe(c.gaps[i]);
    std::string wrapped;
    AppendWrapped(wrapped, text, "    ", kTextReportColumns);
    if (wrapped.size() >= 4) wrapped.replace(2, 1, "-");  // "  - first line", then indented
    out += wrapped;
  }
  if (c.gaps.size() > kMaxGaps) {
    absl::StrAppend(&out, "  ... ", c.gaps.size() - kMaxGaps, " more in the JSON\n");
  }
}

// Whether stacks carry Python frames, and if not or if frames were lost, why (said once). Absent
// in reports written before Python frames existed, and for programs without Python.
void AppendPython(std::string& out, const Report& r) {
  if (!r.python.has_value() ||
      (r.python->status == "none" && r.python->torch_annotations.empty())) {
    return;
  }
  const PythonFrames& p = *r.python;
  absl::StrAppend(&out, "\nPYTHON");
  if (!p.version.empty()) absl::StrAppend(&out, "  ", Safe(p.version, 16, Elide::kEnd));
  if (p.status == "active") absl::StrAppend(&out, "  Python frames in the stacks");
  out += "\n";
  if (!p.note.empty()) AppendWrapped(out, TerminalSafe(p.note), "  ", kTextReportColumns);
  if (p.torch_annotations.empty()) return;
  const std::string torch = absl::StrCat("torch ", Safe(p.torch_version, 32, Elide::kEnd), ": ");
  AppendWrapped(out,
                p.torch_annotations == "active"
                    ? torch + "record_function labels are phases, ProfilerStep#N are steps"
                    : absl::StrCat(torch, "record_function labels not recorded (",
                                   TerminalSafe(p.torch_reason), ")"),
                "  ", kTextReportColumns);
}

// What a capture range let the run record; nothing when it recorded everything.
void AppendCapture(std::string& out, const Report& r) {
  if (!r.capture.has_value() || r.capture->mode == "all") return;
  const Capture& c = *r.capture;
  absl::StrAppend(&out, "\nCAPTURE  ", Safe(c.mode, 32, Elide::kEnd));
  if (!c.nvtx_name.empty()) {
    absl::StrAppend(&out, " \"", Safe(c.nvtx_name, 64, Elide::kEnd), "\"");
  }
  absl::StrAppend(&out, ": ", FormatCount(c.ranges), c.ranges == 1 ? " range, " : " ranges, ",
                  FormatDuration(c.captured_ns), " recorded");
  if (r.wall_ns > 0) absl::StrAppend(&out, " (", FormatPercent(c.captured_ns, r.wall_ns), " of the run)");
  out += "\n";
  absl::StrAppend(&out, "  calls outside were not recorded; ", FormatCount(c.records_dropped),
                  " CUPTI records of such calls dropped\n");
}

// Sampled device tracing: what was traced, and that device figures are estimates from it.
void AppendDeviceSampling(std::string& out, const Report& r) {
  if (!r.device_sampling.has_value()) return;
  const DeviceSampling& s = *r.device_sampling;
  absl::StrAppend(&out, "\nDEVICE SAMPLING  ", absl::StrFormat("%.3g", 100 * s.fraction),
                  s.budget_pct.has_value()
                      ? absl::StrFormat("%% steered under a %.3g%% cost budget: ", *s.budget_pct)
                      : "% asked: ",
                  FormatCount(s.windows), s.windows == 1 ? " window, " : " windows, ",
                  FormatDuration(s.traced_ns), " traced");
  if (s.span_ns > 0) {
    absl::StrAppend(&out, " (", FormatPercent(s.traced_ns, s.span_ns), " of ",
                    FormatDuration(s.span_ns), " from the first CUDA call)");
  } else if (r.wall_ns > 0) {
    absl::StrAppend(&out, " (", FormatPercent(s.traced_ns, r.wall_ns), " of the run)");
  }
  out += "\n";
  const std::string counted =
      s.cupti_detaches == 0
          ? "host calls, launch calls and stalls are all counted."
          : absl::StrCat(
                "calls through the runtime, launch calls and stalls are all counted, but "
                "CUPTI was detached between windows (",
                FormatCount(s.cupti_detaches), s.cupti_detaches == 1 ? " time" : " times",
                ") so that it cost nothing there: driver-API calls outside the "
                "windows (library launches: cuBLAS, Triton, NCCL) were not recorded.");
  if (!s.busy_pct.has_value()) {
    AppendWrapped(out,
                  absl::StrCat("no launch call was traced: the device's busy time and the kernel "
                               "table are unknown (the run ended before a window, or launched "
                               "nothing inside one: trace short runs fully, the default); ",
                               counted),
                  "  ", kTextReportColumns);
    return;
  }
  std::string note =
      absl::StrCat("the windows traced ", FormatCount(s.traced_launches),
                   " launch calls: device busy time and "
                   "the kernel table are scaled by x",
                   absl::StrFormat("%.3g", s.scale), " (launch calls / traced) and are estimates; ",
                   counted, " Device ", s.device, " busy ", absl::StrFormat("%.1f%%", *s.busy_pct));
  if (s.busy_error_points.has_value()) {
    absl::StrAppend(&note, absl::StrFormat(" +/- %.1f points (2 standard errors over ",
                                           *s.busy_error_points),
                    FormatCount(s.error_windows), " windows)");
  } else {
    absl::StrAppend(&note, " (too few windows for an error bound)");
  }
  if (s.calls_classified_early > 0) {
    absl::StrAppend(&note, "; ", FormatCount(s.calls_classified_early),
                    " launch calls were counted inside or outside a window before its record came "
                    "(more waited than the collector keeps): the scale may be off by their share");
  }
  AppendWrapped(out, note, "  ", kTextReportColumns);
}

// brrr's own cost on the run, as measured in it, with how each part was measured.
void AppendOverhead(std::string& out, const Report& r) {
  if (!r.overhead.has_value()) return;
  const Overhead& o = *r.overhead;
  // Each part's share of pct_of_wall (which counts the known parts), so a job's summed parts
  // read against its processes' summed wall as the collector counted them.
  const int64_t known = o.hooks_ns.value_or(0) + o.device_tracing_ns.value_or(0);
  auto share = [&](int64_t ns) {
    return absl::StrFormat("%.1f%%", known > 0 ? o.pct_of_wall * static_cast<double>(ns) /
                                                     static_cast<double>(known)
                                               : 0.0);
  };
  std::string line = absl::StrCat("BRRR'S COST  ", CostHeadline(o), " (hooks ",
                                  o.hooks_ns.has_value() ? share(*o.hooks_ns) : "unknown",
                                  ", device tracing ",
                                  o.device_tracing_ns.has_value() ? share(*o.device_tracing_ns)
                                                                  : "unknown",
                                  ")");
  std::vector<std::string> more;
  if (o.collector_cpu_ns.has_value()) {
    const std::string cpu = absl::StrCat("collector CPU ", FormatDuration(*o.collector_cpu_ns));
    if (line.size() + cpu.size() + 2 <= kTextReportColumns) {
      absl::StrAppend(&line, "; ", cpu);
    } else {
      more.push_back(cpu);
    }
  }
  absl::StrAppend(&out, "\n", line, "\n");
  if (!o.unmeasured.empty()) more.push_back(absl::StrCat("not measured: ", o.unmeasured));
  if (!more.empty()) AppendWrapped(out, TerminalSafe(absl::StrJoin(more, "; ")), "  ", kTextReportColumns);
  AppendWrapped(out, TerminalSafe(o.basis), "  ", kTextReportColumns);
}

std::string PartsSummary(const DeviceBreakdown& d) {
  std::vector<std::string> items;
  for (const BarPart& p : BreakdownParts(d)) {
    if (p.ns == 0 && (p.glyph == kUnaccountedGlyph || p.glyph == kStartupGlyph ||
                      p.glyph == kTeardownGlyph)) {
      continue;
    }
    items.push_back(absl::StrCat(p.label, " ", FormatPercent(p.ns, d.wall_ns)));
  }
  return absl::StrJoin(items, ", ");
}

void AppendVerdict(std::string& out, const Report& r) {
  const std::string regime =
      r.verdict.regime.empty() ? std::string("(none)") : Safe(r.verdict.regime, 80, Elide::kEnd);
  absl::StrAppend(&out, "\nVERDICT: ", regime, "\n");
  if (r.verdict.close) {
    AppendWrapped(out,
                  TerminalSafe(absl::StrCat("(", r.verdict.close_note,
                                            ": runs that differ only by noise may name either)")),
                  "  ", 100);
  }
  if (!r.verdict.why.empty()) AppendWrapped(out, TerminalSafe(r.verdict.why), "  ", 100);
  if (r.verdict.device_regime.has_value()) {
    const DeviceRegime& dr = *r.verdict.device_regime;
    AppendWrapped(out,
                  TerminalSafe(absl::StrCat(Safe(dr.regime, 20, Elide::kEnd), "-bound (",
                                            Safe(dr.basis, 40, Elide::kEnd), "): ", dr.why)),
                  "  ", 100);
  }
  for (size_t i = 0; i < r.devices.size() && i < kMaxDevices; ++i) {
    const DeviceBreakdown& d = r.devices[i];
    AppendWrapped(out, absl::StrCat("device ", d.id, ": ", PartsSummary(d)), "  ",
                  kTextReportColumns);
  }
  if (!r.verdict.advice.empty()) absl::StrAppend(&out, "  advice:\n");
  for (size_t i = 0; i < r.verdict.advice.size() && i < kMaxAdviceRows; ++i) {
    AppendWrapped(out, TerminalSafe(absl::StrCat(i + 1, ". ", r.verdict.advice[i])), "    ", 100);
  }
}

void AppendDevice(std::string& out, const DeviceBreakdown& d) {
  absl::StrAppend(&out, "\nDEVICE ", d.id, TerminalSafe(DeviceOwners(d)), "   wall ", FormatDuration(d.wall_ns),
                  "\n");
  absl::StrAppend(&out, "  |", BreakdownBar(d, kBreakdownBarWidth), "|\n");
  const std::vector<BarPart> parts = BreakdownParts(d);
  int64_t parts_sum = 0;
  for (const BarPart& p : parts) {
    if (p.ns == 0 && (p.glyph == kUnaccountedGlyph || p.glyph == kStartupGlyph ||
                      p.glyph == kTeardownGlyph)) {
      continue;
    }
    if (p.glyph != kUnaccountedGlyph) parts_sum += std::min(p.ns, INT64_MAX - parts_sum);
    absl::StrAppend(&out, "  ", std::string(1, p.glyph), " ", PadRight(p.label, 18),
                    PadLeft(FormatDuration(p.ns), 10), "  ",
                    PadLeft(FormatPercent(p.ns, d.wall_ns), 7), "\n");
  }
  if (parts_sum > d.wall_ns) {
    absl::StrAppend(&out, "  note: the parts add up to ", FormatDuration(parts_sum),
                    ", more than the wall time; the bar is scaled to their sum\n");
  }
}

void AppendDevices(std::string& out, const Report& r) {
  if (const std::string unknown = DeviceViewUnknown(r); !unknown.empty()) {
    out += "\nDEVICES  unknown\n";
    AppendWrapped(out, TerminalSafe(unknown), "  ", kTextReportColumns);
    return;
  }
  if (r.devices.empty()) {
    absl::StrAppend(&out, "\nDEVICES: none recorded", r.host_only ? " (host-only run)" : "", "\n");
    return;
  }
  for (size_t i = 0; i < r.devices.size() && i < kMaxDevices; ++i) AppendDevice(out, r.devices[i]);
  if (r.devices.size() > kMaxDevices) {
    absl::StrAppend(&out, "  ... ", r.devices.size() - kMaxDevices, " more devices in the JSON\n");
  }
  // The legend names the parts as the list does (breakdown_bar.h): the first four always.
  const std::vector<BarPart> parts = BreakdownParts(DeviceBreakdown{});
  std::string legend;
  for (size_t i = 0; i < 4; ++i) {
    absl::StrAppend(&legend, i == 0 ? "" : "  ", std::string(1, parts[i].glyph), " ",
                    parts[i].label);
  }
  absl::StrAppend(&out, "  legend: ", legend, "\n");
  bool apart = false;
  for (const DeviceBreakdown& d : r.devices) apart |= d.startup_ns > 0 || d.teardown_ns > 0;
  if (apart) {
    absl::StrAppend(&out, "          ", std::string(1, kStartupGlyph),
                    " start-up (until CUDA's first call returned)  ",
                    std::string(1, kTeardownGlyph), " teardown (after the last)\n");
  }
  bool unaccounted = false;
  for (const DeviceBreakdown& d : r.devices) unaccounted |= BreakdownParts(d).back().ns > 0;
  if (unaccounted) {
    absl::StrAppend(&out, "          ", std::string(1, kUnaccountedGlyph),
                    " unaccounted (the parts add up to less than the wall)\n");
  }
}

void AppendLatency(std::string& out, const LatencySummary& l) {
  absl::StrAppend(&out, "\nLAUNCH-TO-EXECUTION LATENCY  (", FormatCount(l.count), " kernels)\n");
  if (l.count == 0) {
    absl::StrAppend(&out, "  not measured\n");
    return;
  }
  absl::StrAppend(&out, "  p50 ", FormatDuration(l.p50), "   p90 ", FormatDuration(l.p90),
                  "   p99 ", FormatDuration(l.p99), "   max ", FormatDuration(l.max), "\n");
}

void AppendApiTable(std::string& out, const Report& r) {
  absl::StrAppend(&out, "\nCUDA API  (by total time)\n");
  if (r.api.empty()) {
    absl::StrAppend(&out, "  no CUDA calls recorded\n");
    return;
  }
  std::vector<const ApiStat*> rows;
  for (const ApiStat& a : r.api) rows.push_back(&a);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ApiStat* a, const ApiStat* b) { return a->total_ns > b->total_ns; });
  absl::StrAppend(&out, "  ", PadRight("name", 34), PadRight("category", 10), PadLeft("calls", 14),
                  PadLeft("total", 12), PadLeft("p50", 12), PadLeft("p99", 12), "\n");
  for (size_t i = 0; i < rows.size() && i < kMaxApiRows; ++i) {
    const ApiStat& a = *rows[i];
    absl::StrAppend(&out, "  ", PadRight(Safe(a.name, 33, Elide::kEnd), 34),
                    PadRight(Safe(a.category, 9, Elide::kEnd), 10),
                    PadLeft(CountInWidth(a.calls, 13), 14), PadLeft(FormatDuration(a.total_ns), 12),
                    PadLeft(FormatDuration(a.p50_ns), 12), PadLeft(FormatDuration(a.p99_ns), 12),
                    "\n");
  }
  if (rows.size() > kMaxApiRows) {
    absl::StrAppend(&out, "  ... ", rows.size() - kMaxApiRows, " more in the JSON\n");
  }
}

// Under the kernels table: whether counters were used and what they measured run-wide, what
// SM%/DRAM%/cover are and how samples were joined, or why not.
void AppendKernelCounterNotes(std::string& out, const KernelCounterJoin& j, bool columns,
                              bool shared, bool lower) {
  std::string note = CounterUseNote(j);
  if (j.samples == 0) {
    // Without any sample, why counters were not used says it all.
    if (j.unavailable.empty() || j.samples_unaligned > 0) {
      absl::StrAppend(&note, "counters per kernel: not joined (", FormatCount(j.samples_unaligned),
                      " PM samples): ", j.clock);
    }
  } else {
    absl::StrAppend(
        &note,
        columns ? "SM%/DRAM%: achieved throughput, % of peak, from PM samples over each kernel's "
                  "time while the GPU was active; cover: share of its time sampled. "
                : "counters per kernel: no top kernel ran inside a PM sample. ",
        "Joined ", FormatCount(j.samples), " samples by time (", j.clock, ")");
    if (j.samples_unaligned > 0) {
      absl::StrAppend(&note, "; ", FormatCount(j.samples_unaligned), " samples not aligned");
    }
    if (j.samples_late + j.kernels_late > 0) {
      absl::StrAppend(&note, "; ", FormatCount(j.samples_late), " samples and ",
                      FormatCount(j.kernels_late),
                      " kernels came after the join window moved on (not joined)");
    }
    absl::StrAppend(&note, ".");
    if (shared) {
      absl::StrAppend(&note, " *: other kernels ran inside the same samples (concurrently or one "
                             "after the other): there the figures are the device's.");
    }
    if (lower) {
      absl::StrAppend(&note, " +: lower bound, the samples had no GPU active share.");
    }
  }
  AppendWrapped(out, note, "  ", kTextReportColumns);
}

void AppendKernels(std::string& out, const Report& r) {
  // Launch calls the host made beside those with device records (they differ when device records
  // were lost: a killed app, CUPTI off, a paused stretch; or graphs launch kernels of their own).
  const std::string launches =
      r.kernels.launch_calls > r.kernels.launches
          ? absl::StrCat(FormatCount(r.kernels.launches), " launches with device records of ",
                         FormatCount(r.kernels.launch_calls), " launch calls")
          : absl::StrCat(FormatCount(r.kernels.launches), " launches");
  absl::StrAppend(&out, "\nKERNELS  (", launches, ", ", FormatDuration(r.kernels.device_ns),
                  " on the device)\n");
  if (r.kernels.estimated) {
    out += "  estimated from the traced windows (DEVICE SAMPLING): launches and times scaled\n";
  }
  if (!r.kernels.classes.empty()) {
    // The class split, on one wrapped line: "matmul 62.0% (1,200), pointwise 30.1% (48,000), ...".
    std::vector<std::string> items;
    for (size_t i = 0; i < r.kernels.classes.size() && i < kMaxClassRows; ++i) {
      const KernelClassStat& c = r.kernels.classes[i];
      items.push_back(absl::StrCat(Safe(c.kernel_class, 16, Elide::kEnd), " ",
                                   FormatPercent(c.device_ns, r.kernels.device_ns), " (",
                                   FormatCount(c.launches), ")"));
    }
    AppendWrapped(out, absl::StrCat("by class: ", absl::StrJoin(items, ", ")), "  ",
                  kTextReportColumns);
  }
  if (r.kernels.top.empty()) return;
  std::vector<const KernelStat*> rows;
  for (const KernelStat& k : r.kernels.top) rows.push_back(&k);
  std::stable_sort(rows.begin(), rows.end(), [](const KernelStat* a, const KernelStat* b) {
    return a->device_ns > b->device_ns;
  });
  // Hardware counters per kernel (`brrr run --counters`): three more columns when any was joined.
  bool counters = false;
  for (const KernelStat* k : rows) counters |= k->counter_coverage.has_value();
  const size_t counter_width = counters ? 3 * 7 : 0;
  absl::StrAppend(&out, "  ", PadLeft("launches", 14), PadLeft("device", 11), PadLeft("mean", 11),
                  counters ? absl::StrCat(PadLeft("SM%", 7), PadLeft("DRAM%", 7),
                                          PadLeft("cover", 7))
                           : "",
                  "  ", PadRight("class", 12), "name\n");
  const size_t name_width = kTextReportColumns - 2 - 14 - 11 - 11 - counter_width - 2 - 12;
  bool shared = false, lower = false;
  for (size_t i = 0; i < rows.size() && i < kMaxKernelRows; ++i) {
    const KernelStat& k = *rows[i];
    std::string cells;
    if (counters) {
      // "61.2" (a lower bound: "61.2+"), "-" where the samples gave no value; cover "97%", with
      // "*" when over a tenth of the sampled time was shared with other kernels.
      const auto pct = [&](const std::optional<double>& v) {
        if (!v) return std::string("-");
        return absl::StrFormat("%.1f%s", *v, k.counter_lower_bound ? "+" : "");
      };
      const bool k_shared = k.counter_shared.value_or(0) > 0.1;
      shared |= k_shared;
      lower |= k.counter_lower_bound && k.achieved_sm_pct.has_value();
      cells = absl::StrCat(
          PadLeft(pct(k.achieved_sm_pct), 7), PadLeft(pct(k.achieved_dram_pct), 7),
          PadLeft(k.counter_coverage ? absl::StrFormat("%.0f%%%s", *k.counter_coverage * 100,
                                                       k_shared ? "*" : "")
                                     : std::string("-"),
                  7));
    }
    absl::StrAppend(&out, "  ", PadLeft(CountInWidth(k.launches, 13), 14),
                    PadLeft(FormatDuration(k.device_ns), 11),
                    PadLeft(FormatDuration(k.mean_ns), 11), cells, "  ",
                    PadRight(Safe(k.kernel_class, 11, Elide::kEnd), 12),
                    Safe(k.name, name_width, Elide::kSymbol), "\n");
  }
  if (rows.size() > kMaxKernelRows) {
    absl::StrAppend(&out, "  ... ", rows.size() - kMaxKernelRows, " more in the JSON\n");
  }
  if (r.kernels.counters) AppendKernelCounterNotes(out, *r.kernels.counters, counters, shared, lower);
}

// A stack's frames, numbered from the first that is not CUDA plumbing; the `plumbing` frames that
// lead it (the report says how many) folded into one line; then why it ends early, if it does.
void AppendStack(std::string& out, const std::vector<std::string>& stack, uint32_t plumbing,
                 const std::string& ended_early) {
  if (stack.empty()) {
    if (ended_early.empty()) {
      absl::StrAppend(&out, "       (no stack)\n");
    } else {  // a call seen only in CUPTI's records: why it has none
      AppendWrapped(out, absl::StrCat("(no stack: it ", ended_early, ")"), "       ",
                    kTextReportColumns);
    }
    return;
  }
  const size_t first = plumbing < stack.size() ? plumbing : 0;
  if (first > 0) {
    absl::StrAppend(&out, "       (+", first, " CUDA frame", first == 1 ? "" : "s", ")\n");
  }
  const size_t shown = stack.size() - first;
  for (size_t f = 0; f < shown && f < kMaxFramesPerStall; ++f) {
    absl::StrAppend(&out, "       ", PadRight(absl::StrCat("#", f), 4),
                    Safe(stack[first + f], kTextReportColumns - 11, Elide::kMiddle), "\n");
  }
  if (shown > kMaxFramesPerStall) {
    absl::StrAppend(&out, "       ... ", shown - kMaxFramesPerStall, " more frames\n");
  }
  if (!ended_early.empty()) {
    AppendWrapped(out, absl::StrCat("(the stack ", ended_early, ")"), "       ",
                  kTextReportColumns);
  }
}

void AppendStalls(std::string& out, const Report& r) {
  absl::StrAppend(&out, "\nSTALLS  (host blocked in CUDA, by total time)\n");
  if (r.sync_calls.has_value()) {
    // The exact side of the stalls: what could have waited, whatever the timing.
    AppendWrapped(out,
                  absl::StrCat("syncing calls (can block the host, stalled or not; exact, what "
                               "`brrr diff` gates on): ",
                               FormatCount(r.sync_calls->calls), " at ",
                               FormatCount(r.sync_calls->sites),
                               r.sync_calls->sites == 1 ? " site" : " sites",
                               r.steps.has_value() && r.steps->per_step.sync_calls.has_value()
                                   ? absl::StrFormat(", %.2f per step",
                                                     *r.steps->per_step.sync_calls)
                                   : ""),
                  "  ", kTextReportColumns);
  }
  if (r.stalls.empty()) {
    absl::StrAppend(&out, "  none\n");
    return;
  }
  std::vector<const Stall*> rows;
  for (const Stall& s : r.stalls) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Stall* a, const Stall* b) { return a->total_ns > b->total_ns; });
  for (size_t i = 0; i < rows.size() && i < kMaxStalls; ++i) {
    const Stall& s = *rows[i];
    absl::StrAppend(&out, "  ", i + 1, ". ", Safe(s.api, 32, Elide::kEnd), "  ",
                    Safe(s.reason, 24, Elide::kEnd), "  ", FormatCount(s.calls), " calls  ",
                    FormatDuration(s.total_ns), "\n");
    AppendStack(out, s.stack, s.plumbing_frames, s.ended_early);
  }
  if (rows.size() > kMaxStalls) {
    absl::StrAppend(&out, "  ... ", rows.size() - kMaxStalls, " more in the JSON\n");
  }
}

// Where launches come from: the sampled launch sites with estimated counts. Absent when launch
// sampling was off.
void AppendLaunchSites(std::string& out, const Report& r) {
  if (r.launch_sample_period == 0) return;
  absl::StrAppend(&out, "\nLAUNCH SITES  (sampled 1 in ", FormatCount(r.launch_sample_period),
                  " launches; counts are estimates)\n");
  if (r.launch_sites.empty()) {
    absl::StrAppend(&out, "  none sampled\n");
    return;
  }
  for (size_t i = 0; i < r.launch_sites.size() && i < kMaxStalls; ++i) {
    const LaunchSite& site = r.launch_sites[i];
    absl::StrAppend(&out, "  ", i + 1, ". ~", FormatCount(site.launches), " launches\n");
    if (!site.kernels.empty()) {  // what they ran: the kernel with the most device time
      const LaunchKernel& k = site.kernels.front();
      const std::string more =
          site.kernels.size() > 1
              ? absl::StrCat(" (+", site.kernels.size() - 1,
                             site.kernels.size() == 2 ? " other row)" : " other rows)")
              : "";
      const std::string time =
          absl::StrCat("  ~", FormatDuration(k.device_ns), " on device ", k.device, more);
      absl::StrAppend(&out, "       ran ",
                      Safe(k.name, kTextReportColumns - 11 - time.size(), Elide::kSymbol), time,
                      "\n");
    }
    AppendStack(out, site.stack, site.plumbing_frames, site.ended_early);
  }
  if (r.launch_sites.size() > kMaxStalls) {
    absl::StrAppend(&out, "  ... ", r.launch_sites.size() - kMaxStalls, " more in the JSON\n");
  }
}

// How every stall row's and launch site's stack ends (not only the rows above). Absent when no
// stack was captured.
void AppendStackEnds(std::string& out, const Report& r) {
  if (!r.stack_ends.has_value()) return;
  const StackEnds& e = *r.stack_ends;
  absl::StrAppend(&out, "\nSTACKS  (every stall and launch site, not only those above)\n  ",
                  FormatCount(e.whole), " of ", FormatCount(e.stacks),
                  " reach their thread's start");
  if (e.ended_early.empty()) {
    absl::StrAppend(&out, "\n");
    return;
  }
  absl::StrAppend(&out, "; the others end early:\n");
  for (const StackEnds::Ended& row : e.ended_early) {
    absl::StrAppend(&out, "    ", FormatCount(row.stacks), " ", StackEndWords(row.kind), " (",
                    FormatCount(row.calls), row.calls == 1 ? " call" : " calls", ")\n");
  }
}

// NVTX phases, by wall time. Absent when the run had no NVTX ranges.
void AppendPhases(std::string& out, const Report& r) {
  if (r.phases.empty() && r.phases_over_cap == 0) return;
  absl::StrAppend(&out,
                  "\nPHASES  (NVTX ranges by wall time; a phase includes the phases inside it)\n",
                  r.kernels.estimated
                      ? "  device times estimated from the traced windows (DEVICE SAMPLING)\n"
                      : "");
  std::vector<const Phase*> rows;
  for (const Phase& p : r.phases) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Phase* a, const Phase* b) { return a->wall_ns > b->wall_ns; });
  constexpr size_t kName = 24, kCol = 9;
  absl::StrAppend(&out, std::string(2 + kName + 8 + 4 * kCol, ' '), "device idle while inside\n");
  absl::StrAppend(&out, "  ", PadRight("phase", kName), PadLeft("calls", 8), PadLeft("wall", kCol),
                  PadLeft("launches", kCol), PadLeft("device", kCol), PadLeft("stalls", kCol),
                  PadLeft("launch", kCol), PadLeft("drain", kCol), PadLeft("outside", kCol), "\n");
  for (size_t i = 0; i < rows.size() && i < kMaxPhaseRows; ++i) {
    const Phase& p = *rows[i];
    absl::StrAppend(&out, "  ", PadRight(Safe(p.name, kName - 1, Elide::kMiddle), kName),
                    PadLeft(CountInWidth(p.calls, 7), 8), PadLeft(FormatDuration(p.wall_ns), kCol),
                    PadLeft(CountInWidth(p.launches, kCol - 1), kCol),
                    PadLeft(FormatDuration(p.device_ns), kCol),
                    PadLeft(FormatDuration(p.stall_ns), kCol),
                    PadLeft(FormatDuration(p.idle.launch_bound_ns), kCol),
                    PadLeft(FormatDuration(p.idle.sync_drain_ns), kCol),
                    PadLeft(FormatDuration(p.idle.host_outside_cuda_ns), kCol), "\n");
  }
  if (rows.size() > kMaxPhaseRows) {
    absl::StrAppend(&out, "  ... ", rows.size() - kMaxPhaseRows, " more in the JSON\n");
  }
  if (r.phases_over_cap > 0) {
    absl::StrAppend(&out, "  ", FormatCount(r.phases_over_cap),
                    " ranges beyond the cap on distinct phases: counted only in their parents\n");
  }
}

// The event trace saved with the report: what it kept and, when the cap cut it, what it left out
// and how much of the run the kept events cover.
void AppendTraceSummary(std::string& out, const Report& r) {
  if (!r.trace.has_value()) return;
  const TraceSummary& t = *r.trace;
  absl::StrAppend(&out, "\nTRACE  ", FormatCount(t.kept), " events kept");
  if (t.left_out == 0) {
    absl::StrAppend(&out, ", none left out\n");
    return;
  }
  absl::StrAppend(&out, " (the cap, ", FormatCount(t.cap), "), ", FormatCount(t.left_out),
                  " left out: the kept events span ", FormatDuration(t.span_ns), " of the run's ",
                  FormatDuration(r.wall_ns), "\n");
  AppendWrapped(out,
                "the trace is cut: raise --trace=N (at most 100,000,000) for more; the report "
                "itself counts every event",
                "  ", kTextReportColumns);
}

void AppendEvents(std::string& out, const Report& r) {
  absl::StrAppend(&out, "\nEVENTS  ", FormatCount(r.events.recorded), " recorded, ",
                  FormatCount(r.events.dropped), " dropped\n");
  absl::StrAppend(&out, "  host calls ", FormatCount(r.events.host.recorded), " recorded, ",
                  FormatCount(r.events.host.dropped), " dropped; device records ",
                  FormatCount(r.events.device.recorded), " recorded, ",
                  FormatCount(r.events.device.dropped), " dropped\n");
  if (r.events.dropped > 0) {
    absl::StrAppend(&out, "WARNING: ", FormatCount(r.events.dropped),
                    " events dropped (see COVERAGE for why): figures are lower bounds\n");
  }
}

}  // namespace

std::string RenderText(const Report& report) {
  std::string out;
  AppendHeader(out, report);
  AppendJobText(out, report);  // who this process is, or a job's processes and straggler
  AppendCoverage(out, report);
  AppendPython(out, report);
  AppendCapture(out, report);
  AppendDeviceSampling(out, report);
  AppendVerdict(out, report);
  AppendDevices(out, report);
  AppendStepsText(out, report);
  AppendLatency(out, report.launch_latency_ns);
  AppendApiTable(out, report);
  AppendKernels(out, report);
  AppendStalls(out, report);
  AppendLaunchSites(out, report);
  AppendStackEnds(out, report);
  AppendPhases(out, report);
  AppendEvents(out, report);
  AppendTraceSummary(out, report);
  AppendOverhead(out, report);
  return out;
}

}  // namespace brrr
