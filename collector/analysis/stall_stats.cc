// StallStats grouping and the top-stalls report (see stall_stats.h).
//
// Must never: call the symbolizer for stack id 0, or more than once per distinct site.
#include "collector/analysis/stall_stats.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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
  auto key_of = [](uint64_t packed) { return static_cast<CallKey>(packed >> 40); };
  // Sites that read the same to a person (same API, reason and symbolized frames) are one row:
  // an unrolled or duplicated call site has several return addresses for one source line.
  std::vector<Stall> out;
  absl::flat_hash_map<std::string, size_t> row_of;
  for (const auto& [packed, totals] : sites_) {
    Stall stall;
    stall.api = names.Name(key_of(packed));
    stall.reason = std::string(StallReasonName(static_cast<StallReason>((packed >> 32) & 0xFF)));
    const auto stack_id = static_cast<uint32_t>(packed);
    if (stack_id == kCuptiRecordStack) {
      stall.ended_early = kCuptiRecordOnlyWhy;
    } else if (stack_id != 0 && symbolize) {
      stall.stack = symbolize(stack_id);
    }
    std::string key = absl::StrCat(stall.api, "\n", stall.reason, "\n", stall.ended_early, "\n",
                                   absl::StrJoin(stall.stack, "\n"));
    auto [it, inserted] = row_of.try_emplace(std::move(key), out.size());
    if (inserted) out.push_back(std::move(stall));
    out[it->second].calls += totals.calls;
    out[it->second].total_ns += totals.total_ns;
  }
  std::sort(out.begin(), out.end(), [](const Stall& a, const Stall& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.calls != b.calls) return a.calls > b.calls;
    if (a.api != b.api) return a.api < b.api;
    if (a.reason != b.reason) return a.reason < b.reason;
    return a.stack < b.stack;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace brrr
