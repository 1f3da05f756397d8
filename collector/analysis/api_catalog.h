// The catalog of CUDA API calls brrr knows: a name and a category for every hooked Api, and names
// for CUPTI runtime/driver callback ids (calls seen only through CUPTI). Pure lookup tables.
//
// Must never: allocate per lookup, or fail: an unknown id gets a readable placeholder.
#ifndef BRRR_COLLECTOR_ANALYSIS_API_CATALOG_H_
#define BRRR_COLLECTOR_ANALYSIS_API_CATALOG_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "collector/events.h"

namespace brrr {

enum class ApiCategory : uint8_t { kLaunch, kCopy, kMemset, kSync, kAlloc, kFree, kQuery, kOther };

// "launch", "copy", ... as in the report schema.
std::string_view CategoryName(ApiCategory category);

// Hooked APIs: "__cudaLaunchKernel", "cudaMemcpyAsync_ptsz", ...; "unknown" for kUnknown or an
// out-of-range value.
std::string_view ApiName(Api api);
ApiCategory CategoryOf(Api api);

// True for the synchronous copy entry points (cudaMemcpy, cudaMemcpy2D, ..., and their _ptds
// forms).
bool IsSynchronousCopy(Api api);
// True for the asynchronous copy entry points (cudaMemcpyAsync, ... and their _ptsz forms).
bool IsAsyncCopy(Api api);

// CUPTI callback ids. Runtime names drop CUPTI's version suffix ("cudaMemcpy_v3020" ->
// "cudaMemcpy"); driver names are the real symbols ("cuMemcpyDtoH_v2"). Empty when unknown.
std::string_view RuntimeCbidName(uint32_t cbid);
std::string_view DriverCbidName(uint32_t cbid);
// The hooked Api a CUPTI runtime callback id stands for, or Api::kUnknown.
Api ApiFromRuntimeCbid(uint32_t cbid);
// The same for a CUPTI callback id of either domain: a driver function is never a hooked Api.
inline Api ApiFromCbid(bool driver, uint32_t cbid) {
  return driver ? Api::kUnknown : ApiFromRuntimeCbid(cbid);
}
// Display name for a CUPTI-seen call: the cbid's name, or "cbid:<n>" / "driver cbid:<n>".
std::string CuptiCallName(bool driver, uint32_t cbid);
// True for nvcc's launch-configuration calls (__cudaPushCallConfiguration,
// __cudaPopCallConfiguration): two ~30 ns runtime calls inside every <<<>>> launch, which start
// no work and are not hooked. The analysis folds them into their launch.
bool IsLaunchConfigurationCall(bool driver, uint32_t cbid);
// Category from an API name (used for calls that are not hooked Apis).
ApiCategory CategoryFromName(std::string_view name);
// Category of a CUPTI-seen call (table lookup; kOther when unknown).
ApiCategory CuptiCallCategory(bool driver, uint32_t cbid);
// True for calls that may start several kernels under one correlation id (graph launches,
// multi-device cooperative launches).
bool CuptiCallMayLaunchMany(bool driver, uint32_t cbid);
// The same for a hooked Api: the graph launches.
inline bool MayLaunchMany(Api api) {
  return api == Api::kCudaGraphLaunch || api == Api::kCudaGraphLaunchPtsz;
}

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_API_CATALOG_H_
