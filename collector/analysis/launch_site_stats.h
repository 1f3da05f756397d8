// Sampled launch sites: launches the shim recorded with kRecordLaunchSample (1 in N launches
// carries its stack), counted per stack id; at the end, the top sites by estimated launches
// (sampled x N), symbolized through a callback and merged by the symbolized stack.
//
// Memory: one counter per distinct stack id, capped at max_sites; further sites fold into stack
// id 0 ("no stack"). Not thread-safe.
// Must never: symbolize on the per-call path, or present an estimate without the sample period.
#ifndef BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "viewer/format/report.h"

namespace brrr {

class LaunchSiteStats {
 public:
  explicit LaunchSiteStats(size_t max_sites = 100'000) : max_sites_(max_sites) {}

  // One sampled launch with its (collector-wide) stack id; 0 = no stack.
  void Add(uint32_t stack_id);

  uint64_t sampled() const { return sampled_; }
  size_t sites() const { return sites_.size(); }

  // Top `limit` sites by estimated launches (sampled launches x `sample_period`; ties: the stack's
  // frames). Sites whose stacks symbolize alike are one row. Empty when `sample_period` is 0.
  std::vector<LaunchSite> Top(
      size_t limit, uint32_t sample_period,
      const std::function<std::vector<std::string>(uint32_t)>& symbolize) const;

 private:
  size_t max_sites_;
  absl::flat_hash_map<uint32_t, uint64_t> sites_;  // stack id -> sampled launches
  uint64_t sampled_ = 0;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_
