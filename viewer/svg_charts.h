// Inline SVG charts for the HTML report, drawn from the report's numbers: a stacked horizontal
// bar (one device's breakdown), stacked columns over time (the timeline) and a bar histogram
// (launch latency). Plain SVG 1.1 elements with a <title> tooltip per shape; no script, no
// external reference.
//
// Thread safety: pure functions.
// Must never: emit a reference to anything outside the document, or unescaped label text.
#ifndef BRRR_VIEWER_SVG_CHARTS_H_
#define BRRR_VIEWER_SVG_CHARTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace brrr {

// `text` escaped for HTML/SVG text and attribute values (&, <, >, ", '); control characters and
// invalid UTF-8 bytes become '?'.
std::string HtmlEscape(absl::string_view text);

struct ChartPart {
  std::string label;  // "busy"
  std::string color;  // "#2e9d5b"
};

// One stacked bar `width` x `height` px: values[i] drawn in parts[i]'s color in proportion to the
// sum; each rectangle's tooltip gives its label, duration and share.
std::string SvgStackedBar(const std::vector<ChartPart>& parts, const std::vector<int64_t>& values,
                          int width, int height);

// Stacked columns, one per bucket (columns[b][i] = part i's nanoseconds in bucket b, each bucket
// `bucket_ns` long), the y axis 0..100% of the bucket, the x axis in time from the run's start.
std::string SvgTimeline(const std::vector<ChartPart>& parts,
                        const std::vector<std::vector<int64_t>>& columns, int64_t bucket_ns,
                        int width, int height);

// One stacked column per step (columns[s][i] = part i's nanoseconds in step s), heights in time
// (the tallest step fills the chart), and a red mark above each step whose `marked` is true (the
// outliers).
std::string SvgStepBars(const std::vector<ChartPart>& parts,
                        const std::vector<std::vector<int64_t>>& columns,
                        const std::vector<bool>& marked, int width, int height);

// Vertical bars of `counts` labelled by `labels`, the tallest bar the largest count.
std::string SvgHistogram(const std::vector<std::string>& labels,
                         const std::vector<uint64_t>& counts, const std::string& color, int width,
                         int height);

}  // namespace brrr

#endif  // BRRR_VIEWER_SVG_CHARTS_H_
