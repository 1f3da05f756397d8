// CoverageStats: the report's "coverage" — how many calls each mechanism saw (runtime-symbol hooks,
// the shim's CUPTI API callbacks, CUPTI API records alone), which APIs have calls without a stack,
// and whether anything could have escaped the run (host-only, lost records, a killed app).
//
// Memory: one counter per distinct API (CallKey), nothing per call. Not thread-safe.
// Must never: count a call under two mechanisms (the analysis calls exactly one Add* per call), or
// claim completeness it cannot vouch for: every known way to lose a call becomes a gap.
#ifndef BRRR_COLLECTOR_ANALYSIS_COVERAGE_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_COVERAGE_STATS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collector/analysis/api_stats.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

// What decides whether something could have escaped, besides the calls themselves.
struct CoverageFacts {
  bool host_only = false;
  std::string host_only_reason;  // RunInfo.host_only_reason; may be empty
  uint64_t host_dropped = 0;     // host calls the shim could not record
  uint64_t host_dropped_no_ring = 0;  // of them, from threads past max_threads
  uint32_t max_threads = 0;
  uint32_t execs = 0;  // programs the process exec'd into that recorded on
  uint64_t device_dropped = 0;   // device/API records lost (device ring, CUPTI buffers)
  uint64_t api_records = 0;      // CUPTI API records the analysis received
  uint64_t device_ops = 0;       // CUPTI device records (kernels, copies, memsets) received
  uint64_t join_dropped = 0;     // items the joiner dropped at its caps
  uint64_t join_late = 0;        // CUPTI API records that came after the joiner gave up waiting
  uint64_t invalid_times = 0;    // events ignored for impossible timestamps
  uint64_t untimed_device_ops = 0;  // device records CUPTI could not time (DeviceOp.untimed)
  bool vanished = false;         // ended without an exit status (killed or crashed)
  bool execed = false;           // replaced its program (exec): the report ends there
  int term_signal = 0;           // nonzero when the app was killed by a signal
  uint64_t cupti_detaches = 0;   // CUPTI detached between tracing windows (RunInfo)
  bool no_window = false;        // device tracing was sampled and no window was opened
};

class CoverageStats {
 public:
  // One call seen by the shim (hook or CUPTI callback). `key` names its API row.
  void AddHostCall(CallSource source, CallKey key, bool has_stack) {
    if (source == CallSource::kCuptiCallback) {
      ++callback_calls_;
    } else {
      ++hooked_calls_;
    }
    if (!has_stack) CountWithoutStack(key);
  }

  // One call known only from its CUPTI API record (never has a stack).
  void AddCuptiOnlyCall(CallKey key) {
    ++cupti_only_calls_;
    CountWithoutStack(key);
  }

  uint64_t hooked_calls() const { return hooked_calls_; }
  uint64_t callback_calls() const { return callback_calls_; }
  uint64_t cupti_only_calls() const { return cupti_only_calls_; }

  // The report's coverage; `names` gives each key's API name, `top` caps without_stack.
  Coverage Finish(const ApiStats& names, const CoverageFacts& facts, size_t top) const;

 private:
  void CountWithoutStack(CallKey key) {
    if (key >= without_stack_.size()) without_stack_.resize(size_t{key} + 1, 0);
    ++without_stack_[key];
  }

  uint64_t hooked_calls_ = 0;
  uint64_t callback_calls_ = 0;
  uint64_t cupti_only_calls_ = 0;
  std::vector<uint64_t> without_stack_;  // by CallKey
};

// The gap sentences for these facts and counts, in a fixed order (empty = nothing escaped).
// `calls_seen_by_shim`: hooked + callback calls; `calls_seen`: those plus CUPTI-only calls.
std::vector<std::string> CoverageGaps(const CoverageFacts& facts, uint64_t calls_seen_by_shim,
                                      uint64_t calls_seen);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_COVERAGE_STATS_H_
