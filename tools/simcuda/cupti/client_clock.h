// ClientClock: the clock the CUPTI client sees in activity records and cuptiGetTimestamp. By
// default CLOCK_REALTIME nanoseconds (real CUPTI on Linux); after
// cuptiActivityRegisterTimestampCallback, the client's callback. Engine events carry
// CLOCK_MONOTONIC nanoseconds; ClockOffset maps them onto the client clock.
// Must never call into the engine, and never allocate.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_CLIENT_CLOCK_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_CLIENT_CLOCK_H_

#include <atomic>
#include <climits>
#include <cstdint>

namespace simcuda::cupti {

// Adds a fixed difference (client clock minus CLOCK_MONOTONIC, taken at one instant) to engine
// timestamps. CUPTI_TIMESTAMP_UNKNOWN (0) stays unknown.
struct ClockOffset {
  int64_t delta_ns = 0;

  uint64_t Map(uint64_t engine_ns) const {
    if (engine_ns == 0) return 0;
    return engine_ns + static_cast<uint64_t>(delta_ns);
  }
};

// Thread-safe: all members may be called concurrently.
class ClientClock {
 public:
  using Callback = uint64_t (*)();

  // nullptr restores the default (CLOCK_REALTIME). Re-measures the offset from engine time.
  void SetCallback(Callback callback);
  bool HasCallback() const { return callback_.load(std::memory_order_acquire) != nullptr; }

  // Current time on the client clock, ns.
  uint64_t Now() const;

  // The offset from engine time (CLOCK_MONOTONIC) to client time. Measured once per clock (at
  // SetCallback, or on first use for the default clock) and then fixed: a per-record measurement
  // would jitter by the cost of reading two clocks and could reorder back-to-back work.
  ClockOffset OffsetFromEngine() const;

 private:
  static constexpr int64_t kUnmeasured = INT64_MIN;
  int64_t MeasureOffset() const;

  std::atomic<Callback> callback_{nullptr};
  mutable std::atomic<int64_t> offset_ns_{kUnmeasured};
};

// CLOCK_MONOTONIC in ns: the engine's clock.
uint64_t MonotonicNowNs();

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_CLIENT_CLOCK_H_
