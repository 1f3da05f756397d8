// ClientClock: reads the client clock (CLOCK_REALTIME or the registered callback) and measures
// its offset from CLOCK_MONOTONIC. Never calls into the engine.
#include "client_clock.h"

#include <time.h>

#include <cstdint>

namespace simcuda::cupti {
namespace {

uint64_t ReadClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

uint64_t MonotonicNowNs() { return ReadClockNs(CLOCK_MONOTONIC); }

uint64_t ClientClock::Now() const {
  Callback callback = callback_.load(std::memory_order_acquire);
  return callback != nullptr ? callback() : ReadClockNs(CLOCK_REALTIME);
}

void ClientClock::SetCallback(Callback callback) {
  callback_.store(callback, std::memory_order_release);
  offset_ns_.store(MeasureOffset(), std::memory_order_release);
}

// Brackets one client-clock read between two monotonic reads and keeps the tightest of a few
// tries, so the offset is exact to within one clock read.
int64_t ClientClock::MeasureOffset() const {
  int64_t best_delta = 0;
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = MonotonicNowNs();
    const uint64_t client_now = Now();
    const uint64_t after = MonotonicNowNs();
    if (after - before < best_width) {
      best_width = after - before;
      best_delta = static_cast<int64_t>(client_now - (before + (after - before) / 2));
    }
  }
  return best_delta;
}

ClockOffset ClientClock::OffsetFromEngine() const {
  int64_t offset = offset_ns_.load(std::memory_order_acquire);
  if (offset == kUnmeasured) {
    const int64_t measured = MeasureOffset();
    offset_ns_.compare_exchange_strong(offset, measured, std::memory_order_acq_rel);
    offset = offset_ns_.load(std::memory_order_acquire);
  }
  return ClockOffset{offset};
}

}  // namespace simcuda::cupti
