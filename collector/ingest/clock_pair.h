// Reads the host's two clocks together: the TSC (rdtsc, what the shim stamps host calls with) and
// CLOCK_MONOTONIC (what device records and reports use). The collector samples such pairs itself
// while it drains, and fits a mapping from them (clock_fit.h).
//
// Must never: be used on the shim side (it is the collector's view of the clocks) or block.
#ifndef BRRR_COLLECTOR_INGEST_CLOCK_PAIR_H_
#define BRRR_COLLECTOR_INGEST_CLOCK_PAIR_H_

#include <cstdint>

namespace brrr::ingest {

struct ClockPair {
  uint64_t tsc = 0;
  int64_t mono_ns = 0;
};

// The current TSC value (0 on machines without one).
uint64_t ReadTsc();

// The current CLOCK_MONOTONIC time in nanoseconds.
int64_t MonotonicNowNs();

// A (tsc, monotonic) pair read as close together as possible: of a few attempts, the one whose
// two clock_gettime calls bracketing the rdtsc were closest, with the midpoint as its time.
ClockPair SampleClockPair();

// True when the CPU reports an invariant (constant, nonstop) TSC: cpuid 0x80000007 EDX bit 8.
bool HasInvariantTsc();

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_CLOCK_PAIR_H_
