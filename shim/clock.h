// Host timestamps for the shim's hot path: rdtsc when the TSC is invariant (and the user did not
// ask otherwise), else CLOCK_MONOTONIC nanoseconds. The choice is made once by InitClock and
// published in SegmentHeader.clock_kind; the collector converts TSC ticks with its own fit.
//
// Must never: make a syscall on the hot path (clock_gettime is a vDSO call), allocate, or change
// the clock kind after InitClock (records written before and after would disagree).
#ifndef BRRR_SHIM_CLOCK_H_
#define BRRR_SHIM_CLOCK_H_

#include <time.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "shim/ring_format.h"

namespace brrr::shim {

// Set once by InitClock before any hook records; read on every hooked call.
extern bool g_clock_is_tsc;

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t ReadTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return MonotonicNs();
#endif
}

// The hot-path timestamp, in the unit of HostClockKind().
inline uint64_t HostNow() { return g_clock_is_tsc ? ReadTsc() : MonotonicNs(); }

// HostRecord.capture_ticks of a capture that began at `since` (saturated; 0 if the clock went
// back).
inline uint32_t CaptureTicksSince(uint64_t since) {
  const uint64_t now = HostNow();
  if (now <= since) return 0;
  return now - since > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(now - since);
}

// cpuid leaf 0x80000007 EDX bit 8: constant, nonstop TSC.
bool TscIsInvariant();

// Chooses the clock: the TSC when `allow_tsc` and the TSC is invariant.
void InitClock(bool allow_tsc);

ring::ClockKind HostClockKind();

struct ClockPair {
  uint64_t tsc = 0;
  uint64_t mono_ns = 0;
};

// A (tsc, CLOCK_MONOTONIC) pair read as close together as possible (the tightest of a few tries).
ClockPair SampleClockPair();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CLOCK_H_
