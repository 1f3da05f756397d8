// Rendering a diff. See render_diff.h.
//
// Must never: print a raw string from a report.
#include "viewer/render_diff.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "viewer/folded_stacks.h"
#include "viewer/format/json_object_builder.h"
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

std::string Value(const std::string& name, double v) {
  if (IsDuration(name) || IsDurationPerStep(name)) {
    return FormatDuration(static_cast<int64_t>(std::llround(v)));
  }
  if (name == "device_busy_pct") return absl::StrFormat("%.1f%%", v);
  if (std::fabs(v - std::round(v)) < 1e-9) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.2f", v);
}

std::string Change(const DiffMetric& m) {
  if (m.delta == 0) return "=";
  if (m.name == "device_busy_pct") return absl::StrFormat("%+.1f pts", m.delta);
  if (m.delta_pct.has_value()) return absl::StrFormat("%+.1f%%", *m.delta_pct);
  return "new";
}

std::string Leaf(const DiffStall& s) { return absl::StrCat(s.api, " [", s.reason, "]"); }

std::string Where(const DiffStall& s) {
  for (const std::string& frame : s.stack) {
    if (!frame.empty()) return frame;
  }
  return "(no stack)";
}

}  // namespace

std::string RenderDiffHtml(const ReportDiff& d) {
  std::string out =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>brrr diff</title><style>"
      "body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
      "text-align:right}td:first-child,th:first-child{text-align:left}.sig{color:#b00;"
      "font-weight:bold}.mono{font-family:monospace;text-align:left}</style></head><body>";
  absl::StrAppend(&out, "<h1>brrr diff</h1><p>basis: ", HtmlEscape(d.basis), "</p><p><b>A</b> ",
                  HtmlEscape(d.a_command), " (", d.a_steps, ")<br>", HtmlEscape(d.a_verdict),
                  "</p><p><b>B</b> ", HtmlEscape(d.b_command), " (", d.b_steps, ")<br>",
                  HtmlEscape(d.b_verdict), "</p>");
  out +=
      "<h2>Metrics</h2><table id=\"metrics\"><tr><th>metric</th><th>A</th><th>B</th>"
      "<th>change</th><th>significant</th></tr>";
  for (const DiffMetric& m : d.metrics) {
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(m.name), "</td><td>",
                    HtmlEscape(Value(m.name, m.a)), "</td><td>", HtmlEscape(Value(m.name, m.b)),
                    "</td><td>", HtmlEscape(Change(m)), "</td><td",
                    m.significant ? " class=\"sig\">yes" : ">no", "</td></tr>");
  }
  out +=
      "</table><h2>Stalls per step</h2><table id=\"stalls\"><tr><th>stall</th><th>A calls</th>"
      "<th>B calls</th><th>A time</th><th>B time</th><th>where</th></tr>";
  for (const DiffStall& s : d.stalls) {
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(Leaf(s)), "</td><td>",
                    absl::StrFormat("%.2f", s.a_calls_per_step), "</td><td>",
                    absl::StrFormat("%.2f", s.b_calls_per_step), "</td><td>",
                    FormatDuration(std::llround(s.a_ns_per_step)), "</td><td>",
                    FormatDuration(std::llround(s.b_ns_per_step)), "</td><td class=\"mono\">",
                    HtmlEscape(Where(s)), "</td></tr>");
  }
  out +=
      "</table><h2>Kernels: device time per step</h2><table id=\"kernels\"><tr><th>kernel"
      "</th><th>A</th><th>B</th></tr>";
  for (const DiffKernel& k : d.kernels) {
    absl::StrAppend(&out, "<tr><td class=\"mono\">", HtmlEscape(k.name), "</td><td>",
                    FormatDuration(std::llround(k.a_device_ns_per_step)), "</td><td>",
                    FormatDuration(std::llround(k.b_device_ns_per_step)), "</td></tr>");
  }
  out += "</table></body></html>\n";
  return out;
}

std::string RenderDiffText(const ReportDiff& d) {
  std::string out;
  absl::StrAppend(&out, "brrr diff  basis: ", d.basis == "steps" ? "per step" : "whole runs",
                  "\n  A: ", FitWidth(TerminalSafe(d.a_command), 80, Elide::kMiddle), " (",
                  FormatCount(d.a_steps), d.basis == "steps" ? " steps)" : ")",
                  "\n  B: ", FitWidth(TerminalSafe(d.b_command), 80, Elide::kMiddle), " (",
                  FormatCount(d.b_steps), d.basis == "steps" ? " steps)" : ")", "\n");
  AppendWrapped(out, TerminalSafe(absl::StrCat("A verdict: ", d.a_verdict)), "  ",
                kTextReportColumns);
  AppendWrapped(out, TerminalSafe(absl::StrCat("B verdict: ", d.b_verdict)), "  ",
                kTextReportColumns);
  absl::StrAppend(&out, "\nMETRICS\n  ", PadRight("name", 26), PadLeft("A", 12), PadLeft("B", 12),
                  PadLeft("change", 11), "\n");
  for (const DiffMetric& m : d.metrics) {
    absl::StrAppend(&out, "  ", PadRight(m.name, 26), PadLeft(Value(m.name, m.a), 12),
                    PadLeft(Value(m.name, m.b), 12), PadLeft(Change(m), 11),
                    m.significant ? "  significant" : "", "\n");
  }
  int shown = 0;
  std::string stalls;
  for (const DiffStall& s : d.stalls) {
    if (shown == static_cast<int>(kStallRows)) break;
    const char* what =
        s.a_calls_per_step == 0   ? "new    "
        : s.b_calls_per_step == 0 ? "gone   "
        : std::fabs(s.b_ns_per_step - s.a_ns_per_step) > 0.1 * std::max(s.a_ns_per_step, 1.0)
            ? "changed"
            : nullptr;
    if (what == nullptr) continue;
    ++shown;
    absl::StrAppend(&stalls, "  ", what, "  ", FitWidth(TerminalSafe(Leaf(s)), 40, Elide::kEnd),
                    "  calls ", absl::StrFormat("%.2f", s.a_calls_per_step), " -> ",
                    absl::StrFormat("%.2f", s.b_calls_per_step), ", ",
                    FormatDuration(std::llround(s.a_ns_per_step)), " -> ",
                    FormatDuration(std::llround(s.b_ns_per_step)), "\n           at ",
                    FitWidth(TerminalSafe(Where(s)), 85, Elide::kMiddle), "\n");
  }
  absl::StrAppend(&out, "\nSTALLS  (per ", d.basis == "steps" ? "step" : "run",
                  ": those that appeared, went or changed by 10% or more)\n",
                  shown == 0 ? "  none\n" : stalls);
  if (!d.kernels.empty()) {
    absl::StrAppend(&out, "\nKERNELS  (device time per ", d.basis == "steps" ? "step" : "run",
                    ")\n");
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
  Json stalls = Json::array();
  for (const DiffStall& s : d.stalls) {
    stalls.push_back(JsonObjectBuilder(7)
                         .Add("reason", s.reason)
                         .Add("api", s.api)
                         .Add("stack", s.stack)
                         .Add("a_calls_per_step", s.a_calls_per_step)
                         .Add("b_calls_per_step", s.b_calls_per_step)
                         .Add("a_ns_per_step", s.a_ns_per_step)
                         .Add("b_ns_per_step", s.b_ns_per_step)
                         .Build());
  }
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
  const Json doc = JsonObjectBuilder(7)
                       .Add("schema", kDiffSchema)
                       .Add("basis", d.basis)
                       .Add("a", side(d.a_command, d.a_steps, d.a_verdict))
                       .Add("b", side(d.b_command, d.b_steps, d.b_verdict))
                       .Add("metrics", std::move(metrics))
                       .Add("stalls", std::move(stalls))
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
