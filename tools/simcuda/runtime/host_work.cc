// Host work in stream order (cudaLaunchHostFunc, cudaStreamAddCallback): the function runs on the
// stream's device thread once the stream's earlier work is done, and later work of the stream
// waits for it to return. Also cudaProfilerStart/Stop, which only mark a capture range for tools
// (the simulated CUPTI reports them as API calls like any other). Must never run a host function
// on the calling thread or before the stream's earlier work completed.
#include <new>

#include "cuda_api.h"
#include "graph_capture.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

struct StreamCallback {
  cudaStreamCallback_t callback;
  cudaStream_t stream;
  void* user_data;
};

void RunStreamCallback(void* arg) {
  StreamCallback* cb = static_cast<StreamCallback*>(arg);
  cb->callback(cb->stream, cudaSuccess, cb->user_data);
  delete cb;
}

cudaError_t LaunchHostFunc(uint32_t cbid, cudaStream_t stream, cudaHostFn_t fn, void* user_data,
                           bool per_thread_default) {
  ApiCall call(cbid);
  if (fn == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  if (simcuda::runtime::IsCapturing(target)) {
    return call.Return(cudaErrorStreamCaptureUnsupported);  // host nodes are not simulated
  }
  return call.Return(ToError(simcuda_host_call(target, fn, user_data, call.correlation_id())));
}

cudaError_t AddCallback(uint32_t cbid, cudaStream_t stream, cudaStreamCallback_t callback,
                        void* user_data, unsigned flags, bool per_thread_default) {
  ApiCall call(cbid);
  if (callback == nullptr || flags != 0) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  if (simcuda::runtime::IsCapturing(target)) {
    return call.Return(cudaErrorStreamCaptureUnsupported);
  }
  auto* cb = new (std::nothrow) StreamCallback{callback, stream, user_data};
  if (cb == nullptr) return call.Return(cudaErrorMemoryAllocation);
  const simcuda_status status =
      simcuda_host_call(target, &RunStreamCallback, cb, call.correlation_id());
  if (status != SIMCUDA_SUCCESS) delete cb;
  return call.Return(ToError(status));
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                                              void* user_data) {
  return LaunchHostFunc(simcuda::runtime::kCbid_cudaLaunchHostFunc, stream, fn, user_data, false);
}

SIMCUDA_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                                   void* user_data) {
  return LaunchHostFunc(simcuda::runtime::kCbid_cudaLaunchHostFunc_ptsz, stream, fn, user_data,
                        true);
}

SIMCUDA_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                 void* user_data, unsigned int flags) {
  return AddCallback(simcuda::runtime::kCbid_cudaStreamAddCallback, stream, callback, user_data,
                     flags, false);
}

SIMCUDA_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                                      cudaStreamCallback_t callback,
                                                      void* user_data, unsigned int flags) {
  return AddCallback(simcuda::runtime::kCbid_cudaStreamAddCallback_ptsz, stream, callback,
                     user_data, flags, true);
}

SIMCUDA_EXPORT cudaError_t cudaProfilerStart(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaProfilerStart);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaProfilerStop(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaProfilerStop);
  return call.Return(cudaSuccess);
}
