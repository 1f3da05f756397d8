// Allocation entry points: device memory (cudaMalloc, stream-ordered cudaMallocAsync/FreeAsync),
// pinned host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister). cudaFree and cudaFreeHost
// synchronize the device, as in CUDA; cudaMalloc never blocks. Must never free memory it did not
// allocate (the engine checks every pointer).
#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

cudaError_t MallocAsync(uint32_t cbid, void** ptr, size_t size, cudaStream_t stream,
                        bool per_thread_default) {
  ApiCall call(cbid);
  if (ptr == nullptr) return call.Return(cudaErrorInvalidValue);
  if (simcuda_stream_resolve(stream, per_thread_default ? 1 : 0) == nullptr) {
    return call.Return(cudaErrorInvalidResourceHandle);
  }
  // The memory exists at once; using it in stream order is the program's business, as in CUDA.
  return call.Return(ToError(simcuda_device_alloc(size, ptr)));
}

cudaError_t FreeAsync(uint32_t cbid, void* ptr, cudaStream_t stream, bool per_thread_default) {
  ApiCall call(cbid);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  return call.Return(ToError(simcuda_device_free_async(ptr, target, call.correlation_id())));
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaMalloc(void** ptr, size_t size) {
  ApiCall call(simcuda::runtime::kCbid_cudaMalloc);
  return call.Return(ToError(simcuda_device_alloc(size, ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaFree(void* ptr) {
  ApiCall call(simcuda::runtime::kCbid_cudaFree);
  return call.Return(ToError(simcuda_device_free(ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaMallocHost(void** ptr, size_t size) {
  ApiCall call(simcuda::runtime::kCbid_cudaMallocHost);
  return call.Return(ToError(simcuda_host_alloc(size, ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostAlloc);
  constexpr unsigned kKnownFlags =
      cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if ((flags & ~kKnownFlags) != 0) return call.Return(cudaErrorInvalidValue);
  return call.Return(ToError(simcuda_host_alloc(size, ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaFreeHost(void* ptr) {
  ApiCall call(simcuda::runtime::kCbid_cudaFreeHost);
  return call.Return(ToError(simcuda_host_free(ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int /*flags*/) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostRegister);
  return call.Return(ToError(simcuda_host_register(ptr, size)));
}

SIMCUDA_EXPORT cudaError_t cudaHostUnregister(void* ptr) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostUnregister);
  return call.Return(ToError(simcuda_host_unregister(ptr)));
}

SIMCUDA_EXPORT cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  return MallocAsync(simcuda::runtime::kCbid_cudaMallocAsync, ptr, size, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream) {
  return MallocAsync(simcuda::runtime::kCbid_cudaMallocAsync_ptsz, ptr, size, stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  return FreeAsync(simcuda::runtime::kCbid_cudaFreeAsync, ptr, stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
  return FreeAsync(simcuda::runtime::kCbid_cudaFreeAsync_ptsz, ptr, stream, true);
}
