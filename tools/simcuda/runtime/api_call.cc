// Correlation ids, last-error state and API reporting for runtime calls. The last error is a
// trivially destructible thread-local; must never allocate.
#include "api_call.h"

#include "simcuda/engine.h"

namespace simcuda::runtime {
namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

}  // namespace

ApiCall::ApiCall(uint32_t cbid) { simcuda_api_begin(&state_, /*domain=runtime*/ 0, cbid); }

ApiCall::~ApiCall() {
  if (!finished_) Finish(cudaErrorUnknown);
}

cudaError_t ApiCall::Return(cudaError_t status) {
  if (finished_) return status;
  if (status != cudaSuccess && status != cudaErrorNotReady) t_last_error = status;
  Finish(status);
  return status;
}

void ApiCall::Finish(cudaError_t status) {
  if (finished_) return;
  finished_ = true;
  simcuda_api_end(&state_, static_cast<int32_t>(status));
}

cudaError_t PeekLastError() { return t_last_error; }

cudaError_t TakeLastError() {
  const cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

int Unsupported(unsigned cbid) {
  ApiCall call(cbid);
  return static_cast<int>(call.Return(cudaErrorNotSupported));
}

}  // namespace simcuda::runtime
