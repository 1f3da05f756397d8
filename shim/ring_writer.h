// The single-producer side of a ring (rules R1, R2 of ring_format.h): append one fixed-size record
// or drop it. Used for every per-thread host ring (one writer: the owning thread) and for the
// device ring (one writer at a time: callers hold the device-ring spinlock).
//
// Must never: block, wait for the reader, allocate, make a syscall, or write past capacity. A full
// ring drops the record and counts it.
#ifndef BRRR_SHIM_RING_WRITER_H_
#define BRRR_SHIM_RING_WRITER_H_

#include <atomic>
#include <cstdint>

#include "shim/dcheck.h"
#include "shim/ring_format.h"

namespace brrr::shim {

template <typename Record>
struct RingCursor {
  ring::RingHeader* ring = nullptr;
  Record* records = nullptr;
  uint64_t mask = 0;         // capacity - 1 (capacity is a power of two)
  uint64_t cached_read = 0;  // last read_index seen: reloaded only when the ring looks full
};

// Whether a record fits at write index `w`: read_index is reloaded only when the ring looks full.
template <typename Record>
inline bool HasRoomAt(RingCursor<Record>& c, uint64_t w) {
  if (w - c.cached_read <= c.mask) return true;
  c.cached_read = c.ring->read_index.load(std::memory_order_acquire);  // R2
  return w - c.cached_read <= c.mask;
}

// Whether the ring has room for one record now.
template <typename Record>
inline bool HasRoom(RingCursor<Record>& c) {
  return HasRoomAt(c, c.ring->write_index.load(std::memory_order_relaxed));
}

// Appends `record` or, when the ring holds `capacity` unread records, drops it (dropped += 1).
// Returns whether it was stored.
template <typename Record>
inline bool AppendRecord(RingCursor<Record>& c, const Record& record) {
  ring::RingHeader* const h = c.ring;
  const uint64_t w = h->write_index.load(std::memory_order_relaxed);
  const bool room = HasRoomAt(c, w);
  // R1/R2: the reader never passes the writer, and the ring never holds more than its capacity.
  // (read_index is the collector's to write, but it only ever copies a write_index it read.)
  BRRR_DCHECK(c.cached_read <= w);
  BRRR_DCHECK(w - c.cached_read <= c.mask + 1);
  if (!room) {
    // Single writer: a plain read-modify-write of our own counter is enough.
    h->dropped.store(h->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return false;
  }
  c.records[w & c.mask] = record;
  h->write_index.store(w + 1, std::memory_order_release);  // R1
  BRRR_DCHECK(h->write_index.load(std::memory_order_relaxed) == w + 1);  // one writer only
  return true;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_RING_WRITER_H_
