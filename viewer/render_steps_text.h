// The STEPS section of the terminal report: a loop's step times, the busy share per step, what a
// step does on average, and the outlier steps with their cause (report.h, StepsSummary).
//
// Must never: print a raw string from the report (names go through TerminalSafe/FitWidth), or
// decide anything the collector did not (the outliers and their causes are the report's).
#ifndef BRRR_VIEWER_RENDER_STEPS_TEXT_H_
#define BRRR_VIEWER_RENDER_STEPS_TEXT_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

// Appends the section when the report has steps.
void AppendStepsText(std::string& out, const Report& r);

}  // namespace brrr

#endif  // BRRR_VIEWER_RENDER_STEPS_TEXT_H_
