// The report's Python line: what the shim's header says of the Python frames (RunInfo python_*)
// turned into a status word, a version and, when stacks are native only or frames were lost, one
// sentence saying why.
//
// Must never: claim Python frames the run did not have, or leave a native-only run unexplained.
#ifndef BRRR_COLLECTOR_ANALYSIS_PYTHON_SUMMARY_H_
#define BRRR_COLLECTOR_ANALYSIS_PYTHON_SUMMARY_H_

#include <cstdint>
#include <string>

#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

// "3.12.1", "3.14.0a1" for a PY_VERSION_HEX; "" for 0.
std::string PythonVersionText(uint32_t version_hex);

PythonFrames SummarizePython(const RunInfo& info);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_PYTHON_SUMMARY_H_
