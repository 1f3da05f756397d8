// What a program asks about a stream: its priority (as created, clamped to [-5, 0]; it never
// changes scheduling here), its flags, its id (the CUPTI stream id of its records) and its device.
// Includes the _ptsz forms (stream 0 = the thread's per-thread default stream). Must never accept a
// destroyed or foreign stream handle.
#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

cudaError_t Info(uint32_t cbid, cudaStream_t stream, bool per_thread_default, unsigned* flags,
                 int* priority, unsigned long long* id, bool output_given) {
  ApiCall call(cbid);
  if (!output_given) return call.Return(cudaErrorInvalidValue);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_stream_info(target, flags, priority, id)));
}

cudaError_t Device(uint32_t cbid, cudaStream_t stream, bool per_thread_default, int* device) {
  ApiCall call(cbid);
  if (device == nullptr) return call.Return(cudaErrorInvalidValue);
  if (simcuda_stream_resolve(stream, per_thread_default ? 1 : 0) == nullptr) {
    return call.Return(cudaErrorInvalidResourceHandle);
  }
  *device = 0;
  return call.Return(cudaSuccess);
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetPriority, stream, false, nullptr, priority,
              nullptr, priority != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int* priority) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetPriority_ptsz, stream, true, nullptr, priority,
              nullptr, priority != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetFlags, stream, false, flags, nullptr, nullptr,
              flags != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned int* flags) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetFlags_ptsz, stream, true, flags, nullptr,
              nullptr, flags != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetId, stream, false, nullptr, nullptr, id,
              id != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t stream, unsigned long long* id) {
  return Info(simcuda::runtime::kCbid_cudaStreamGetId_ptsz, stream, true, nullptr, nullptr, id,
              id != nullptr);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  return Device(simcuda::runtime::kCbid_cudaStreamGetDevice, stream, false, device);
}

SIMCUDA_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t stream, int* device) {
  return Device(simcuda::runtime::kCbid_cudaStreamGetDevice_ptsz, stream, true, device);
}
