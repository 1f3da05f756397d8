// The headline of brrr's cost on a run (Report.overhead): "~0.26% of wall" when every part was
// measured, else "unknown: at least 0.26% of wall". Shared by the text and HTML renderers so both
// say the same.
//
// Must never: present the measured parts as the whole (the largest part, device tracing under
// full tracing, is often the one not measured).
#ifndef BRRR_VIEWER_COST_HEADLINE_H_
#define BRRR_VIEWER_COST_HEADLINE_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

// Plain text: the caller escapes it for its medium.
std::string CostHeadline(const Overhead& overhead);

}  // namespace brrr

#endif  // BRRR_VIEWER_COST_HEADLINE_H_
