// Correlation ids, last-error state and API reporting for runtime calls, and the runtime's lazy
// context creation. The last error is a trivially destructible thread-local; must never allocate.
#include "api_call.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "cbids.h"
#include "simcuda/engine.h"

namespace simcuda::runtime {
namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

// Calls that the real runtime answers without a context: device, version and error queries, and
// the registrations nvcc's code makes at static initialization.
bool NeedsContext(uint32_t cbid) {
  switch (cbid) {
    case kCbid___cudaRegisterFatBinary:
    case kCbid___cudaRegisterFatBinaryEnd:
    case kCbid___cudaRegisterFunction:
    case kCbid___cudaRegisterHostVar:
    case kCbid___cudaRegisterManagedVar:
    case kCbid___cudaRegisterUnifiedTable:
    case kCbid___cudaRegisterVar:
    case kCbid___cudaUnregisterFatBinary:
    case kCbid___cudaPushCallConfiguration:
    case kCbid___cudaPopCallConfiguration:
    case kCbid_cudaGetDeviceCount:
    case kCbid_cudaGetDevice:
    case kCbid_cudaGetDeviceProperties:
    case kCbid_cudaDeviceGetAttribute:
    case kCbid_cudaDriverGetVersion:
    case kCbid_cudaRuntimeGetVersion:
    case kCbid_cudaGetLastError:
    case kCbid_cudaPeekAtLastError:
      return false;
    default:
      return true;
  }
}

// SIMCUDA_CONTEXT_INIT_NS=N: the process's first runtime call that needs a context spends N ns
// creating it, inside the call, as the real runtime does lazily (on an H100 a program's first
// call, cudaFree(NULL), took 200 ms: issue 26). Unset or 0: no cost. Other threads do not wait
// for it (the real driver would make them).
void CreateContextOnce(uint32_t cbid) {
  static const long long init_ns = [] {
    const char* text = std::getenv("SIMCUDA_CONTEXT_INIT_NS");
    return text != nullptr ? std::atoll(text) : 0LL;
  }();
  static std::atomic<bool> created{false};
  if (init_ns <= 0 || created.load(std::memory_order_relaxed) || !NeedsContext(cbid) ||
      created.exchange(true)) {
    return;
  }
  std::this_thread::sleep_for(std::chrono::nanoseconds(init_ns));
}

}  // namespace

ApiCall::ApiCall(uint32_t cbid) {
  simcuda_api_begin(&state_, /*domain=runtime*/ 0, cbid);
  CreateContextOnce(cbid);
}

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

NestedDriverCall::NestedDriverCall(const ApiCall& outer, uint32_t driver_cbid) {
  simcuda_api_nested_begin(&state_, &outer.state(), driver_cbid);
}

void NestedDriverCall::End(int32_t result) {
  if (ended_) return;
  ended_ = true;
  simcuda_api_nested_end(&state_, result);
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
