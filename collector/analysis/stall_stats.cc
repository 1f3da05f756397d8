// StallStats grouping and the top-stalls report (see stall_stats.h).
//
// Must never: call the symbolizer for stack id 0, or more than once per reported stall.
#include "collector/analysis/stall_stats.h"

#include <algorithm>

namespace brrr {

void StallStats::Add(CallKey key, StallReason reason, uint32_t stack_id, int64_t blocked_ns) {
  if (blocked_ns < 0) blocked_ns = 0;
  uint64_t packed = Pack(key, reason, stack_id);
  auto it = sites_.find(packed);
  if (it == sites_.end()) {
    if (sites_.size() >= max_sites_) packed = Pack(key, reason, 0);
    it = sites_.try_emplace(packed).first;
  }
  ++it->second.calls;
  it->second.total_ns += blocked_ns;
  ++calls_;
  total_ns_ += blocked_ns;
}

std::vector<Stall> StallStats::Top(
    size_t limit, const ApiStats& names,
    const std::function<std::vector<std::string>(uint32_t)>& symbolize) const {
  struct Row {
    uint64_t packed;
    Totals totals;
  };
  std::vector<Row> rows;
  rows.reserve(sites_.size());
  for (const auto& [packed, totals] : sites_) rows.push_back({packed, totals});
  auto key_of = [](uint64_t packed) { return static_cast<CallKey>(packed >> 40); };
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.totals.total_ns != b.totals.total_ns) return a.totals.total_ns > b.totals.total_ns;
    if (a.totals.calls != b.totals.calls) return a.totals.calls > b.totals.calls;
    return a.packed < b.packed;
  });
  if (rows.size() > limit) rows.resize(limit);
  std::vector<Stall> out;
  for (const Row& row : rows) {
    Stall stall;
    stall.api = names.Name(key_of(row.packed));
    stall.reason =
        std::string(StallReasonName(static_cast<StallReason>((row.packed >> 32) & 0xFF)));
    stall.calls = row.totals.calls;
    stall.total_ns = row.totals.total_ns;
    const auto stack_id = static_cast<uint32_t>(row.packed);
    if (stack_id != 0 && symbolize) stall.stack = symbolize(stack_id);
    out.push_back(std::move(stall));
  }
  return out;
}

}  // namespace brrr
