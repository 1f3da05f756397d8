// Per-device state a program sets and reads back: the device flags (cudaSetDeviceFlags: the
// schedule bits change how host threads wait: spin and yield keep polling on the CPU, blocking
// sync sleeps; auto sleeps, see the README), limits, cache configuration, memory use
// (cudaMemGetInfo) and cudaDeviceReset. Must never report memory the engine does not account for.
#include <atomic>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

constexpr unsigned kScheduleMask = cudaDeviceScheduleMask;
constexpr unsigned kKnownFlags =
    cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops;

std::atomic<unsigned> g_device_flags{0};
std::atomic<size_t> g_stack_size{1024};
std::atomic<size_t> g_printf_fifo_size{1u << 20};
std::atomic<size_t> g_malloc_heap_size{8u << 20};
std::atomic<int> g_cache_config{cudaFuncCachePreferNone};

int SyncModeOf(unsigned flags) {
  switch (flags & kScheduleMask) {
    case cudaDeviceScheduleSpin:
      return SIMCUDA_SYNC_SPIN;
    case cudaDeviceScheduleYield:
      return SIMCUDA_SYNC_YIELD;
    default:  // auto and blocking sync
      return SIMCUDA_SYNC_BLOCKING;
  }
}

std::atomic<size_t>* Limit(cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize:
      return &g_stack_size;
    case cudaLimitPrintfFifoSize:
      return &g_printf_fifo_size;
    case cudaLimitMallocHeapSize:
      return &g_malloc_heap_size;
    default:
      return nullptr;
  }
}

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaSetDeviceFlags);
  if ((flags & ~kKnownFlags) != 0) return call.Return(cudaErrorInvalidValue);
  const unsigned schedule = flags & kScheduleMask;
  if (schedule != cudaDeviceScheduleAuto && schedule != cudaDeviceScheduleSpin &&
      schedule != cudaDeviceScheduleYield && schedule != cudaDeviceScheduleBlockingSync) {
    return call.Return(cudaErrorInvalidValue);  // more than one schedule bit
  }
  g_device_flags.store(flags, std::memory_order_relaxed);
  simcuda_set_sync_mode(SyncModeOf(flags));
  return call.Return(cudaSuccess);
}

// As in CUDA, cudaDeviceMapHost is always reported (mapped pinned memory is always available).
SIMCUDA_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetDeviceFlags);
  if (flags == nullptr) return call.Return(cudaErrorInvalidValue);
  *flags = g_device_flags.load(std::memory_order_relaxed) | cudaDeviceMapHost;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  ApiCall call(simcuda::runtime::kCbid_cudaMemGetInfo);
  if (free_bytes == nullptr || total_bytes == nullptr) return call.Return(cudaErrorInvalidValue);
  const size_t used = simcuda_device_memory_in_use();
  *total_bytes = SIMCUDA_DEVICE_TOTAL_MEMORY;
  *free_bytes = used >= SIMCUDA_DEVICE_TOTAL_MEMORY ? 0 : SIMCUDA_DEVICE_TOTAL_MEMORY - used;
  return call.Return(cudaSuccess);
}

// Waits for all work and resets the flags, limits and cache configuration. Allocations stay
// valid (the real runtime frees them; a program must not use them after a reset anyway).
SIMCUDA_EXPORT cudaError_t cudaDeviceReset(void) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceReset);
  simcuda_device_synchronize(call.correlation_id());
  g_device_flags.store(0, std::memory_order_relaxed);
  simcuda_set_sync_mode(SIMCUDA_SYNC_BLOCKING);
  g_stack_size.store(1024, std::memory_order_relaxed);
  g_printf_fifo_size.store(1u << 20, std::memory_order_relaxed);
  g_malloc_heap_size.store(8u << 20, std::memory_order_relaxed);
  g_cache_config.store(cudaFuncCachePreferNone, std::memory_order_relaxed);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetLimit);
  if (value == nullptr) return call.Return(cudaErrorInvalidValue);
  std::atomic<size_t>* slot = Limit(limit);
  if (slot == nullptr) return call.Return(cudaErrorUnsupportedLimit);
  *value = slot->load(std::memory_order_relaxed);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceSetLimit);
  std::atomic<size_t>* slot = Limit(limit);
  if (slot == nullptr) return call.Return(cudaErrorUnsupportedLimit);
  slot->store(value, std::memory_order_relaxed);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetCacheConfig);
  if (config == nullptr) return call.Return(cudaErrorInvalidValue);
  *config = static_cast<cudaFuncCache>(g_cache_config.load(std::memory_order_relaxed));
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceSetCacheConfig);
  if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual) {
    return call.Return(cudaErrorInvalidValue);
  }
  g_cache_config.store(config, std::memory_order_relaxed);
  return call.Return(cudaSuccess);
}
