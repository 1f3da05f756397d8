// `brrr diff` rendered: text for a terminal, JSON "brrr.diff/1", and the stall stacks as folded
// `stack a b` lines (flamegraph's difffolded format, for a red/blue differential flame graph).
//
// Must never: decide anything (significance and matching are ReportDiff's), or print a raw
// string from a report (TerminalSafe; JSON escapes its own).
#ifndef BRRR_VIEWER_RENDER_DIFF_H_
#define BRRR_VIEWER_RENDER_DIFF_H_

#include <string>

#include "viewer/format/diff.h"

namespace brrr {

std::string RenderDiffText(const ReportDiff& diff);
std::string RenderDiffJson(const ReportDiff& diff);
// One self-contained HTML page: the verdicts, the metrics, the stalls and kernels side by side.
std::string RenderDiffHtml(const ReportDiff& diff);
// Per line: frames outermost first joined by ';', the leaf "API [reason]", then A's and B's
// stall nanoseconds per step (rounded).
std::string RenderFoldedDiff(const ReportDiff& diff);

}  // namespace brrr

#endif  // BRRR_VIEWER_RENDER_DIFF_H_
