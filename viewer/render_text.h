// The report for people, on a terminal: plain text, at most 100 columns, no colours. Sections:
// header (command, host-only banner, dropped-events warning), coverage (which mechanism saw the
// calls, calls without stacks, what could have escaped), verdict with the numbers behind it,
// per-device breakdown bar with legend, launch-to-execution latency, CUDA API table, top kernels,
// top stalls with their stacks, events line.
//
// Thread safety: pure function.
// Must never: pass control characters from report strings to the terminal; crash on any Report
// (including inconsistent ones read from a file).
#ifndef BRRR_VIEWER_RENDER_TEXT_H_
#define BRRR_VIEWER_RENDER_TEXT_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

inline constexpr int kTextReportColumns = 100;
inline constexpr int kBreakdownBarWidth = 60;

// Ends with a newline.
std::string RenderText(const Report& report);

}  // namespace brrr

#endif  // BRRR_VIEWER_RENDER_TEXT_H_
