// Clock selection and calibration pairs for the shim (see clock.h). Runs at init only.
//
// Must never: be called on the hot path (cpuid is slow and serializing).
#include "shim/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace brrr::shim {

bool g_clock_is_tsc = false;

bool TscIsInvariant() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

void InitClock(bool allow_tsc) { g_clock_is_tsc = allow_tsc && TscIsInvariant(); }

ring::ClockKind HostClockKind() {
  return g_clock_is_tsc ? ring::ClockKind::kTsc : ring::ClockKind::kMonotonicNs;
}

ClockPair SampleClockPair() {
  ClockPair best;
  uint64_t best_width = ~0ull;
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = ReadTsc();
    const uint64_t ns = MonotonicNs();
    const uint64_t t1 = ReadTsc();
    if (t1 - t0 < best_width) {
      best_width = t1 - t0;
      best.tsc = t0 + (t1 - t0) / 2;
      best.mono_ns = ns;
    }
  }
  return best;
}

}  // namespace brrr::shim
