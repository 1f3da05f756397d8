// Reading the shim's hardware-counter table (SegmentHeader.counters_*, ring_format.h R9) and
// turning it into what the device regime uses: the SM and DRAM throughput while the GPU was busy,
// or why there is none (the fallback to kernel classes quotes it).
//
// Must never: trust the shared memory (the count is clamped, every value checked, an unknown
// state or call is a reason, not a failure), or call a result a measurement without a busy sample.
#ifndef BRRR_COLLECTOR_COUNTERS_COUNTER_TABLE_H_
#define BRRR_COLLECTOR_COUNTERS_COUNTER_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/analysis/device_regime.h"
#include "collector/counters/counter_samples.h"
#include "shim/ring_format.h"

namespace brrr::counters {

// A copy of the table, read once.
struct CounterTable {
  uint32_t state = ring::kCountersOff;
  int32_t result = 0;
  uint32_t failed_call = 0;
  std::vector<CounterSample> samples;  // only slots with a plausible time span
  std::vector<uint32_t> merged;        // PM samples each kept slot stands for
  uint64_t skipped = 0;                // slots left out as damaged
  uint32_t metric_plan = 0;            // SegmentHeader.counters_metric_plan (0 = not said)
};

CounterTable ReadCounterTable(const ring::SegmentHeader& header);

struct CounterOutcome {
  std::optional<CounterThroughput> measured;
  std::string unavailable;    // "" when measured, or when the shim was not asked (state off)
  bool shim_sampled = false;  // false: the shim did not take part (state off)
  // The metric set the shim sampled ("label (name, name, ...)"); "" when it configured none or
  // did not say (shim/pm_metric_plans.h).
  std::string metrics;
};

// The measurement, or why not: not permitted / busy / not supported (enable's result), no PM
// sampling in libcupti, a later call's failure, or no busy sample.
CounterOutcome OutcomeOf(const CounterTable& table);

// "CUPTI_ERROR_NOT_SUPPORTED (27)" for the results PM sampling returns; "CUPTI error N" else.
std::string CuptiResultText(int32_t result);

// The name of a CountersCall for a reason ("cuptiPmSamplingSetConfig"); "an unknown call" else.
const char* CountersCallName(uint32_t call);

}  // namespace brrr::counters

#endif  // BRRR_COLLECTOR_COUNTERS_COUNTER_TABLE_H_
