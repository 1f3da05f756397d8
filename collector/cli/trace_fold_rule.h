// The event trace's rule for CUPTI RUNTIME records inside a hooked call (TraceRecorder::FoldRule),
// from the collector's API catalog: the record of the hooked function itself is the same call
// (folded into it); nvcc's launch configuration inside a launch is part of it (left out); any
// other record is a call of its own (kept).
//
// Must never: call a record the same call unless its callback id names the hooked function.
#ifndef BRRR_COLLECTOR_CLI_TRACE_FOLD_RULE_H_
#define BRRR_COLLECTOR_CLI_TRACE_FOLD_RULE_H_

#include <cstdint>

#include "collector/events.h"
#include "collector/ingest/trace_recorder.h"

namespace brrr::cli {

ingest::TraceRecorder::Fold TraceFoldRule(uint16_t host_api, const ApiActivity& record);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_TRACE_FOLD_RULE_H_
