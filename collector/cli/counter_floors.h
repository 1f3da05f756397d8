// Keeps the /metrics counters from going down. A live figure can be revised downwards: device
// records arrive up to a flush period late and turn time a snapshot counted as idle into busy, and
// sampled device tracing rescales its estimates as windows come in. Prometheus reads any decrease
// of a counter as a reset. So each series publishes the highest value it has had; a figure revised
// down is held until it catches up.
//
// Not thread-safe (the snapshot thread alone publishes). Must never: hold more than kMaxSeries
// series (past that, values pass through unchanged).
#ifndef BRRR_COLLECTOR_CLI_COUNTER_FLOORS_H_
#define BRRR_COLLECTOR_CLI_COUNTER_FLOORS_H_

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace brrr::cli {

class CounterFloors {
 public:
  static constexpr size_t kMaxSeries = 200'000;

  // The value to publish for `series` (its name and labels): the largest seen, `value` included.
  double Floor(const std::string& series, double value) {
    auto it = highest_.find(series);
    if (it == highest_.end()) {
      if (highest_.size() < kMaxSeries) highest_.emplace(series, value);
      return value;
    }
    if (value > it->second) it->second = value;
    return it->second;
  }

 private:
  absl::flat_hash_map<std::string, double> highest_;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_COUNTER_FLOORS_H_
