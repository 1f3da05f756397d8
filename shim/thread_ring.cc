// Per-thread ring claim/retire (see thread_ring.h). Runs once per thread, off the hot path.
//
// Must never: block or take a ring that is not kFree.
#include "shim/thread_ring.h"

namespace brrr::shim {

bool ClaimThreadRing(const SegmentView& segment, uint32_t tid, uint64_t pthread_id,
                     HostRingCursor* out) {
  const uint32_t n = segment.geometry.max_threads;
  for (uint32_t i = 0; i < n; ++i) {
    ring::RingHeader* r = ring::ThreadRingAt(segment.base, segment.layout, i);
    uint32_t expected = static_cast<uint32_t>(ring::RingState::kFree);
    if (r->state.load(std::memory_order_relaxed) != expected) continue;
    if (!r->state.compare_exchange_strong(expected,
                                          static_cast<uint32_t>(ring::RingState::kClaimed),
                                          std::memory_order_acq_rel)) {
      continue;
    }
    r->tid = tid;
    r->pthread_id = pthread_id;
    r->generation = r->generation + 1;
    out->ring = r;
    out->records = ring::ThreadRecords(r);
    out->mask = segment.geometry.ring_capacity - 1;
    // Everything below write_index was drained before the reader freed the ring.
    out->cached_read = r->read_index.load(std::memory_order_acquire);
    r->state.store(static_cast<uint32_t>(ring::RingState::kActive), std::memory_order_release);
    return true;
  }
  return false;
}

void RetireThreadRing(ring::RingHeader* ring) {
  if (ring == nullptr) return;
  ring->state.store(static_cast<uint32_t>(ring::RingState::kRetired), std::memory_order_release);
}

DeviceRingCursor DeviceRingOf(const SegmentView& segment) {
  DeviceRingCursor c;
  c.ring = ring::DeviceRingAt(segment.base, segment.layout);
  c.records = ring::DeviceRecords(c.ring);
  c.mask = segment.geometry.device_capacity - 1;
  c.cached_read = c.ring->read_index.load(std::memory_order_acquire);
  return c;
}

}  // namespace brrr::shim
