// Per-call bookkeeping every runtime entry point does, through simcuda_api_begin/_end: a
// correlation id and the API ENTER callback on entry (before any work); on return the thread's
// last error is updated, the call is reported to the activity sink (ActivitySink::OnApiExit,
// domain runtime) and the EXIT callback runs. Must never be skipped: every runtime entry point
// constructs exactly one ApiCall first thing, and it reports exactly once (a second Return/Finish
// is not reported; an ApiCall destroyed unfinished reports cudaErrorUnknown).
#ifndef BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_
#define BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_

#include <driver_types.h>

#include <cstdint>

#include "simcuda/engine.h"

namespace simcuda::runtime {

class ApiCall {
 public:
  explicit ApiCall(uint32_t cbid);
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;
  ~ApiCall();

  uint32_t correlation_id() const { return state_.correlation_id; }
  const simcuda_api_call& state() const { return state_; }

  // Records `status` as the thread's last error (unless success or cudaErrorNotReady), reports
  // the call, returns `status`.
  cudaError_t Return(cudaError_t status);
  // For calls that return no cudaError_t: reports with `status` but leaves the last error alone.
  void Finish(cudaError_t status = cudaSuccess);

 private:
  simcuda_api_call state_;
  bool finished_ = false;
};

// A driver function a runtime call makes (simcuda_api_nested_begin/_end): its driver-domain
// callbacks, with the runtime call's correlation id, from construction to End (or destruction);
// no activity record of its own.
class NestedDriverCall {
 public:
  NestedDriverCall(const ApiCall& outer, uint32_t driver_cbid);
  NestedDriverCall(const NestedDriverCall&) = delete;
  NestedDriverCall& operator=(const NestedDriverCall&) = delete;
  ~NestedDriverCall() { End(0); }

  void End(int32_t result);

 private:
  simcuda_api_call state_;
  bool ended_ = false;
};

// The calling thread's last error (cudaGetLastError / cudaPeekAtLastError).
cudaError_t PeekLastError();
cudaError_t TakeLastError();

// Body of every generated cudaErrorNotSupported stub: reports the call, sets the last error.
int Unsupported(unsigned cbid);

}  // namespace simcuda::runtime

#endif  // BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_
