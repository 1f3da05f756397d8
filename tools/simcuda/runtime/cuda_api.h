// What every runtime source includes: the real CUDA runtime declarations, declared with default
// visibility so that our definitions are exported (the library is built -fvisibility=hidden), the
// engine API, and the per-call bookkeeping. Must never declare a CUDA function itself.
#ifndef BRRR_TOOLS_SIMCUDA_RUNTIME_CUDA_API_H_
#define BRRR_TOOLS_SIMCUDA_RUNTIME_CUDA_API_H_

#pragma GCC visibility push(default)
#include <cuda_runtime_api.h>
#pragma GCC visibility pop

#include "api_call.h"
#include "cbids.h"
#include "simcuda/engine.h"

static_assert(static_cast<int>(SIMCUDA_SUCCESS) == static_cast<int>(cudaSuccess));
static_assert(static_cast<int>(SIMCUDA_INVALID_VALUE) == static_cast<int>(cudaErrorInvalidValue));
static_assert(static_cast<int>(SIMCUDA_MEMORY_ALLOCATION) ==
              static_cast<int>(cudaErrorMemoryAllocation));
static_assert(static_cast<int>(SIMCUDA_INVALID_CONFIGURATION) ==
              static_cast<int>(cudaErrorInvalidConfiguration));
static_assert(static_cast<int>(SIMCUDA_INVALID_DEVICE_FUNCTION) ==
              static_cast<int>(cudaErrorInvalidDeviceFunction));
static_assert(static_cast<int>(SIMCUDA_INVALID_DEVICE) == static_cast<int>(cudaErrorInvalidDevice));
static_assert(static_cast<int>(SIMCUDA_INVALID_RESOURCE_HANDLE) ==
              static_cast<int>(cudaErrorInvalidResourceHandle));
static_assert(static_cast<int>(SIMCUDA_NOT_READY) == static_cast<int>(cudaErrorNotReady));
static_assert(static_cast<int>(SIMCUDA_HOST_MEMORY_ALREADY_REGISTERED) ==
              static_cast<int>(cudaErrorHostMemoryAlreadyRegistered));
static_assert(static_cast<int>(SIMCUDA_HOST_MEMORY_NOT_REGISTERED) ==
              static_cast<int>(cudaErrorHostMemoryNotRegistered));
static_assert(static_cast<int>(SIMCUDA_NOT_SUPPORTED) == static_cast<int>(cudaErrorNotSupported));
static_assert(static_cast<int>(SIMCUDA_COPY_DEFAULT) == static_cast<int>(cudaMemcpyDefault));
static_assert(static_cast<int>(SIMCUDA_COPY_DEVICE_TO_HOST) ==
              static_cast<int>(cudaMemcpyDeviceToHost));
static_assert(static_cast<int>(SIMCUDA_STREAM_NON_BLOCKING) ==
              static_cast<int>(cudaStreamNonBlocking));
static_assert(static_cast<int>(SIMCUDA_EVENT_DISABLE_TIMING) ==
              static_cast<int>(cudaEventDisableTiming));
static_assert(static_cast<int>(SIMCUDA_EVENT_BLOCKING_SYNC) ==
              static_cast<int>(cudaEventBlockingSync));

// Definitions of functions no public header declares (the registration/launch ABI nvcc emits).
#define SIMCUDA_EXPORT extern "C" __attribute__((visibility("default")))

namespace simcuda::runtime {

inline simcuda_dim3 ToDim3(dim3 d) { return simcuda_dim3{d.x, d.y, d.z}; }
inline cudaError_t ToError(simcuda_status status) { return static_cast<cudaError_t>(status); }

}  // namespace simcuda::runtime

#endif  // BRRR_TOOLS_SIMCUDA_RUNTIME_CUDA_API_H_
