// What one recorded call costs the app, measured by the shim at start-up (not a constant from a
// benchmark): the record path of a hook (two host clock reads and one HostRecord appended to a
// ring) timed over a scratch ring in the shim's own memory, 5 batches of 256, the median batch's
// mean. The collector multiplies it by the calls recorded for the report's overhead estimate.
// Stack captures (stalls, 1 in N launches) are not in it.
//
// Runs once, at initialization. Must never: write into the segment's rings, or take more than a
// few hundred microseconds.
#ifndef BRRR_SHIM_SELF_COST_H_
#define BRRR_SHIM_SELF_COST_H_

#include <cstdint>

namespace brrr::shim {

// Nanoseconds per recorded call (at least 1; saturates at UINT32_MAX).
uint32_t MeasureRecordCostNs();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SELF_COST_H_
