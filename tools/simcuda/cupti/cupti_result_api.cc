// Exported CUPTI version and result-string functions (cupti_version.h, cupti_result.h).
#include <cupti_result.h>
#include <cupti_version.h>

#include "export.h"
#include "result_names.h"

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result,
                                                               const char** str) {
  const char* name = simcuda::cupti::ResultName(result);
  if (str == nullptr || name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *str = name;
  return CUPTI_SUCCESS;
}

// Real CUPTI 13.0 answers with the same enumerator names here.
SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetErrorMessage(CUptiResult result,
                                                               const char** str) {
  return cuptiGetResultString(result, str);
}
