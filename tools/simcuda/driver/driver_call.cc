// DriverCall bookkeeping, the CUresult mapping of engine statuses, and the driver's initialized
// state. Must never allocate per call.
#include "driver_call.h"

#include <atomic>

#include "engine_core.h"

namespace simcuda::driver {
namespace {

std::atomic<bool> g_initialized{false};
int g_primary_context_storage = 0;  // its address is the CUcontext handle

}  // namespace

DriverCall::DriverCall(uint32_t cbid) { simcuda_api_begin(&state_, /*domain=driver*/ 1, cbid); }

DriverCall::~DriverCall() {
  if (!finished_) Return(CUDA_ERROR_UNKNOWN);
}

CUresult DriverCall::Return(CUresult result) {
  if (finished_) return result;
  finished_ = true;
  simcuda_api_end(&state_, static_cast<int32_t>(result));
  return result;
}

bool DriverCall::NotInitialized(CUresult* result) {
  if (Initialized()) return false;
  *result = Return(CUDA_ERROR_NOT_INITIALIZED);
  return true;
}

CUresult ToCuResult(simcuda_status status) {
  switch (status) {
    case SIMCUDA_SUCCESS:
      return CUDA_SUCCESS;
    case SIMCUDA_INVALID_VALUE:
    case SIMCUDA_INVALID_CONFIGURATION:  // the driver reports bad launch dimensions this way
      return CUDA_ERROR_INVALID_VALUE;
    case SIMCUDA_MEMORY_ALLOCATION:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case SIMCUDA_INVALID_DEVICE_FUNCTION:
    case SIMCUDA_INVALID_RESOURCE_HANDLE:
      return CUDA_ERROR_INVALID_HANDLE;
    case SIMCUDA_INVALID_DEVICE:
      return CUDA_ERROR_INVALID_DEVICE;
    case SIMCUDA_NOT_READY:
      return CUDA_ERROR_NOT_READY;
    case SIMCUDA_HOST_MEMORY_ALREADY_REGISTERED:
      return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    case SIMCUDA_HOST_MEMORY_NOT_REGISTERED:
      return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    case SIMCUDA_NOT_SUPPORTED:
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_UNKNOWN;
  }
}

bool Initialized() { return g_initialized.load(std::memory_order_acquire) || EngineStarted(); }

void MarkInitialized() { g_initialized.store(true, std::memory_order_release); }

simcuda_stream* ResolveStream(CUstream stream, bool per_thread_default) {
  return simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
}

CUcontext PrimaryContext() { return reinterpret_cast<CUcontext>(&g_primary_context_storage); }

}  // namespace simcuda::driver
