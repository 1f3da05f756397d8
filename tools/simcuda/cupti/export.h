// SIMCUDA_CUPTI_EXPORT marks a definition of a real CUPTI function as exported from
// libcupti.so (the library builds with hidden visibility; the version script names the rest).
// Only for the functions of the real CUPTI API: nothing else may be exported.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_EXPORT_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_EXPORT_H_

#define SIMCUDA_CUPTI_EXPORT extern "C" __attribute__((visibility("default")))

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_EXPORT_H_
