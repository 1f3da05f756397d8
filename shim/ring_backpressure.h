// Bounded waiting for room in the device ring, for the one writer that may wait: the CUPTI buffer
// completion (CUPTI's own worker thread, or the exit flush). One 4 MiB CUPTI buffer can hold more
// records than the device ring, so without waiting a single buffer could overflow the ring even
// with a healthy collector. The wait is bounded per buffer, gives up as soon as the collector
// stops making progress, and after such a give-up does not wait again until the collector moves:
// a dead or stuck collector costs one short stall, then plain drops (counted) as before.
//
// Must never: be called on an app thread's hot path (only from buffer completion), wait without a
// deadline, allocate or lock.
#ifndef BRRR_SHIM_RING_BACKPRESSURE_H_
#define BRRR_SHIM_RING_BACKPRESSURE_H_

#include <time.h>

#include <cstdint>

#include "shim/clock.h"
#include "shim/ring_writer.h"

namespace brrr::shim {

struct BackpressurePolicy {
  int64_t max_wait_ns = 2'000'000'000;  // per buffer, in all
  // No reader progress this long: the collector is stuck or gone. It drains at least every 10 ms,
  // but one drain of a full ring by a sanitizer build on a loaded machine can take ~100 ms.
  int64_t stall_ns = 250'000'000;
  int64_t poll_ns = 200'000;  // sleep between looks at read_index
};

// Survives across buffers (the writer holds the device-ring lock while using it).
struct BackpressureState {
  bool reader_stuck = false;   // the last wait gave up for lack of progress
  uint64_t stuck_at_read = 0;  // read_index then: waiting resumes once it moves
  uint64_t waits = 0;          // waits that found room (diagnostics and tests)
  uint64_t give_ups = 0;       // waits that ended without room
};

// Returns once the ring has room (true) or waiting is not worth it (false: the caller appends
// anyway and the record is dropped and counted). `deadline_ns` (CLOCK_MONOTONIC) bounds the wait.
template <typename Record>
inline bool WaitForRoom(RingCursor<Record>& c, BackpressureState& state,
                        const BackpressurePolicy& policy, int64_t deadline_ns) {
  if (HasRoom(c)) {
    state.reader_stuck = false;  // room means the reader moved
    return true;
  }
  if (state.reader_stuck) {
    if (c.cached_read == state.stuck_at_read) return false;  // still no progress: do not wait
    state.reader_stuck = false;
  }
  uint64_t last_read = c.cached_read;
  int64_t last_progress = static_cast<int64_t>(MonotonicNs());
  while (true) {
    const int64_t now = static_cast<int64_t>(MonotonicNs());
    if (now >= deadline_ns) {
      ++state.give_ups;
      return false;
    }
    if (now - last_progress >= policy.stall_ns) {
      state.reader_stuck = true;
      state.stuck_at_read = c.cached_read;
      ++state.give_ups;
      return false;
    }
    timespec pause{0, policy.poll_ns};
    nanosleep(&pause, nullptr);
    if (HasRoom(c)) {
      ++state.waits;
      return true;
    }
    if (c.cached_read != last_read) {
      last_read = c.cached_read;
      last_progress = static_cast<int64_t>(MonotonicNs());
    }
  }
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_RING_BACKPRESSURE_H_
