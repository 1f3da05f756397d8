// Lock-free table of page-locked host ranges (see pinned_ranges.h).
//
// Must never: allocate or lock.
#include "shim/pinned_ranges.h"

namespace brrr::shim {

bool PinnedRanges::Add(const void* ptr, size_t size) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  if (begin == 0 || size == 0) return false;
  for (uint32_t i = 0; i < kCapacity; ++i) {
    uintptr_t expected = 0;
    if (entries_[i].begin.load(std::memory_order_relaxed) != 0) continue;
    // Publish `end` under a sentinel begin so that no reader sees the new begin with a stale end.
    if (!entries_[i].begin.compare_exchange_strong(expected, ~uintptr_t{0},
                                                   std::memory_order_acq_rel)) {
      continue;
    }
    entries_[i].end.store(begin + size, std::memory_order_relaxed);
    entries_[i].begin.store(begin, std::memory_order_release);
    uint32_t used = used_.load(std::memory_order_relaxed);
    while (used < i + 1 && !used_.compare_exchange_weak(used, i + 1, std::memory_order_release)) {
    }
    return true;
  }
  return false;
}

void PinnedRanges::Remove(const void* ptr) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  if (begin == 0) return;
  const uint32_t used = used_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < used && i < kCapacity; ++i) {
    uintptr_t expected = begin;
    if (entries_[i].begin.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  }
}

}  // namespace brrr::shim
