// Putting PM counter samples (ring::DeviceKind::kCounterSample) on CLOCK_MONOTONIC, the clock of
// every other event. CUPTI does not say which clock PM sample timestamps are on: cupti_pmsampling.h
// (CUDA 13.0) and NVIDIA's reference (docs.nvidia.com/cupti/api/
// structCUpti__PmSampling__CounterData__GetSampleInfo__Params.html) call startTimestamp only
// "Start time of the sample", while activity records go through the timestamp callback the shim
// registers (cupti_activity.h: GPU timestamps are converted to CPU time by linear interpolation,
// calling the callback), which PM sampling does not promise to use. So the shim reads a clock pair
// when sampling starts (cuptiGetTimestamp, CLOCK_REALTIME, CLOCK_MONOTONIC) and this decides, on
// the first sample that fits, which basis puts samples inside the run:
//   kMonotonic       the raw timestamps already are CLOCK_MONOTONIC (nothing added)
//   kCuptiTimestamp  CUPTI's timestamp clock: + (mono - cupti) of the pair
//   kRealtime        CLOCK_REALTIME: + (mono - realtime) of the pair
// tried in that order. "Fits": lands in [earliest, latest] (the caller's bounds: from just before
// sampling started to just after now). Once decided the basis is kept for the run. An offset read
// once does not follow a drift between the GPU's timer and the host's clocks (a few ppm: ~µs per
// second, small against 1 ms samples).
//
// Not thread-safe. Must never: overflow on any 64-bit input, or decide on a sample that fits none.
#ifndef BRRR_COLLECTOR_INGEST_COUNTER_CLOCK_H_
#define BRRR_COLLECTOR_INGEST_COUNTER_CLOCK_H_

#include <cstdint>
#include <optional>

#include "collector/events.h"

namespace brrr::ingest {

using ::brrr::CounterClockBasis;

// The shim's pair (ring::SegmentHeader counters_clock_*); 0 = not read.
struct CounterClockPair {
  uint64_t cupti_ns = 0;
  uint64_t realtime_ns = 0;
  uint64_t mono_ns = 0;
};

class CounterClock {
 public:
  CounterClock() = default;
  explicit CounterClock(const CounterClockPair& pair) : pair_(pair) {}

  // `raw` on CLOCK_MONOTONIC, or nullopt while no basis puts a sample in [earliest, latest].
  std::optional<int64_t> ToMonotonic(uint64_t raw, int64_t earliest, int64_t latest);

  CounterClockBasis basis() const { return basis_; }

 private:
  std::optional<int64_t> Convert(uint64_t raw, CounterClockBasis basis) const;

  CounterClockPair pair_;
  CounterClockBasis basis_ = CounterClockBasis::kUndecided;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_COUNTER_CLOCK_H_
