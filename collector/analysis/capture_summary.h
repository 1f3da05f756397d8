// The report's capture line: what a capture range (`brrr run --capture-range`) let the run record,
// from the shim's header (RunInfo capture_*): the mode, the NVTX name, how many ranges opened, the
// host time inside them and the CUPTI records dropped because their call was outside.
//
// Must never: report a mode the header does not state as such (an unknown value says "unknown").
#ifndef BRRR_COLLECTOR_ANALYSIS_CAPTURE_SUMMARY_H_
#define BRRR_COLLECTOR_ANALYSIS_CAPTURE_SUMMARY_H_

#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

Capture SummarizeCapture(const RunInfo& info);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_CAPTURE_SUMMARY_H_
