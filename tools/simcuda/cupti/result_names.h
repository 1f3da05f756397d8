// Result names: the string real cuptiGetResultString returns for each CUptiResult (its enumerator
// name, e.g. "CUPTI_ERROR_INVALID_KIND"). Pure lookup; never allocates.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_RESULT_NAMES_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_RESULT_NAMES_H_

#include <cupti_result.h>

namespace simcuda::cupti {

// nullptr for a value that is no CUptiResult.
const char* ResultName(CUptiResult result);

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_RESULT_NAMES_H_
