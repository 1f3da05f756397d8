// Report -> one self-contained HTML page (`brrr report FILE --html OUT.html`): the verdict with its
// advice at the top, coverage, each device's breakdown bar and timeline, the launch-latency
// histogram, stalls with collapsible stacks, a sortable kernel table (with classes when the report
// has them), API calls, phases, launch sites, a job's processes, and what was dropped or lost.
// Charts are inline SVG (svg_charts.h); the only script sorts tables. The page renders what the
// report says and decides nothing.
//
// Thread safety: pure function.
// Must never: reference anything outside the page (no URL in src/href, nothing fetched), or
// place report text in the page unescaped.
#ifndef BRRR_VIEWER_RENDER_HTML_H_
#define BRRR_VIEWER_RENDER_HTML_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

std::string RenderHtml(const Report& report);

// The report page's <style> element, which the diff page (render_diff.h) shares.
extern const char kReportPageStyle[];

}  // namespace brrr

#endif  // BRRR_VIEWER_RENDER_HTML_H_
