// What a program asks about its kernels: attributes (cudaFuncGetAttributes, cudaFuncSetAttribute,
// cudaFuncSetCacheConfig) and occupancy (cudaOccupancyMaxActiveBlocksPerMultiprocessor*). Kernels
// run no code here, so every kernel reports the same plausible resource use (32 registers per
// thread, no static shared or local memory) and occupancy follows from it and the device limits.
// Must never accept a function the engine does not know.
#include <algorithm>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

constexpr int kRegistersPerThread = 32;
constexpr int kRegisterAllocationUnit = 256;  // registers are allocated per warp in these units

int RoundUp(int value, int unit) { return (value + unit - 1) / unit * unit; }

// Resident blocks of `block_size` threads per SM: the least of the thread, block, register and
// shared-memory limits (the CUDA occupancy calculator's rule).
int ActiveBlocks(int block_size, size_t dynamic_shared_memory) {
  cudaDeviceProp p;
  simcuda_device_properties(&p);
  const int warps = RoundUp(block_size, p.warpSize) / p.warpSize;
  const int by_threads = p.maxThreadsPerMultiProcessor / (warps * p.warpSize);
  const int registers_per_warp = RoundUp(kRegistersPerThread * p.warpSize, kRegisterAllocationUnit);
  const int by_registers = p.regsPerMultiprocessor / (registers_per_warp * warps);
  const size_t shared_per_block = dynamic_shared_memory + p.reservedSharedMemPerBlock;
  const int by_shared = static_cast<int>(p.sharedMemPerMultiprocessor / shared_per_block);
  return std::min({by_threads, by_registers, by_shared, p.maxBlocksPerMultiProcessor});
}

cudaError_t Occupancy(uint32_t cbid, int* blocks, const void* function, int block_size,
                      size_t dynamic_shared_memory, unsigned flags) {
  ApiCall call(cbid);
  if (blocks == nullptr || block_size <= 0) return call.Return(cudaErrorInvalidValue);
  if ((flags & ~unsigned{cudaOccupancyDisableCachingOverride}) != 0) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (simcuda_kernel_lookup(function) == nullptr) {
    return call.Return(cudaErrorInvalidDeviceFunction);
  }
  if (block_size > 1024 || dynamic_shared_memory > 227u * 1024u) {
    *blocks = 0;  // such a block can never be resident
    return call.Return(cudaSuccess);
  }
  *blocks = ActiveBlocks(block_size, dynamic_shared_memory);
  return call.Return(cudaSuccess);
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* function) {
  ApiCall call(simcuda::runtime::kCbid_cudaFuncGetAttributes);
  if (attr == nullptr) return call.Return(cudaErrorInvalidValue);
  if (simcuda_kernel_lookup(function) == nullptr) {
    return call.Return(cudaErrorInvalidDeviceFunction);
  }
  *attr = cudaFuncAttributes{};
  attr->sharedSizeBytes = 0;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = 0;
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = kRegistersPerThread;
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->cacheModeCA = 0;
  attr->maxDynamicSharedSizeBytes = 48 * 1024;
  attr->preferredShmemCarveout = -1;
  return call.Return(cudaSuccess);
}

// Accepted and ignored (kernels run no code), but validated as CUDA does.
SIMCUDA_EXPORT cudaError_t cudaFuncSetAttribute(const void* function, cudaFuncAttribute attr,
                                                int value) {
  ApiCall call(simcuda::runtime::kCbid_cudaFuncSetAttribute);
  if (simcuda_kernel_lookup(function) == nullptr) {
    return call.Return(cudaErrorInvalidDeviceFunction);
  }
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize && (value < 0 || value > 227 * 1024)) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout && (value < -1 || value > 100)) {
    return call.Return(cudaErrorInvalidValue);
  }
  if (attr < 0 || attr >= cudaFuncAttributeMax) return call.Return(cudaErrorInvalidValue);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaFuncSetCacheConfig(const void* function, cudaFuncCache config) {
  ApiCall call(simcuda::runtime::kCbid_cudaFuncSetCacheConfig);
  if (simcuda_kernel_lookup(function) == nullptr) {
    return call.Return(cudaErrorInvalidDeviceFunction);
  }
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int* blocks, const void* function, int block_size, size_t dynamic_shared_memory) {
  return Occupancy(simcuda::runtime::kCbid_cudaOccupancyMaxActiveBlocksPerMultiprocessor, blocks,
                   function, block_size, dynamic_shared_memory, 0);
}

SIMCUDA_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* function, int block_size, size_t dynamic_shared_memory,
    unsigned int flags) {
  return Occupancy(simcuda::runtime::kCbid_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                   blocks, function, block_size, dynamic_shared_memory, flags);
}
