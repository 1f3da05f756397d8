// Converting one CUPTI activity record into the ring's DeviceRecord (kernels, copies, memsets,
// synchronizations, runtime and driver API records). Pure: no CUPTI call, no global state, so it is
// unit-tested with hand-made records. Kernel names are handed back to the caller to intern.
//
// Must never: dereference anything but the record itself and a kernel's name, or accept a kind it
// does not know (returns false).
#ifndef BRRR_SHIM_ACTIVITY_CONVERT_H_
#define BRRR_SHIM_ACTIVITY_CONVERT_H_

#include <cupti_activity.h>

#include "shim/ring_format.h"

namespace brrr::shim {

// Fills `out` from `record`; sets *kernel_name for kernel records (else null). False for kinds the
// ring does not carry.
bool ConvertActivity(const CUpti_Activity* record, ring::DeviceRecord* out,
                     const char** kernel_name);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_ACTIVITY_CONVERT_H_
