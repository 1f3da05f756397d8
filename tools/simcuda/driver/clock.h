// The engine's clock (CLOCK_MONOTONIC nanoseconds) and the two ways the engine spends time:
// sleeping a device thread until an absolute virtual time, and burning a host thread's CPU like a
// driver's launch path. Must never use a different clock: activity records and host timestamps are
// compared.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_CLOCK_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_CLOCK_H_

#include <time.h>

#include <cerrno>
#include <cstdint>

namespace simcuda {

inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns` (may overshoot by a timer wake-up).
inline void SleepUntilCoarse(uint64_t deadline_ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(deadline_ns / 1000000000ull);
  ts.tv_nsec = static_cast<long>(deadline_ns % 1000000000ull);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// Waits until CLOCK_MONOTONIC reaches `deadline_ns`; returns at once if it already has. The last
// stretch is spun: a VM's timer wake-ups overshoot by tens of microseconds.
inline void SleepUntil(uint64_t deadline_ns) {
  constexpr uint64_t kSpinNs = 20000;
  const uint64_t now = NowNs();
  if (now >= deadline_ns) return;
  if (deadline_ns - now > kSpinNs) SleepUntilCoarse(deadline_ns - kSpinNs);
  while (NowNs() < deadline_ns) {
  }
}

// Busy-waits `duration_ns` on the calling thread.
inline void SpinFor(uint64_t duration_ns) {
  if (duration_ns == 0) return;
  const uint64_t deadline = NowNs() + duration_ns;
  while (NowNs() < deadline) {
  }
}

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_CLOCK_H_
