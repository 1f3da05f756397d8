// Which host memory is page-locked: ranges returned by the hooked cudaMallocHost / cudaHostAlloc /
// cudaHostRegister, forgotten at cudaFreeHost / cudaHostUnregister. Lets the shim mark the host
// side of a copy pinned or pageable without calling CUDA (cudaPointerGetAttributes would be a CUDA
// call on the hot path). It is a best guess: memory pinned by paths the hooks do not see (static
// cudart, the driver API, a full table) reads as pageable. CUPTI memcpy records (srcKind/dstKind)
// carry the truth whenever CUPTI is on; the collector prefers them.
//
// Thread-safety: lock-free; Add/Remove/Contains may race. A lookup racing an update may see the
// range either way. Must never: allocate, lock, or scan more than the used prefix of the table.
#ifndef BRRR_SHIM_PINNED_RANGES_H_
#define BRRR_SHIM_PINNED_RANGES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace brrr::shim {

class PinnedRanges {
 public:
  static constexpr uint32_t kCapacity = 1024;

  constexpr PinnedRanges() = default;

  // Remembers [ptr, ptr + size). False when the table is full (the range then reads as pageable).
  bool Add(const void* ptr, size_t size);
  // Forgets the range starting at ptr (no-op when unknown).
  void Remove(const void* ptr);

  bool Contains(const void* ptr) const {
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    const uint32_t used = used_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < used && i < kCapacity; ++i) {
      const uintptr_t begin = entries_[i].begin.load(std::memory_order_acquire);
      if (begin == 0 || p < begin) continue;
      const uintptr_t end = entries_[i].end.load(std::memory_order_acquire);
      // The entry may have been freed and reused meanwhile: use `end` only if `begin` held.
      if (entries_[i].begin.load(std::memory_order_acquire) != begin) continue;
      if (p < end) return true;
    }
    return false;
  }

 private:
  struct Entry {
    std::atomic<uintptr_t> begin{0};  // 0 = free; claimed by CAS
    std::atomic<uintptr_t> end{0};
  };
  Entry entries_[kCapacity];
  std::atomic<uint32_t> used_{0};  // entries at or above never held a range
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PINNED_RANGES_H_
