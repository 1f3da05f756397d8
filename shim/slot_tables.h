// Content-addressed tables in the segment: call stacks (StackSlot) and kernel names (NameSlot),
// deduplicated by a 64-bit hash (rule R4 of ring_format.h). Two contents with the same 64-bit hash
// share a slot (probability negligible; accepted to keep the hot path free of comparisons).
// Insertion is lock-free: claim a slot by CAS of its hash from 0, write the content, release
// `ready`. Bounded linear probing; a full neighbourhood returns id 0 and counts an overflow.
//
// Must never: block, wait for another writer's `ready`, allocate, or probe unboundedly.
#ifndef BRRR_SHIM_SLOT_TABLES_H_
#define BRRR_SHIM_SLOT_TABLES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "shim/ring_format.h"

namespace brrr::shim {

inline constexpr uint32_t kMaxProbes = 32;

inline uint64_t MixHash(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

inline uint64_t HashPcs(const uint64_t* pcs, uint32_t depth) {
  uint64_t h = 0x243f6a8885a308d3ull ^ depth;
  for (uint32_t i = 0; i < depth; ++i) h = MixHash(h, pcs[i]);
  return h == 0 ? 1 : h;
}

// Eight bytes per step: NVTX hooks hash a range's name on every push.
inline uint64_t HashBytes(const char* s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = MixHash(h, w);
  }
  if (i < n) {
    uint64_t w = 0;
    for (size_t k = 0; i + k < n; ++k) {
      w |= uint64_t{static_cast<unsigned char>(s[i + k])} << (8 * k);
    }
    h = MixHash(h, w);
  }
  h = MixHash(h, n);
  return h == 0 ? 1 : h;
}

// Finds or claims the slot for `hash` in a table of `slot_count` (power of two) slots. Returns the
// slot index and sets *claimed when the caller now owns an empty slot and must fill it and publish
// `ready`; returns -1 when the probe limit was reached.
template <typename Slot>
inline int64_t FindOrClaimSlot(Slot* slots, uint32_t slot_count, uint64_t hash, bool* claimed) {
  const uint64_t mask = slot_count - 1;
  for (uint32_t probe = 0; probe < kMaxProbes && probe < slot_count; ++probe) {
    const uint64_t i = (hash + probe) & mask;
    uint64_t seen = slots[i].hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (slots[i].hash.compare_exchange_strong(seen, hash, std::memory_order_acq_rel)) {
        *claimed = true;
        return static_cast<int64_t>(i);
      }
      // Lost the race: `seen` now holds the winner's hash.
    }
    if (seen == hash) {
      *claimed = false;
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

// Returns the stack id (slot index + 1) of pcs[0..depth), inserting it if new; 0 when the table
// is full around this hash (and *overflow is incremented).
inline uint32_t InternStack(ring::StackSlot* slots, uint32_t slot_count, const uint64_t* pcs,
                            uint32_t depth, std::atomic<uint64_t>* overflow) {
  if (depth > ring::kMaxStackEntries) depth = ring::kMaxStackEntries;
  const uint64_t hash = HashPcs(pcs, depth);
  bool claimed = false;
  const int64_t i = FindOrClaimSlot(slots, slot_count, hash, &claimed);
  if (i < 0) {
    overflow->fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (claimed) {
    ring::StackSlot& s = slots[i];
    s.depth = depth;
    for (uint32_t d = 0; d < depth; ++d) s.pcs[d] = pcs[d];
    s.ready.store(1, std::memory_order_release);  // R4
  }
  return static_cast<uint32_t>(i) + 1;
}

// Returns the name id (slot index + 1) of `text` (truncated to kMaxNameLength), inserting it if
// new; 0 when the table is full around this hash.
inline uint32_t InternName(ring::NameSlot* slots, uint32_t slot_count, const char* text,
                           size_t length) {
  if (length > ring::kMaxNameLength) length = ring::kMaxNameLength;
  const uint64_t hash = HashBytes(text, length);
  bool claimed = false;
  const int64_t i = FindOrClaimSlot(slots, slot_count, hash, &claimed);
  if (i < 0) return 0;
  if (claimed) {
    ring::NameSlot& s = slots[i];
    s.length = static_cast<uint16_t>(length);
    memcpy(s.text, text, length);
    s.ready.store(1, std::memory_order_release);  // R4
  }
  return static_cast<uint32_t>(i) + 1;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SLOT_TABLES_H_
