// Collective kernels per stream. See collective_log.h.
//
// Must never: grow past kMaxCollectivesKept entries.
#include "collector/analysis/collective_log.h"

#include <algorithm>

namespace brrr {

bool IsCollectiveKernelName(std::string_view name) {
  if (name.size() < 11) return false;
  if (name[0] == '_' && name[1] == 'Z') {  // _Z[L]<length><identifier>
    name.remove_prefix(2);
    if (!name.empty() && name[0] == 'L') name.remove_prefix(1);
    size_t digits = 0;
    while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') ++digits;
    if (digits == 0) return false;
    name.remove_prefix(digits);
  }
  return name.starts_with("ncclDevKernel_") || name.starts_with("ncclKernel_");
}

bool CollectiveLogBuilder::DecideCollective(std::string_view name, uint32_t name_id) {
  uint8_t* verdict = verdict_by_name_id_.Slot(name_id);
  if (verdict == nullptr) return IsCollectiveKernelName(name);
  *verdict = IsCollectiveKernelName(name) ? 1 : 2;  // IsCollective found no verdict under this id
  return *verdict == 1;
}

void CollectiveLogBuilder::Add(uint32_t stream_id, int64_t start_ns, int64_t end_ns) {
  ++count_;
  if (kept_ >= kMaxCollectivesKept) return;
  auto it = std::find_if(streams_.begin(), streams_.end(),
                         [&](const Stream& s) { return s.id == stream_id; });
  if (it == streams_.end()) {
    streams_.push_back({stream_id, {}});
    it = streams_.end() - 1;
  }
  it->entries.push_back({start_ns, std::max(end_ns, start_ns)});
  ++kept_;
}

std::optional<CollectiveLog> CollectiveLogBuilder::Build() const {
  if (count_ == 0) return std::nullopt;
  CollectiveLog log;
  log.count = count_;
  for (const Stream& s : streams_) {
    std::vector<Entry> entries = s.entries;
    // CUPTI delivers a stream's records in order; a buffer delivered late is put back in place.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.start_ns < b.start_ns; });
    CollectiveStream& out = log.streams.emplace_back();
    out.stream_id = s.id;
    out.start_ns.reserve(entries.size());
    out.end_ns.reserve(entries.size());
    for (const Entry& e : entries) {
      out.start_ns.push_back(e.start_ns);
      out.end_ns.push_back(e.end_ns);
    }
  }
  return log;
}

}  // namespace brrr
