// Per-call bookkeeping every runtime entry point does: a correlation id and start time on entry;
// on return the thread's last error is updated and the call is reported to the activity sink
// (ActivitySink::OnApiExit, domain runtime). Must never be skipped: every runtime call reports.
#ifndef BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_
#define BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_

#include <driver_types.h>

#include <cstdint>

namespace simcuda::runtime {

class ApiCall {
 public:
  explicit ApiCall(uint32_t cbid);
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  uint32_t correlation_id() const { return correlation_id_; }

  // Records `status` as the thread's last error (unless success or cudaErrorNotReady), reports
  // the call, returns `status`.
  cudaError_t Return(cudaError_t status);
  // For calls that return no cudaError_t: reports with `status` but leaves the last error alone.
  void Finish(cudaError_t status = cudaSuccess);

 private:
  uint32_t cbid_;
  uint32_t correlation_id_;
  uint64_t start_ns_;
};

// The calling thread's last error (cudaGetLastError / cudaPeekAtLastError).
cudaError_t PeekLastError();
cudaError_t TakeLastError();

// Body of every generated cudaErrorNotSupported stub: reports the call, sets the last error.
int Unsupported(unsigned cbid);

}  // namespace simcuda::runtime

#endif  // BRRR_TOOLS_SIMCUDA_RUNTIME_API_CALL_H_
