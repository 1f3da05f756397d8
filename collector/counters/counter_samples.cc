// ThroughputWhileBusy (see counter_samples.h).
//
// Must never: trust a sample's values (they come from hardware buffers).
#include "collector/counters/counter_samples.h"

#include <algorithm>
#include <cmath>

namespace brrr::counters {

std::optional<CounterThroughput> ThroughputWhileBusy(const std::vector<CounterSample>& samples) {
  double busy = 0, sm = 0, dram = 0;
  uint64_t used = 0;
  for (const CounterSample& s : samples) {
    if (s.end_ns <= s.start_ns) continue;
    if (!std::isfinite(s.sm_pct) || !std::isfinite(s.dram_pct) || !std::isfinite(s.active_pct) ||
        s.sm_pct < 0 || s.dram_pct < 0 || s.active_pct < 0) {
      continue;
    }
    const double d = static_cast<double>(s.end_ns - s.start_ns);
    const double active = std::min(s.active_pct, 100.0);
    if (active <= 0) continue;
    busy += active * d;
    sm += std::min(s.sm_pct, active) * d;  // no more throughput than activity
    dram += std::min(s.dram_pct, active) * d;
    ++used;
  }
  if (busy <= 0) return std::nullopt;
  return CounterThroughput{100.0 * sm / busy, 100.0 * dram / busy, used};
}

}  // namespace brrr::counters
