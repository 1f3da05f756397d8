// Decoding PM samples into the throughput the device regime uses: each sample carries, over its
// interval, the SM throughput and DRAM throughput (% of peak) and the share of the interval the GPU
// was active. Idle stretches would dilute plain means, so each throughput is taken over the busy
// time only: sum(throughput x duration) / sum(active share x duration).
//
// Must never: divide by zero busy time, or return a share above 100 % for consistent samples.
#ifndef BRRR_COLLECTOR_COUNTERS_COUNTER_SAMPLES_H_
#define BRRR_COLLECTOR_COUNTERS_COUNTER_SAMPLES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "collector/analysis/device_regime.h"

namespace brrr::counters {

struct CounterSample {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double sm_pct = 0;      // SM throughput, % of peak, over the interval
  double dram_pct = 0;    // DRAM throughput, % of peak, over the interval
  double active_pct = 0;  // share of the interval the GPU was active
};

// The throughputs while the GPU was busy; nullopt when no sample saw it busy. Samples with
// impossible values (end before start, negative or non-finite shares) are skipped.
std::optional<CounterThroughput> ThroughputWhileBusy(const std::vector<CounterSample>& samples);

}  // namespace brrr::counters

#endif  // BRRR_COLLECTOR_COUNTERS_COUNTER_SAMPLES_H_
