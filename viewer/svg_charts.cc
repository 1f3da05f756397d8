// Inline SVG charts. See svg_charts.h.
//
// Must never: divide by a zero total, or let a label reach the output unescaped.
#include "viewer/svg_charts.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

std::string Px(double v) { return absl::StrFormat("%.1f", v); }

std::string Rect(double x, double y, double w, double h, const std::string& color,
                 const std::string& title) {
  return absl::StrCat("<rect x=\"", Px(x), "\" y=\"", Px(y), "\" width=\"", Px(w),
                      "\" height=\"", Px(h), "\" fill=\"", HtmlEscape(color), "\"><title>",
                      HtmlEscape(title), "</title></rect>");
}

std::string Text(double x, double y, const std::string& anchor, const std::string& text) {
  return absl::StrCat("<text x=\"", Px(x), "\" y=\"", Px(y), "\" text-anchor=\"", anchor,
                      "\" font-size=\"11\" fill=\"#444\">", HtmlEscape(text), "</text>");
}

std::string Open(int width, int height) {
  return absl::StrCat("<svg width=\"", width,
                      "\" height=\"", height, "\" viewBox=\"0 0 ", width, " ", height,
                      "\" role=\"img\">");
}

}  // namespace

std::string HtmlEscape(absl::string_view text) {
  const std::string safe = TerminalSafe(text);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SvgStackedBar(const std::vector<ChartPart>& parts, const std::vector<int64_t>& values,
                          int width, int height) {
  int64_t total = 0;
  for (int64_t v : values) total += std::max<int64_t>(v, 0);
  std::string out = Open(width, height);
  absl::StrAppend(&out, "<rect width=\"", width, "\" height=\"", height, "\" fill=\"#eee\"/>");
  double x = 0;
  for (size_t i = 0; i < parts.size() && i < values.size() && total > 0; ++i) {
    const int64_t v = std::max<int64_t>(values[i], 0);
    if (v == 0) continue;
    const double w = static_cast<double>(v) / static_cast<double>(total) * width;
    out += Rect(x, 0, w, height, parts[i].color,
                absl::StrCat(parts[i].label, ": ", FormatDuration(v), " (",
                             FormatPercent(v, total), ")"));
    x += w;
  }
  out += "</svg>";
  return out;
}

std::string SvgTimeline(const std::vector<ChartPart>& parts,
                        const std::vector<std::vector<int64_t>>& columns, int64_t bucket_ns,
                        int width, int height) {
  constexpr int kLeft = 36, kBottom = 18, kTop = 4;
  const int plot_w = width - kLeft - 4, plot_h = height - kBottom - kTop;
  std::string out = Open(width, height);
  absl::StrAppend(&out, "<rect x=\"", kLeft, "\" y=\"", kTop, "\" width=\"", plot_w,
                  "\" height=\"", plot_h, "\" fill=\"#f4f4f4\"/>");
  out += Text(kLeft - 4, kTop + 10, "end", "100%");
  out += Text(kLeft - 4, kTop + plot_h, "end", "0%");
  const size_t n = columns.size();
  const double col_w = n == 0 ? 0 : static_cast<double>(plot_w) / static_cast<double>(n);
  for (size_t b = 0; b < n; ++b) {
    int64_t total = 0;
    for (int64_t v : columns[b]) total += std::max<int64_t>(v, 0);
    // A column is the bucket's length (the last one may be shorter: its parts fill less).
    const double scale = static_cast<double>(std::max(total, bucket_ns));
    double y = kTop + plot_h;
    const double x = kLeft + col_w * static_cast<double>(b);
    for (size_t i = 0; i < parts.size() && i < columns[b].size(); ++i) {
      const int64_t v = std::max<int64_t>(columns[b][i], 0);
      if (v == 0) continue;
      const double h = static_cast<double>(v) / scale * plot_h;
      y -= h;
      out += Rect(x, y, std::max(col_w - (n > 60 ? 0.0 : 0.5), 0.5), h, parts[i].color,
                  absl::StrCat(FormatDuration(bucket_ns * static_cast<int64_t>(b)), " - ",
                               FormatDuration(bucket_ns * static_cast<int64_t>(b + 1)), ": ",
                               parts[i].label, " ", FormatDuration(v), " (",
                               FormatPercent(v, bucket_ns), ")"));
    }
  }
  // Time labels: the start, the middle and the end of the run.
  const int64_t run_ns = bucket_ns * static_cast<int64_t>(n);
  out += Text(kLeft, height - 4, "start", "0");
  out += Text(kLeft + plot_w / 2.0, height - 4, "middle", FormatDuration(run_ns / 2));
  out += Text(kLeft + plot_w, height - 4, "end", FormatDuration(run_ns));
  out += "</svg>";
  return out;
}

std::string SvgStepBars(const std::vector<ChartPart>& parts,
                        const std::vector<std::vector<int64_t>>& columns,
                        const std::vector<bool>& marked, int width, int height) {
  constexpr int kLeft = 48, kBottom = 18, kTop = 12;
  const int plot_w = width - kLeft - 4, plot_h = height - kBottom - kTop;
  int64_t tallest = 1;
  for (const std::vector<int64_t>& c : columns) {
    int64_t total = 0;
    for (int64_t v : c) total += std::max<int64_t>(v, 0);
    tallest = std::max(tallest, total);
  }
  std::string out = Open(width, height);
  absl::StrAppend(&out, "<rect x=\"", kLeft, "\" y=\"", kTop, "\" width=\"", plot_w, "\" height=\"",
                  plot_h, "\" fill=\"#f4f4f4\"/>");
  out += Text(kLeft - 4, kTop + 10, "end", FormatDuration(tallest));
  out += Text(kLeft - 4, kTop + plot_h, "end", "0");
  const size_t n = columns.size();
  const double col_w = n == 0 ? 0 : static_cast<double>(plot_w) / static_cast<double>(n);
  for (size_t s = 0; s < n; ++s) {
    double y = kTop + plot_h;
    const double x = kLeft + col_w * static_cast<double>(s);
    for (size_t i = 0; i < parts.size() && i < columns[s].size(); ++i) {
      const int64_t v = std::max<int64_t>(columns[s][i], 0);
      if (v == 0) continue;
      const double h = static_cast<double>(v) / static_cast<double>(tallest) * plot_h;
      y -= h;
      out += Rect(x, y, std::max(col_w - (n > 100 ? 0.0 : 0.5), 0.5), h, parts[i].color,
                  absl::StrCat("step ", s, ": ", parts[i].label, " ", FormatDuration(v)));
    }
    if (s < marked.size() && marked[s]) {
      out += Rect(x, std::max(y - 6, 0.0), std::max(col_w - 0.5, 2.0), 4, "#d62728",
                  absl::StrCat("step ", s, ": an outlier"));
    }
  }
  out += Text(kLeft, height - 4, "start", "step 0");
  out += Text(kLeft + plot_w, height - 4, "end", absl::StrCat("step ", n == 0 ? 0 : n - 1));
  out += "</svg>";
  return out;
}

std::string SvgHistogram(const std::vector<std::string>& labels,
                         const std::vector<uint64_t>& counts, const std::string& color, int width,
                         int height) {
  constexpr int kBottom = 30, kTop = 14;
  const int plot_h = height - kBottom - kTop;
  uint64_t most = 0;
  for (uint64_t c : counts) most = std::max(most, c);
  std::string out = Open(width, height);
  const size_t n = std::min(labels.size(), counts.size());
  const double col_w = n == 0 ? 0 : static_cast<double>(width) / static_cast<double>(n);
  for (size_t i = 0; i < n && most > 0; ++i) {
    const double h = static_cast<double>(counts[i]) / static_cast<double>(most) * plot_h;
    const double x = col_w * static_cast<double>(i);
    out += Rect(x + 2, kTop + plot_h - h, std::max(col_w - 4, 1.0), std::max(h, 1.0), color,
                absl::StrCat(labels[i], ": ", FormatCount(counts[i]), " launches"));
    out += Text(x + col_w / 2, kTop + plot_h - h - 2, "middle", FormatCount(counts[i]));
    out += Text(x + col_w / 2, height - 16, "middle", labels[i]);
  }
  out += "</svg>";
  return out;
}

}  // namespace brrr
