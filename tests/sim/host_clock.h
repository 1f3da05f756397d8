// Host clocks for the simulated-stack tests: CLOCK_MONOTONIC (the clock the tests hand to CUPTI,
// so host and device timestamps compare directly) and CLOCK_REALTIME (CUPTI's default clock).
// Must never depend on the code under test.
#ifndef BRRR_TESTS_SIM_HOST_CLOCK_H_
#define BRRR_TESTS_SIM_HOST_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace brrr::simtest {

inline uint64_t ClockNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t MonotonicNs() { return ClockNs(CLOCK_MONOTONIC); }
inline uint64_t RealtimeNs() { return ClockNs(CLOCK_REALTIME); }

inline constexpr uint64_t kMicrosecond = 1000;
inline constexpr uint64_t kMillisecond = 1000 * kMicrosecond;

// Upper bound for "takes about `expected_ns`" on a loaded, possibly sanitized machine.
inline uint64_t Generous(uint64_t expected_ns) { return 5 * expected_ns + 50 * kMillisecond; }

// True when device work of `work_ns`, all launched at or after `launched_at` on one stream, cannot
// have finished by `now`. "Still pending" checks assert only under this condition, so that a
// host too slow to observe the pending state (a loaded machine) never fails them.
inline bool CannotHaveFinished(uint64_t launched_at, uint64_t work_ns, uint64_t now) {
  return now < launched_at + work_ns;
}

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_HOST_CLOCK_H_
