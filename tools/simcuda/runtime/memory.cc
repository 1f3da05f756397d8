// Allocation entry points: device memory (cudaMalloc, stream-ordered cudaMallocAsync/FreeAsync),
// pinned host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister, mapped at the same address),
// managed and pitched allocations, pointer attributes. cudaFree and cudaFreeHost
// synchronize the device, as in CUDA; cudaMalloc never blocks. Must never free memory it did not
// allocate (the engine checks every pointer).
#include <cstdint>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToError;

// simcuda_memory_kind values (CUpti_ActivityMemoryKind).
constexpr int kMemoryKindPinned = 2;
constexpr int kMemoryKindDevice = 3;

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

// Every flag is accepted; the range is pinned and, as on a UVA device, mapped at its own address
// (cudaHostGetDevicePointer returns the host pointer).
SIMCUDA_EXPORT cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostRegister);
  constexpr unsigned kKnownFlags = cudaHostRegisterPortable | cudaHostRegisterMapped |
                                   cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
  if ((flags & ~kKnownFlags) != 0 || ptr == nullptr || size == 0) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(ToError(simcuda_host_register(ptr, size)));
}

// Pinned memory (cudaHostAlloc, cudaMallocHost, cudaHostRegister) is mapped at the same address,
// as with unified addressing; anything else is cudaErrorInvalidValue, as in CUDA.
SIMCUDA_EXPORT cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr,
                                                    unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostGetDevicePointer);
  if (device_ptr == nullptr || host_ptr == nullptr || flags != 0) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (simcuda_memory_kind(host_ptr) != kMemoryKindPinned) return call.Return(cudaErrorInvalidValue);
  *device_ptr = host_ptr;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  ApiCall call(simcuda::runtime::kCbid_cudaHostGetFlags);
  if (flags == nullptr || host_ptr == nullptr) return call.Return(cudaErrorInvalidValue);
  if (simcuda_memory_kind(host_ptr) != kMemoryKindPinned) return call.Return(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return call.Return(cudaSuccess);
}

// Managed memory is device memory the host may also touch (all simulated memory is host memory):
// no page faults, no migration, no prefetch model. Copies treat it as device memory.
SIMCUDA_EXPORT cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaMallocManaged);
  if (ptr == nullptr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(ToError(simcuda_device_alloc(size, ptr)));
}

// Rows padded to the texture pitch alignment (512 bytes), as a real device pads them.
SIMCUDA_EXPORT cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  ApiCall call(simcuda::runtime::kCbid_cudaMallocPitch);
  if (ptr == nullptr || pitch == nullptr) return call.Return(cudaErrorInvalidValue);
  constexpr size_t kAlignment = 512;
  if (width > SIZE_MAX - kAlignment) return call.Return(cudaErrorInvalidValue);
  const size_t row = (width + kAlignment - 1) / kAlignment * kAlignment;
  if (height != 0 && row > SIZE_MAX / height) return call.Return(cudaErrorMemoryAllocation);
  const cudaError_t status = ToError(simcuda_device_alloc(row * height, ptr));
  if (status == cudaSuccess) *pitch = row;
  return call.Return(status);
}

SIMCUDA_EXPORT cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes,
                                                    const void* ptr) {
  ApiCall call(simcuda::runtime::kCbid_cudaPointerGetAttributes);
  if (attributes == nullptr) return call.Return(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  attributes->device = 0;
  switch (simcuda_memory_kind(ptr)) {
    case kMemoryKindDevice:
      attributes->type = cudaMemoryTypeDevice;
      attributes->devicePointer = const_cast<void*>(ptr);
      break;
    case kMemoryKindPinned:
      attributes->type = cudaMemoryTypeHost;
      attributes->devicePointer = const_cast<void*>(ptr);
      attributes->hostPointer = const_cast<void*>(ptr);
      break;
    default:
      attributes->type = cudaMemoryTypeUnregistered;
      attributes->device = -2;
      break;
  }
  return call.Return(cudaSuccess);
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
