// Engine API: queueing kernels, copies and memsets, with CUDA's blocking rules for copies.
// Validates every pointer range it will touch on the device thread; must never queue a copy or
// memset that could run outside a tracked device allocation.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "clock.h"
#include "cupti_activity.h"
#include "engine_core.h"
#include "simcuda/engine.h"

using simcuda::Engine;
using simcuda::GetEngine;
using simcuda::MemoryKind;
using simcuda::Op;
using simcuda::OpKind;
using simcuda::Stream;

namespace {

Stream* AsStream(simcuda_stream* stream) { return reinterpret_cast<Stream*>(stream); }

bool ValidLaunchConfiguration(simcuda_dim3 grid, simcuda_dim3 block, size_t shared_memory) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return false;
  if (block.x == 0 || block.y == 0 || block.z == 0) return false;
  if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u) return false;
  if (block.x > 1024u || block.y > 1024u || block.z > 64u) return false;
  if (static_cast<uint64_t>(block.x) * block.y * block.z > 1024u) return false;
  return shared_memory <= 227u * 1024u;
}

uint64_t TransferNs(const Engine& engine, size_t bytes) {
  return static_cast<uint64_t>(
      std::llround(static_cast<double>(bytes) / engine.config().copy_gbps));
}

// Classifies `ptr` for a transfer of `bytes`; false when it points into device memory but the
// range runs past the allocation's end.
bool Classify(Engine& engine, const void* ptr, size_t bytes, MemoryKind* kind) {
  const auto range = engine.memory().Find(ptr);
  if (!range) {
    *kind = MemoryKind::kPageable;
    return true;
  }
  *kind = range->kind;
  const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - range->base;
  return bytes <= range->size - offset;
}

// Whether the side a cudaMemcpyKind names agrees with the memory found there.
bool KindAgrees(int kind, bool src_is_device, bool dst_is_device) {
  switch (kind) {
    case SIMCUDA_COPY_HOST_TO_HOST:
      return !src_is_device && !dst_is_device;
    case SIMCUDA_COPY_HOST_TO_DEVICE:
      return !src_is_device && dst_is_device;
    case SIMCUDA_COPY_DEVICE_TO_HOST:
      return src_is_device && !dst_is_device;
    case SIMCUDA_COPY_DEVICE_TO_DEVICE:
      return src_is_device && dst_is_device;
    case SIMCUDA_COPY_DEFAULT:
      return true;
    default:
      return false;
  }
}

uint8_t CopyKind(bool src_is_device, bool dst_is_device) {
  if (src_is_device) {
    return dst_is_device ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  }
  return dst_is_device ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

// Fills a copy's direction and memory kinds, queues it and, as CUDA does, blocks the caller for a
// synchronous copy that touches host memory or an async copy from or to pageable memory.
simcuda_status EnqueueCopy(Engine& engine, simcuda_stream* stream, const std::shared_ptr<Op>& op,
                           MemoryKind src_kind, MemoryKind dst_kind, int async) {
  const bool src_is_device = src_kind == MemoryKind::kDevice;
  const bool dst_is_device = dst_kind == MemoryKind::kDevice;
  op->copy_kind = CopyKind(src_is_device, dst_is_device);
  op->src_kind = static_cast<uint8_t>(src_kind);
  op->dst_kind = static_cast<uint8_t>(dst_kind);
  op->is_async = async != 0;
  if (!engine.Enqueue(AsStream(stream), op)) return SIMCUDA_INVALID_RESOURCE_HANDLE;
  const bool touches_host = !src_is_device || !dst_is_device;
  const bool touches_pageable =
      src_kind == MemoryKind::kPageable || dst_kind == MemoryKind::kPageable;
  if (async != 0 ? touches_pageable : touches_host) engine.Wait(op);
  return SIMCUDA_SUCCESS;
}

}  // namespace

SIMCUDA_ENGINE_API simcuda_status simcuda_launch_kernel_ex(
    simcuda_stream* stream, const simcuda_kernel* kernel, simcuda_dim3 grid, simcuda_dim3 block,
    size_t dynamic_shared_memory, uint32_t correlation_id, const simcuda_launch_info* info) {
  Engine& engine = GetEngine();
  if (kernel == nullptr) return SIMCUDA_INVALID_DEVICE_FUNCTION;
  if (!ValidLaunchConfiguration(grid, block, dynamic_shared_memory)) {
    return SIMCUDA_INVALID_CONFIGURATION;
  }
  if (info == nullptr || info->skip_launch_overhead == 0) {
    simcuda::SpinFor(engine.config().launch_ns);  // the driver's launch path burns host CPU
  }
  auto op = std::make_shared<Op>();
  op->kind = OpKind::kKernel;
  op->kernel = reinterpret_cast<const simcuda::Kernel*>(kernel);
  op->duration_ns = op->kernel->duration_ns;
  op->correlation_id = correlation_id;
  op->grid = grid;
  op->block = block;
  op->dynamic_shared_memory = static_cast<uint32_t>(dynamic_shared_memory);
  if (info != nullptr) {
    op->graph_id = info->graph_id;
    op->graph_node_id = info->graph_node_id;
    op->cooperative = info->cooperative != 0;
  }
  return engine.Enqueue(AsStream(stream), op) ? SIMCUDA_SUCCESS : SIMCUDA_INVALID_RESOURCE_HANDLE;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_launch_kernel(simcuda_stream* stream,
                                                        const simcuda_kernel* kernel,
                                                        simcuda_dim3 grid, simcuda_dim3 block,
                                                        size_t dynamic_shared_memory,
                                                        uint32_t correlation_id) {
  return simcuda_launch_kernel_ex(stream, kernel, grid, block, dynamic_shared_memory,
                                  correlation_id, nullptr);
}

SIMCUDA_ENGINE_API simcuda_status simcuda_memcpy(simcuda_stream* stream, void* dst, const void* src,
                                                 size_t bytes, int kind, int async,
                                                 uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (kind < SIMCUDA_COPY_HOST_TO_HOST || kind > SIMCUDA_COPY_DEFAULT) {
    return SIMCUDA_INVALID_VALUE;  // cudaErrorInvalidMemcpyDirection is not in every version
  }
  if (bytes == 0) {
    std::shared_ptr<Op> last;
    return engine.LastOp(AsStream(stream), &last) ? SIMCUDA_SUCCESS
                                                  : SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  if (dst == nullptr || src == nullptr) return SIMCUDA_INVALID_VALUE;
  MemoryKind src_kind, dst_kind;
  if (!Classify(engine, src, bytes, &src_kind) || !Classify(engine, dst, bytes, &dst_kind)) {
    return SIMCUDA_INVALID_VALUE;
  }
  const bool src_is_device = src_kind == MemoryKind::kDevice;
  const bool dst_is_device = dst_kind == MemoryKind::kDevice;
  if (!KindAgrees(kind, src_is_device, dst_is_device)) return SIMCUDA_INVALID_VALUE;

  auto op = std::make_shared<Op>();
  op->kind = OpKind::kMemcpy;
  op->correlation_id = correlation_id;
  op->duration_ns = TransferNs(engine, bytes);
  op->dst = dst;
  op->src = src;
  op->bytes = bytes;
  return EnqueueCopy(engine, stream, op, src_kind, dst_kind, async);
}

SIMCUDA_ENGINE_API simcuda_status simcuda_memset(simcuda_stream* stream, void* dst, int value,
                                                 size_t bytes, int async, uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (bytes == 0) {
    std::shared_ptr<Op> last;
    return engine.LastOp(AsStream(stream), &last) ? SIMCUDA_SUCCESS
                                                  : SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  MemoryKind kind;
  if (dst == nullptr || !Classify(engine, dst, bytes, &kind) || kind != MemoryKind::kDevice) {
    return SIMCUDA_INVALID_VALUE;
  }
  auto op = std::make_shared<Op>();
  op->kind = OpKind::kMemset;
  op->correlation_id = correlation_id;
  op->duration_ns = TransferNs(engine, bytes);
  op->dst = dst;
  op->bytes = bytes;
  op->value = value & 0xff;
  op->is_async = async != 0;
  return engine.Enqueue(AsStream(stream), op) ? SIMCUDA_SUCCESS : SIMCUDA_INVALID_RESOURCE_HANDLE;
}

SIMCUDA_ENGINE_API simcuda_status simcuda_memcpy_2d(simcuda_stream* stream, void* dst,
                                                    size_t dst_pitch, const void* src,
                                                    size_t src_pitch, size_t width, size_t height,
                                                    int kind, int async, uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (kind < SIMCUDA_COPY_HOST_TO_HOST || kind > SIMCUDA_COPY_DEFAULT) return SIMCUDA_INVALID_VALUE;
  if (width > dst_pitch || width > src_pitch) return SIMCUDA_INVALID_PITCH_VALUE;
  if (width == 0 || height == 0) {
    std::shared_ptr<Op> last;
    return engine.LastOp(AsStream(stream), &last) ? SIMCUDA_SUCCESS
                                                  : SIMCUDA_INVALID_RESOURCE_HANDLE;
  }
  if (dst == nullptr || src == nullptr) return SIMCUDA_INVALID_VALUE;
  if (height - 1 > (SIZE_MAX - width) / std::max(dst_pitch, src_pitch)) {
    return SIMCUDA_INVALID_VALUE;
  }
  const size_t dst_span = dst_pitch * (height - 1) + width;
  const size_t src_span = src_pitch * (height - 1) + width;
  MemoryKind src_kind, dst_kind;
  if (!Classify(engine, src, src_span, &src_kind) || !Classify(engine, dst, dst_span, &dst_kind)) {
    return SIMCUDA_INVALID_VALUE;
  }
  const bool src_is_device = src_kind == MemoryKind::kDevice;
  const bool dst_is_device = dst_kind == MemoryKind::kDevice;
  if (!KindAgrees(kind, src_is_device, dst_is_device)) return SIMCUDA_INVALID_VALUE;

  auto op = std::make_shared<Op>();
  op->kind = OpKind::kMemcpy;
  op->correlation_id = correlation_id;
  op->bytes = width * height;
  op->duration_ns = TransferNs(engine, op->bytes);
  op->dst = dst;
  op->src = src;
  op->height = height;
  op->dst_pitch = dst_pitch;
  op->src_pitch = src_pitch;
  return EnqueueCopy(engine, stream, op, src_kind, dst_kind, async);
}

SIMCUDA_ENGINE_API simcuda_status simcuda_host_call(simcuda_stream* stream, void (*host_fn)(void*),
                                                    void* arg, uint32_t correlation_id) {
  Engine& engine = GetEngine();
  if (host_fn == nullptr) return SIMCUDA_INVALID_VALUE;
  auto op = std::make_shared<Op>();
  op->kind = OpKind::kHostFunc;
  op->correlation_id = correlation_id;
  op->host_fn = host_fn;
  op->host_arg = arg;
  return engine.Enqueue(AsStream(stream), op) ? SIMCUDA_SUCCESS : SIMCUDA_INVALID_RESOURCE_HANDLE;
}
