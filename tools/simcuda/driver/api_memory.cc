// Engine API: device and pinned allocations, host registration, pointer classification. Device
// memory is host memory from host_allocator.h, tracked as DEVICE. Must never free memory the engine
// did not allocate, and never free device memory that queued work may still touch.
#include "engine_core.h"
#include "host_allocator.h"
#include "simcuda/engine.h"

using simcuda::Engine;
using simcuda::GetEngine;
using simcuda::MemoryKind;
using simcuda::MemoryRange;

namespace {

simcuda_status Allocate(Engine& engine, size_t bytes, MemoryKind kind, void** out) {
  if (out == nullptr) return SIMCUDA_INVALID_VALUE;
  *out = nullptr;
  if (bytes == 0) return SIMCUDA_SUCCESS;
  if (kind == MemoryKind::kDevice) {
    auto& in_use = engine.device_bytes_in_use();
    if (in_use.fetch_add(bytes) + bytes > SIMCUDA_DEVICE_TOTAL_MEMORY ||
        bytes > SIMCUDA_DEVICE_TOTAL_MEMORY) {
      in_use.fetch_sub(bytes);
      return SIMCUDA_MEMORY_ALLOCATION;
    }
  }
  void* ptr = simcuda::AllocateBytes(bytes);
  if (ptr == nullptr) {
    if (kind == MemoryKind::kDevice) engine.device_bytes_in_use().fetch_sub(bytes);
    return SIMCUDA_MEMORY_ALLOCATION;
  }
  engine.memory().Insert(MemoryRange{reinterpret_cast<uintptr_t>(ptr), bytes, kind, true});
  *out = ptr;
  return SIMCUDA_SUCCESS;
}

}  // namespace

SIMCUDA_ENGINE_API simcuda_status simcuda_device_alloc(size_t bytes, void** out) {
  return Allocate(GetEngine(), bytes, MemoryKind::kDevice, out);
}

SIMCUDA_ENGINE_API simcuda_status simcuda_device_free(void* ptr) {
  Engine& engine = GetEngine();
  if (ptr == nullptr) return SIMCUDA_SUCCESS;
  const auto range = engine.memory().Find(ptr);
  if (!range || range->kind != MemoryKind::kDevice ||
      range->base != reinterpret_cast<uintptr_t>(ptr)) {
    return SIMCUDA_INVALID_VALUE;
  }
  engine.WaitAll();  // cudaFree synchronizes the device
  if (!engine.memory().Erase(ptr, MemoryKind::kDevice)) return SIMCUDA_INVALID_VALUE;  // raced
  simcuda::FreeBytes(ptr, range->size);
  engine.device_bytes_in_use().fetch_sub(range->size);
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_device_free_async(void* ptr, simcuda_stream* stream,
                                                            uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (ptr == nullptr) return SIMCUDA_INVALID_VALUE;
  auto* target = reinterpret_cast<simcuda::Stream*>(stream);
  std::shared_ptr<simcuda::Op> last;
  if (!engine.LastOp(target, &last)) return SIMCUDA_INVALID_RESOURCE_HANDLE;
  const auto range = engine.memory().Erase(ptr, MemoryKind::kDevice);
  if (!range) return SIMCUDA_INVALID_VALUE;
  auto op = std::make_shared<simcuda::Op>();
  op->kind = simcuda::OpKind::kFree;
  op->correlation_id = correlation_id;
  op->dst = ptr;
  op->bytes = range->size;
  if (!engine.Enqueue(target, op)) {  // stream vanished meanwhile: free after all work instead
    engine.WaitAll();
    simcuda::FreeBytes(ptr, range->size);
    engine.device_bytes_in_use().fetch_sub(range->size);
  }
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_host_alloc(size_t bytes, void** out) {
  return Allocate(GetEngine(), bytes, MemoryKind::kPinned, out);
}

SIMCUDA_ENGINE_API simcuda_status simcuda_host_free(void* ptr) {
  Engine& engine = GetEngine();
  if (ptr == nullptr) return SIMCUDA_SUCCESS;
  const auto range = engine.memory().Find(ptr);
  if (!range || range->kind != MemoryKind::kPinned || !range->owned ||
      range->base != reinterpret_cast<uintptr_t>(ptr)) {
    return SIMCUDA_INVALID_VALUE;
  }
  engine.WaitAll();  // cudaFreeHost synchronizes the device
  if (!engine.memory().Erase(ptr, MemoryKind::kPinned)) return SIMCUDA_INVALID_VALUE;
  simcuda::FreeBytes(ptr, range->size);
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_host_register(void* ptr, size_t bytes) {
  Engine& engine = GetEngine();
  if (ptr == nullptr || bytes == 0) return SIMCUDA_INVALID_VALUE;
  const auto existing = engine.memory().Find(ptr);
  if (existing && existing->kind == MemoryKind::kDevice) return SIMCUDA_INVALID_VALUE;
  const bool inserted = engine.memory().Insert(
      MemoryRange{reinterpret_cast<uintptr_t>(ptr), bytes, MemoryKind::kPinned, false});
  return inserted ? SIMCUDA_SUCCESS : SIMCUDA_HOST_MEMORY_ALREADY_REGISTERED;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_host_unregister(void* ptr) {
  Engine& engine = GetEngine();
  const auto range = engine.memory().Find(ptr);
  if (!range || range->kind != MemoryKind::kPinned || range->owned ||
      range->base != reinterpret_cast<uintptr_t>(ptr)) {
    return SIMCUDA_HOST_MEMORY_NOT_REGISTERED;
  }
  engine.memory().Erase(ptr, MemoryKind::kPinned);
  return SIMCUDA_SUCCESS;
}

SIMCUDA_ENGINE_API int simcuda_memory_kind(const void* ptr) {
  return static_cast<int>(GetEngine().memory().KindOf(ptr));
}

SIMCUDA_ENGINE_API size_t simcuda_device_memory_in_use(void) {
  return GetEngine().device_bytes_in_use().load(std::memory_order_relaxed);
}
