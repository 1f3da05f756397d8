// What each hook family writes into its HostRecord beyond the common fields (api, timestamps,
// result): stream and its flags, bytes, target, copy direction and the host memory kind. One small
// inline function per family, named in the `extract` column of hooks.def. They run on the hot path
// after the real call returned.
//
// Host memory kind: pinned when the host pointer lies in a range the hooks saw being pinned
// (cudaMallocHost / cudaHostAlloc / cudaHostRegister), else pageable. The real answer needs
// cudaPointerGetAttributes, a CUDA call we never make on the hot path; CUPTI memcpy records
// (srcKind/dstKind) carry the truth when CUPTI is on.
//
// Must never: call CUDA, allocate, lock, or dereference an argument the real call did not accept
// (out-parameters are read only when the call succeeded; struct pointers are null-checked).
#ifndef BRRR_SHIM_HOOK_EXTRACT_H_
#define BRRR_SHIM_HOOK_EXTRACT_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "shim/pinned_ranges.h"
#include "shim/ring_format.h"

namespace brrr::shim {

// Pinned host ranges seen by the allocation hooks (one per process).
extern PinnedRanges g_pinned_ranges;

inline uint32_t StreamFlags(const void* stream, bool per_thread_variant) {
  const uintptr_t s = reinterpret_cast<uintptr_t>(stream);
  uint32_t flags = 0;
  if (per_thread_variant || s == reinterpret_cast<uintptr_t>(cudaStreamPerThread)) {
    flags |= ring::kRecordPerThreadStream;
  }
  if ((s == 0 && !per_thread_variant) || s == reinterpret_cast<uintptr_t>(cudaStreamLegacy)) {
    flags |= ring::kRecordLegacyStream;
  }
  return flags;
}

inline void SetStream(ring::HostRecord& r, const void* stream, bool per_thread) {
  r.stream = reinterpret_cast<uintptr_t>(stream);
  r.flags = StreamFlags(stream, per_thread);
}

inline ring::HostMemory HostMemoryOf(const void* host) {
  return g_pinned_ranges.Contains(host) ? ring::HostMemory::kPinned : ring::HostMemory::kPageable;
}

inline void ExtractNothing(ring::HostRecord&) {}

inline void ExtractLaunch(ring::HostRecord& r, const void* target, const void* stream,
                          bool per_thread) {
  r.target = reinterpret_cast<uintptr_t>(target);
  SetStream(r, stream, per_thread);
}

inline void ExtractLaunchEx(ring::HostRecord& r, const cudaLaunchConfig_t* config, const void* func,
                            bool per_thread) {
  ExtractLaunch(r, func, config != nullptr ? config->stream : nullptr, per_thread);
}

// dst/src: a null pointer means "device side known" (symbol copies).
inline void ExtractCopy(ring::HostRecord& r, const void* dst, const void* src, uint64_t bytes,
                        cudaMemcpyKind kind, const void* stream, bool per_thread) {
  r.bytes = bytes;
  SetStream(r, stream, per_thread);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kHtoD);
      r.host_memory = static_cast<uint8_t>(HostMemoryOf(src));
      break;
    case cudaMemcpyDeviceToHost:
      r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kDtoH);
      r.host_memory = static_cast<uint8_t>(HostMemoryOf(dst));
      break;
    case cudaMemcpyDeviceToDevice:
      r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kDtoD);
      break;
    case cudaMemcpyHostToHost: {
      r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kHtoH);
      const bool both_pinned = g_pinned_ranges.Contains(src) && g_pinned_ranges.Contains(dst);
      r.host_memory = static_cast<uint8_t>(both_pinned ? ring::HostMemory::kPinned
                                                       : ring::HostMemory::kPageable);
      break;
    }
    default: {
      // cudaMemcpyDefault (unified addressing): the direction needs the pointers' real kinds.
      const bool pinned = (src != nullptr && g_pinned_ranges.Contains(src)) ||
                          (dst != nullptr && g_pinned_ranges.Contains(dst));
      r.host_memory =
          static_cast<uint8_t>(pinned ? ring::HostMemory::kPinned : ring::HostMemory::kUnknown);
      break;
    }
  }
}

inline void ExtractCopy3D(ring::HostRecord& r, const cudaMemcpy3DParms* p, const void* stream,
                          bool per_thread) {
  if (p == nullptr) {
    SetStream(r, stream, per_thread);
    return;
  }
  const uint64_t bytes = uint64_t{p->extent.width} * (p->extent.height ? p->extent.height : 1) *
                         (p->extent.depth ? p->extent.depth : 1);
  // Array copies (srcArray/dstArray) have no host pointer on that side.
  ExtractCopy(r, p->dstArray != nullptr ? nullptr : p->dstPtr.ptr,
              p->srcArray != nullptr ? nullptr : p->srcPtr.ptr, bytes, p->kind, stream, per_thread);
}

inline void ExtractPeerCopy(ring::HostRecord& r, uint64_t bytes, const void* stream,
                            bool per_thread) {
  r.bytes = bytes;
  r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kPeer);
  SetStream(r, stream, per_thread);
}

inline void ExtractMemset(ring::HostRecord& r, const void* dst, uint64_t bytes, const void* stream,
                          bool per_thread) {
  r.bytes = bytes;
  r.target = reinterpret_cast<uintptr_t>(dst);
  SetStream(r, stream, per_thread);
}

// Allocations: target = the new pointer (when the call succeeded). Pinned host allocations are
// remembered for the copy classification.
inline void ExtractAlloc(ring::HostRecord& r, void** out, uint64_t size, cudaError_t rc,
                         const void* stream, bool per_thread, bool pinned_host) {
  r.bytes = size;
  if (stream != nullptr || per_thread) SetStream(r, stream, per_thread);
  if (rc == cudaSuccess && out != nullptr) {
    r.target = reinterpret_cast<uintptr_t>(*out);
    if (pinned_host) g_pinned_ranges.Add(*out, size);
  }
}

inline void ExtractAllocPitch(ring::HostRecord& r, void** out, const size_t* pitch, size_t width,
                              size_t height, cudaError_t rc) {
  r.bytes = uint64_t{width} * height;
  if (rc == cudaSuccess && out != nullptr) {
    r.target = reinterpret_cast<uintptr_t>(*out);
    if (pitch != nullptr) r.bytes = uint64_t{*pitch} * height;
  }
}

inline void ExtractHostRegister(ring::HostRecord& r, void* ptr, uint64_t size, cudaError_t rc) {
  r.bytes = size;
  r.target = reinterpret_cast<uintptr_t>(ptr);
  if (rc == cudaSuccess) g_pinned_ranges.Add(ptr, size);
}

inline void ExtractFree(ring::HostRecord& r, void* ptr, cudaError_t rc, const void* stream,
                        bool per_thread, bool pinned_host) {
  r.target = reinterpret_cast<uintptr_t>(ptr);
  if (stream != nullptr || per_thread) SetStream(r, stream, per_thread);
  if (pinned_host && rc == cudaSuccess) g_pinned_ranges.Remove(ptr);
}

// Stream calls; `event` (may be null) goes to target.
inline void ExtractStream(ring::HostRecord& r, const void* stream, const void* event,
                          bool per_thread) {
  r.target = reinterpret_cast<uintptr_t>(event);
  SetStream(r, stream, per_thread);
}

inline void ExtractEvent(ring::HostRecord& r, const void* event) {
  r.target = reinterpret_cast<uintptr_t>(event);
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_HOOK_EXTRACT_H_
