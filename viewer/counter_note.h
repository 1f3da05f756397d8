// The sentence under a kernels table that says whether hardware counters (`brrr run --counters`)
// were used: their run-wide figures while the GPU was busy, or why they were not used. Shared by
// the text and HTML renderers so both say the same.
//
// Must never: state a figure the report does not hold (absent figures read "unknown").
#ifndef BRRR_VIEWER_COUNTER_NOTE_H_
#define BRRR_VIEWER_COUNTER_NOTE_H_

#include <string>

#include "viewer/format/report.h"

namespace brrr {

// "Hardware counters not used: REASON. ", "Hardware counters while the GPU was busy: SM x %,
// DRAM y % of peak (N samples). ", or "" when the report holds neither; then, when kernels ran on
// devices the counters did not measure, how many ("N kernels (T) ran on devices other than device
// D, ..."). Plain text: the caller escapes it for its medium.
std::string CounterUseNote(const KernelCounterJoin& j);

}  // namespace brrr

#endif  // BRRR_VIEWER_COUNTER_NOTE_H_
