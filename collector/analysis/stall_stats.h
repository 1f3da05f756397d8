// Host stalls grouped by (API, reason, stack id): calls and total blocked time; the report's top
// stalls, symbolized at the end through a callback.
//
// Memory: one entry per distinct (API, reason, call site), capped at max_sites; further sites
// fold into stack id 0 ("no stack") of their (API, reason). Not thread-safe.
// Must never: symbolize on the per-call path.
#ifndef BRRR_COLLECTOR_ANALYSIS_STALL_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_STALL_STATS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/api_stats.h"
#include "collector/analysis/stack_end.h"
#include "collector/analysis/stall_classifier.h"
#include "viewer/format/report.h"

namespace brrr {

class StallStats {
 public:
  explicit StallStats(size_t max_sites = 100'000) : max_sites_(max_sites) {}

  // The stack id of a call seen only in CUPTI's activity records: its row has no stack and says
  // why (ended_early = kCuptiRecordOnlyWhy), apart from hooked calls that have none.
  static constexpr uint32_t kCuptiRecordStack = UINT32_MAX;
  // Whether a row of Top() is such a call's (no stack, and that reason).
  static bool SeenOnlyInCuptiRecords(const Stall& row) {
    return row.stack.empty() && row.ended_early == kCuptiRecordOnlyWhy;
  }

  void Add(CallKey key, StallReason reason, uint32_t stack_id, int64_t blocked_ns);

  uint64_t calls() const { return calls_; }
  int64_t total_ns() const { return total_ns_; }
  size_t sites() const { return sites_.size(); }

  // Top `limit` by total_ns (ties: more calls, then API name), stacks symbolized. Sites with the
  // same API, reason and symbolized frames are merged into one row before ranking.
  std::vector<Stall> Top(size_t limit, const ApiStats& names,
                         const std::function<std::vector<std::string>(uint32_t)>& symbolize) const;

 private:
  struct Totals {
    uint64_t calls = 0;
    int64_t total_ns = 0;
  };
  static uint64_t Pack(CallKey key, StallReason reason, uint32_t stack_id) {
    return (uint64_t{key & 0xFFFFFF} << 40) | (uint64_t{static_cast<uint8_t>(reason)} << 32) |
           stack_id;
  }

  size_t max_sites_;
  absl::flat_hash_map<uint64_t, Totals> sites_;
  uint64_t calls_ = 0;
  int64_t total_ns_ = 0;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_STALL_STATS_H_
