// Rendering a diff. See render_diff.h.
//
// Must never: print a raw string from a report.
#include "viewer/render_diff.h"

#include <cmath>
#include <tuple>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "viewer/folded_stacks.h"
#include "viewer/format/json_object_builder.h"
#include "viewer/render_html.h"
#include "viewer/render_text.h"
#include "viewer/svg_charts.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

constexpr size_t kStallRows = 10;
constexpr size_t kKernelRows = 10;

bool IsDuration(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, "_ns") == 0;
}
bool IsDurationPerStep(const std::string& name) {
  return name.find("_ns_per_step") != std::string::npos;
}

std::string Value(const DiffMetric& m, double v) {
  if (IsDuration(m.name) || IsDurationPerStep(m.name)) {
    return FormatDuration(static_cast<int64_t>(std::llround(v)));
  }
  if (m.name == "device_busy_pct") return absl::StrFormat("%.1f%%", v);
  if (std::fabs(v - std::round(v)) < 1e-9) return FormatCount(static_cast<uint64_t>(std::llround(std::fabs(v))));
  return absl::StrFormat("%.2f", v);
}

// Calls per step (or per run): an integer as one, else two decimals.
std::string Calls(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return FormatCount(static_cast<uint64_t>(std::llround(std::fabs(v))));
  return absl::StrFormat("%.2f", v);
}

std::string Change(const DiffMetric& m) {
  if (m.delta == 0) return "=";
  if (m.name == "device_busy_pct") return absl::StrFormat("%+.1f pts", m.delta);
  if (m.delta_pct.has_value()) return absl::StrFormat("%+.1f%%", *m.delta_pct);
  return absl::StrCat("+", Value(m, m.delta));
}

std::string Leaf(const DiffStall& s) { return absl::StrCat(s.api, " [", s.reason, "]"); }

std::string Where(const DiffStall& s) {
  for (const std::string& frame : s.stack) {
    if (!frame.empty()) return frame;
  }
  return "(no stack)";
}

// "new", "gone", "changed" (calls, or time by 10% or more), or nullptr when the row is alike.
const char* RowChange(const DiffStall& s, bool by_calls) {
  if (s.a_calls_per_step == 0) return "new";
  if (s.b_calls_per_step == 0) return "gone";
  if (by_calls) return std::fabs(s.b_calls_per_step - s.a_calls_per_step) > 1e-9 ? "changed" : nullptr;
  return std::fabs(s.b_ns_per_step - s.a_ns_per_step) > 0.1 * std::max(s.a_ns_per_step, 1.0)
             ? "changed"
             : nullptr;
}

std::string Per(const ReportDiff& d) { return d.basis == "steps" ? "step" : "run"; }

std::string Runs(const ReportDiff& d, uint64_t steps) {
  return d.basis == "steps" ? absl::StrCat(FormatCount(steps), " steps") : "no steps: the whole run";
}

std::string HtmlRows(const std::vector<DiffStall>& rows, bool by_calls) {
  std::string out;
  for (const DiffStall& s : rows) {
    const char* what = RowChange(s, by_calls);
    absl::StrAppend(&out, "<tr><td>", what == nullptr ? "" : what, "</td><td class=\"mono\">",
                    HtmlEscape(Leaf(s)), "</td><td class=\"n\">", HtmlEscape(Calls(s.a_calls_per_step)),
                    "</td><td class=\"n\">", HtmlEscape(Calls(s.b_calls_per_step)),
                    "</td><td class=\"n\">", FormatDuration(std::llround(s.a_ns_per_step)),
                    "</td><td class=\"n\">", FormatDuration(std::llround(s.b_ns_per_step)),
                    "</td><td class=\"mono\">", HtmlEscape(Where(s)), "</td></tr>");
  }
  return out;
}

}  // namespace

std::string RenderDiffHtml(const ReportDiff& d) {
  std::string out = absl::StrCat(
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>brrr diff</title>",
      kReportPageStyle,
      "<style>.sig{color:#b3261e;font-weight:600}</style></head><body><main>");
  absl::StrAppend(&out, "<h1>brrr diff</h1><p class=\"muted\">compared per ", Per(d),
                  d.basis == "steps" ? "" : " (neither run, or only one, has steps)", "</p>");
  for (const auto& [label, command, steps, verdict] :
       {std::tuple<const char*, const std::string*, uint64_t, const std::string*>{
            "A", &d.a_command, d.a_steps, &d.a_verdict},
        {"B", &d.b_command, d.b_steps, &d.b_verdict}}) {
    absl::StrAppend(&out, "<div class=\"verdict\"><b>", label, "</b> <span class=\"cmd\">",
                    HtmlEscape(*command), "</span> <span class=\"muted\">(",
                    HtmlEscape(Runs(d, steps)), ")</span><br>", HtmlEscape(*verdict), "</div>");
  }
  absl::StrAppend(&out, "<h2>Metrics</h2><p class=\"muted\">", HtmlEscape(d.significance_rule),
                  "</p><table id=\"metrics\"><tr><th>metric</th><th>kind</th><th>A</th><th>B</th>"
                  "<th>change</th><th>significant</th><th>how decided</th></tr>");
  for (const DiffMetric& m : d.metrics) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", HtmlEscape(m.name), "</td><td>",
                    m.count ? "count" : "timing", "</td><td class=\"n\">",
                    HtmlEscape(Value(m, m.a)), "</td><td class=\"n\">", HtmlEscape(Value(m, m.b)),
                    "</td><td class=\"n\">", HtmlEscape(Change(m)), "</td><td",
                    m.significant ? " class=\"sig\">yes" : ">no", "</td><td class=\"muted\">",
                    HtmlEscape(m.test), "</td></tr>");
  }
  constexpr char kSiteHeader[] =
      "<tr><th></th><th>call [reason]</th><th>A calls</th><th>B calls</th><th>A time</th>"
      "<th>B time</th><th>where</th></tr>";
  if (!d.sync_sites.empty()) {
    absl::StrAppend(&out, "</table><h2>Syncing calls per ", Per(d),
                    "</h2><p class=\"muted\">Calls that can block the host on the device, stalled "
                    "or not: exact counts.</p><table id=\"sync_sites\">",
                    kSiteHeader, HtmlRows(d.sync_sites, true));
  }
  absl::StrAppend(&out, "</table><h2>Stalls per ", Per(d),
                  "</h2><p class=\"muted\">Calls that waited: whether one does depends on "
                  "timing.</p><table id=\"stalls\">",
                  kSiteHeader, HtmlRows(d.stalls, false));
  absl::StrAppend(&out, "</table><h2>Kernels: device time per ", Per(d),
                  "</h2><table id=\"kernels\"><tr><th>kernel</th><th>A</th><th>B</th></tr>");
  for (const DiffKernel& k : d.kernels) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", HtmlEscape(k.name), "</td><td class=\"n\">",
                    FormatDuration(std::llround(k.a_device_ns_per_step)), "</td><td class=\"n\">",
                    FormatDuration(std::llround(k.b_device_ns_per_step)), "</td></tr>");
  }
  out += "</table></main></body></html>\n";
  return out;
}

std::string RenderDiffText(const ReportDiff& d) {
  std::string out;
  absl::StrAppend(&out, "brrr diff  basis: ", d.basis == "steps" ? "per step" : "whole runs",
                  "\n  A: ", FitWidth(TerminalSafe(d.a_command), 80, Elide::kMiddle), " (",
                  Runs(d, d.a_steps), ")",
                  "\n  B: ", FitWidth(TerminalSafe(d.b_command), 80, Elide::kMiddle), " (",
                  Runs(d, d.b_steps), ")", "\n");
  AppendWrapped(out, TerminalSafe(absl::StrCat("A verdict: ", d.a_verdict)), "  ",
                kTextReportColumns);
  AppendWrapped(out, TerminalSafe(absl::StrCat("B verdict: ", d.b_verdict)), "  ",
                kTextReportColumns);
  absl::StrAppend(&out, "\nMETRICS\n");
  AppendWrapped(out, TerminalSafe(d.significance_rule), "  ", kTextReportColumns);
  absl::StrAppend(&out, "  ", PadRight("name", 44), PadLeft("A", 12), PadLeft("B", 12),
                  PadLeft("change", 11), "\n");
  for (const DiffMetric& m : d.metrics) {
    absl::StrAppend(&out, "  ", PadRight(FitWidth(TerminalSafe(m.name), 43, Elide::kEnd), 44),
                    PadLeft(Value(m, m.a), 12), PadLeft(Value(m, m.b), 12),
                    PadLeft(Change(m), 11),
                    m.significant ? "  significant" : "",
                    !m.significant && absl::StartsWith(m.test, "n too small") ? "  n too small" : "",
                    "\n");
  }
  const auto rows = [&](const std::vector<DiffStall>& list, bool by_calls) {
    int shown = 0;
    std::string text;
    for (const DiffStall& s : list) {
      if (shown == static_cast<int>(kStallRows)) break;
      const char* what = RowChange(s, by_calls);
      if (what == nullptr) continue;
      ++shown;
      absl::StrAppend(&text, "  ", PadRight(what, 7), "  ",
                      FitWidth(TerminalSafe(Leaf(s)), 40, Elide::kEnd), "  calls ",
                      Calls(s.a_calls_per_step), " -> ", Calls(s.b_calls_per_step), ", ",
                      FormatDuration(std::llround(s.a_ns_per_step)), " -> ",
                      FormatDuration(std::llround(s.b_ns_per_step)), "\n           at ",
                      FitWidth(TerminalSafe(Where(s)), 85, Elide::kMiddle), "\n");
    }
    return shown == 0 ? std::string("  none\n") : text;
  };
  if (!d.sync_sites.empty()) {
    absl::StrAppend(&out, "\nSYNCING CALLS  (per ", Per(d),
                    ", exact: calls that can block the host, stalled or not; sites that\n"
                    "  appeared, went or changed)\n",
                    rows(d.sync_sites, true));
  }
  absl::StrAppend(&out, "\nSTALLS  (per ", Per(d),
                  ": those that appeared, went or changed by 10% or more; timing decides which\n"
                  "  calls stall)\n",
                  rows(d.stalls, false));
  if (!d.kernels.empty()) {
    absl::StrAppend(&out, "\nKERNELS  (device time per ", Per(d), ")\n");
    for (size_t i = 0; i < d.kernels.size() && i < kKernelRows; ++i) {
      const DiffKernel& k = d.kernels[i];
      absl::StrAppend(&out, "  ", PadRight(FitWidth(TerminalSafe(k.name), 50, Elide::kEnd), 50),
                      PadLeft(FormatDuration(std::llround(k.a_device_ns_per_step)), 12),
                      PadLeft(FormatDuration(std::llround(k.b_device_ns_per_step)), 12), "\n");
    }
  }
  return out;
}

std::string RenderDiffJson(const ReportDiff& d) {
  using Json = nlohmann::ordered_json;
  Json metrics = Json::array();
  for (const DiffMetric& m : d.metrics) {
    metrics.push_back(
        JsonObjectBuilder(8)
            .Add("name", m.name)
            .Add("kind", m.count ? "count" : "timing")
            .Add("a", m.a)
            .Add("b", m.b)
            .Add("delta", m.delta)
            .Add("delta_pct", m.delta_pct.has_value() ? Json(*m.delta_pct) : Json(nullptr))
            .Add("significant", m.significant)
            .Add("test", m.test)
            .Build());
  }
  const auto sites = [](const std::vector<DiffStall>& rows) {
    Json out = Json::array();
    for (const DiffStall& s : rows) {
      out.push_back(JsonObjectBuilder(7)
                        .Add("reason", s.reason)
                        .Add("api", s.api)
                        .Add("stack", s.stack)
                        .Add("a_calls_per_step", s.a_calls_per_step)
                        .Add("b_calls_per_step", s.b_calls_per_step)
                        .Add("a_ns_per_step", s.a_ns_per_step)
                        .Add("b_ns_per_step", s.b_ns_per_step)
                        .Build());
    }
    return out;
  };
  Json kernels = Json::array();
  for (const DiffKernel& k : d.kernels) {
    kernels.push_back(JsonObjectBuilder(3)
                          .Add("name", k.name)
                          .Add("a_device_ns_per_step", k.a_device_ns_per_step)
                          .Add("b_device_ns_per_step", k.b_device_ns_per_step)
                          .Build());
  }
  auto side = [](const std::string& command, uint64_t steps, const std::string& verdict) {
    return JsonObjectBuilder(3)
        .Add("command", command)
        .Add("steps", steps)
        .Add("verdict", verdict)
        .Build();
  };
  const Json doc = JsonObjectBuilder(10)
                       .Add("schema", kDiffSchema)
                       .Add("basis", d.basis)
                       .Add("a", side(d.a_command, d.a_steps, d.a_verdict))
                       .Add("b", side(d.b_command, d.b_steps, d.b_verdict))
                       .Add("significance_rule", d.significance_rule)
                       .Add("metrics", std::move(metrics))
                       .Add("sync_sites", sites(d.sync_sites))
                       .Add("sync_sites_not_kept", d.sync_sites_not_kept)
                       .Add("stalls", sites(d.stalls))
                       .Add("kernels", std::move(kernels))
                       .Build();
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string RenderFoldedDiff(const ReportDiff& d) {
  std::string out;
  for (const DiffStall& s : d.stalls) {
    absl::StrAppend(&out, FoldedKey(s.stack, 0, Leaf(s)), " ", std::llround(s.a_ns_per_step), " ",
                    std::llround(s.b_ns_per_step), "\n");
  }
  return out;
}

}  // namespace brrr
