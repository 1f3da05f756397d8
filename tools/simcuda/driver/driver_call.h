// Per-call bookkeeping every driver entry point (cu*) does, through simcuda_api_begin/_end: a
// correlation id and the API ENTER callback on entry (before any work); on return the DRIVER API
// activity event with its CUPTI driver callback id and the EXIT callback. Also: engine status ->
// CUresult, stream handles, the initialized state.
// Must never be skipped: every cu* entry point constructs exactly one DriverCall first thing, and
// it reports exactly once (a second Return is not reported; a DriverCall destroyed without Return
// reports CUDA_ERROR_UNKNOWN so the exit is never lost).
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_DRIVER_CALL_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_DRIVER_CALL_H_

#pragma GCC visibility push(default)
#include <cuda.h>
#pragma GCC visibility pop
#include <cupti_driver_cbid.h>

#include <cstdint>

#include "simcuda/engine.h"

// Definitions of driver entry points: exported with C linkage (the library is -fvisibility=hidden).
#define SIMCUDA_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

namespace simcuda::driver {

class DriverCall {
 public:
  explicit DriverCall(uint32_t cbid);
  DriverCall(const DriverCall&) = delete;
  DriverCall& operator=(const DriverCall&) = delete;
  ~DriverCall();

  uint32_t correlation_id() const { return state_.correlation_id; }
  // Reports the call with `result` and returns it.
  CUresult Return(CUresult result);
  // Reports and returns CUDA_ERROR_NOT_INITIALIZED unless the driver is initialized.
  bool NotInitialized(CUresult* result);

 private:
  simcuda_api_call state_;
  bool finished_ = false;
};

// The CUresult of an engine status (engine statuses are cudaError_t values).
CUresult ToCuResult(simcuda_status status);

// True once cuInit succeeded or the engine started through the runtime (the real runtime
// initializes the driver on its first call, so driver calls after runtime calls work).
bool Initialized();
void MarkInitialized();

// Resolves a CUstream (NULL: legacy default stream, or the thread's per-thread default stream in
// the _ptsz/_ptds entry points; CU_STREAM_LEGACY; CU_STREAM_PER_THREAD); nullptr if invalid.
simcuda_stream* ResolveStream(CUstream stream, bool per_thread_default);

// The one context (the device's primary context).
CUcontext PrimaryContext();

}  // namespace simcuda::driver

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_DRIVER_CALL_H_
