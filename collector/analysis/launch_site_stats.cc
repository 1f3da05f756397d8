// Sampled launch sites (see launch_site_stats.h).
//
// Must never: call the symbolizer for stack id 0, or overflow an estimate (it saturates).
#include "collector/analysis/launch_site_stats.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_join.h"

namespace brrr {

void LaunchSiteStats::Add(uint32_t stack_id) {
  auto it = sites_.find(stack_id);
  if (it == sites_.end()) {
    if (sites_.size() >= max_sites_) stack_id = 0;
    it = sites_.try_emplace(stack_id, 0).first;
  }
  ++it->second;
  ++sampled_;
}

std::vector<LaunchSite> LaunchSiteStats::Top(
    size_t limit, uint32_t sample_period,
    const std::function<std::vector<std::string>(uint32_t)>& symbolize) const {
  std::vector<LaunchSite> out;
  if (sample_period == 0) return out;
  absl::flat_hash_map<std::string, size_t> row_of;
  std::vector<uint64_t> sampled;
  for (const auto& [stack_id, count] : sites_) {
    LaunchSite site;
    if (stack_id != 0 && symbolize) site.stack = symbolize(stack_id);
    auto [it, inserted] = row_of.try_emplace(absl::StrJoin(site.stack, "\n"), out.size());
    if (inserted) {
      out.push_back(std::move(site));
      sampled.push_back(0);
    }
    sampled[it->second] += count;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t estimate = 0;
    if (__builtin_mul_overflow(sampled[i], uint64_t{sample_period}, &estimate)) {
      estimate = std::numeric_limits<uint64_t>::max();
    }
    out[i].launches = estimate;
  }
  std::sort(out.begin(), out.end(), [](const LaunchSite& a, const LaunchSite& b) {
    if (a.launches != b.launches) return a.launches > b.launches;
    return a.stack < b.stack;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace brrr
