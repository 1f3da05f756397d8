// STEPS section. See render_steps_text.h.
//
// Must never: print a raw string from the report.
#include "viewer/render_steps_text.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/render_text.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

constexpr size_t kOutlierRows = 10;

std::string Safe(const std::string& text, size_t width) {
  return FitWidth(TerminalSafe(text), width, Elide::kEnd);
}

std::string Bytes(double b) {
  if (b < 1e3) return absl::StrFormat("%.0f B", b);
  if (b < 1e6) return absl::StrFormat("%.3g kB", b / 1e3);
  if (b < 1e9) return absl::StrFormat("%.3g MB", b / 1e6);
  return absl::StrFormat("%.3g GB", b / 1e9);
}

std::string Ns(double ns) { return FormatDuration(static_cast<int64_t>(std::llround(ns))); }

// The words for a cause (a part's JSON name).
std::string CauseWords(const std::string& cause) {
  if (cause == "host_outside_cuda_ns") return "more host time outside CUDA";
  if (cause == "sync_drain_ns") return "more idle after syncs";
  if (cause == "launch_bound_ns") return "more launch-bound idle";
  if (cause == "busy_ns") return "more device time";
  return TerminalSafe(cause);
}

}  // namespace

void AppendStepsText(std::string& out, const Report& r) {
  if (!r.steps.has_value()) return;
  const StepsSummary& s = *r.steps;
  absl::StrAppend(&out, "\nSTEPS  ", FormatCount(s.count), " (", Safe(s.source, 60), ")");
  if (s.unfinished > 0) absl::StrAppend(&out, ", ", FormatCount(s.unfinished), " unfinished");
  out += "\n";
  if (s.count == 0) return;
  absl::StrAppend(&out, "  step time  p50 ", FormatDuration(s.wall_ns.p50), "   p90 ",
                  FormatDuration(s.wall_ns.p90), "   p99 ", FormatDuration(s.wall_ns.p99),
                  "   max ", FormatDuration(s.wall_ns.max), "   mean ", Ns(s.wall_ns.mean),
                  s.estimated
                      ? absl::StrCat("   (estimated: ", FormatCount(s.kept), " steps kept whole)")
                      : std::string(),
                  "\n");
  const StepsSummary::PerStep& p = s.per_step;
  const double wall = s.wall_ns.mean > 0 ? s.wall_ns.mean : 1;
  absl::StrAppend(&out, "  per step   busy ", Ns(p.busy_ns), " (",
                  absl::StrFormat("%.1f%%", 100 * p.busy_ns / wall), "), launch-bound ",
                  Ns(p.launch_bound_ns), ", sync drain ", Ns(p.sync_drain_ns),
                  ", host outside CUDA ", Ns(p.host_outside_cuda_ns),
                  s.device_parts_scaled ? " (device parts estimated from the traced windows)" : "",
                  "\n", "             ",
                  absl::StrFormat("%.1f", p.launches), " launches, ",
                  absl::StrFormat("%.1f", p.stall_calls), " stalls (", Ns(p.stall_ns), "), H2D ",
                  Bytes(p.h2d_bytes), ", D2H ", Bytes(p.d2h_bytes), "\n");
  AppendWrapped(
      out,
      TerminalSafe(absl::StrCat(s.outliers_total == 0
                                    ? "no outliers"
                                    : absl::StrCat("outliers: ", FormatCount(s.outliers_total)),
                                " (", s.outlier_rule, ")")),
      "  ", kTextReportColumns);
  for (size_t i = 0; i < s.outliers.size() && i < kOutlierRows; ++i) {
    const StepOutlier& o = s.outliers[i];
    absl::StrAppend(&out, "    step ", o.index, "  ", Safe(o.name, 30), "  ",
                    FormatDuration(o.wall_ns), "  ", CauseWords(o.cause), "\n");
    if (!o.top_stall.empty()) {
      absl::StrAppend(&out, "      top stall ", Safe(o.top_stall, kTextReportColumns - 16), "\n");
    }
  }
  if (s.outliers_total > std::min(s.outliers.size(), kOutlierRows)) {
    absl::StrAppend(&out, "    ... ",
                    FormatCount(s.outliers_total - std::min(s.outliers.size(), kOutlierRows)),
                    " more", s.outliers_total > s.outliers.size() ? "" : " in the JSON", "\n");
  }
}

}  // namespace brrr
