// Sampling of (TSC, CLOCK_MONOTONIC) pairs. See clock_pair.h.
//
// Must never: loop unboundedly or call anything slower than clock_gettime.
#include "collector/ingest/clock_pair.h"

#include <time.h>

#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace brrr::ingest {

uint64_t ReadTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return 0;
#endif
}

int64_t MonotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

ClockPair SampleClockPair() {
  constexpr int kAttempts = 8;
  ClockPair best;
  int64_t best_bracket = std::numeric_limits<int64_t>::max();
  for (int i = 0; i < kAttempts; ++i) {
    const int64_t before = MonotonicNowNs();
    const uint64_t tsc = ReadTsc();
    const int64_t after = MonotonicNowNs();
    const int64_t bracket = after - before;
    if (bracket >= 0 && bracket < best_bracket) {
      best_bracket = bracket;
      best.tsc = tsc;
      best.mono_ns = before + bracket / 2;
    }
  }
  return best;
}

bool HasInvariantTsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx)) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace brrr::ingest
