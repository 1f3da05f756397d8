// Names of runtime and driver API callback ids, from tables generated out of the toolkit's
// cupti_runtime_cbid.h / cupti_driver_cbid.h (generate_callback_names.cmake). Pure lookups:
// must never allocate, lock or fail loudly (unknown ids give nullptr).
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_NAMES_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_NAMES_H_

#include <cupti_callbacks.h>

#include <cstdint>

namespace simcuda::cupti {

// The API function's name as CUpti_CallbackData::functionName gives it: "cudaStreamSynchronize"
// (runtime: the callback id's name without its _v<version> suffix, so the _ptsz forms are
// "cudaStreamSynchronize_ptsz"), "cuStreamSynchronize", "cuMemcpyDtoH_v2" (driver: the exported
// symbol's name). nullptr for an id the domain does not define, or a domain other than
// RUNTIME_API / DRIVER_API. The strings are static.
const char* ApiFunctionName(CUpti_CallbackDomain domain, uint32_t cbid);

// The callback id's name, the enumerator without its CUPTI_*_TRACE_CBID_ prefix
// ("cudaStreamSynchronize_v3020", "cuMemAlloc_v2"), as cuptiGetCallbackName returns it.
// Same domains and nullptr rule as above.
const char* CallbackIdName(CUpti_CallbackDomain domain, uint32_t cbid);

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_NAMES_H_
