// Claiming and retiring a per-thread host ring in a segment (rule R3 of ring_format.h). A thread
// claims one ring on its first recorded call and keeps it for life; at thread exit it marks it
// retired so that the collector can drain and recycle it.
//
// Must never: be called on the hot path except through the once-per-thread slow path, wait, or
// reset a recycled ring's indexes (write_index keeps counting; the reader's read_index matches it).
#ifndef BRRR_SHIM_THREAD_RING_H_
#define BRRR_SHIM_THREAD_RING_H_

#include <cstdint>

#include "shim/ring_format.h"
#include "shim/ring_writer.h"
#include "shim/segment.h"

namespace brrr::shim {

using HostRingCursor = RingCursor<ring::HostRecord>;
using DeviceRingCursor = RingCursor<ring::DeviceRecord>;

// Claims a free ring for (tid, pthread_id). False when every ring is taken.
bool ClaimThreadRing(const SegmentView& segment, uint32_t tid, uint64_t pthread_id,
                     HostRingCursor* out);

// Marks a claimed ring retired (release): the owning thread will not write to it again.
void RetireThreadRing(ring::RingHeader* ring);

// The cursor of the segment's device ring (the caller serializes writers).
DeviceRingCursor DeviceRingOf(const SegmentView& segment);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_THREAD_RING_H_
