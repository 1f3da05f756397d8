// A process's collective kernels (NCCL's: ncclDevKernel_*, older ncclKernel_*; DESIGN.md fact 16)
// per stream, in the order they started: the report's `collectives`, which the job merge matches
// across ranks (collector/job/collective_waits.h). Keeps the first kMaxCollectivesKept and counts
// them all.
//
// Not thread-safe. Must never: keep more than kMaxCollectivesKept entries, or cost more than a
// prefix compare for a kernel that is not a collective.
#ifndef BRRR_COLLECTOR_ANALYSIS_COLLECTIVE_LOG_H_
#define BRRR_COLLECTOR_ANALYSIS_COLLECTIVE_LOG_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "collector/analysis/name_id_table.h"
#include "viewer/format/report.h"

namespace brrr {

// Whether a kernel's name (plain, or mangled as _Z<length><name>...) starts with ncclDevKernel_
// or ncclKernel_.
bool IsCollectiveKernelName(std::string_view name);

class CollectiveLogBuilder {
 public:
  // A kernel of any name: kept when it is a collective's.
  // `name_id` as in KernelStats::Add: a name's verdict is remembered by its id.
  void AddKernel(std::string_view name, uint32_t stream_id, int64_t start_ns, int64_t end_ns,
                 uint32_t name_id = 0) {
    if (IsCollective(name, name_id)) Add(stream_id, start_ns, end_ns);
  }
  // The log (each stream's kernels ordered by start; unix_minus_monotonic_ns left 0 for the
  // caller); absent when there was no collective.
  std::optional<CollectiveLog> Build() const;

 private:
  struct Entry {
    int64_t start_ns;
    int64_t end_ns;
  };
  struct Stream {
    uint32_t id;
    std::vector<Entry> entries;
  };
  void Add(uint32_t stream_id, int64_t start_ns, int64_t end_ns);
  // Inline: a name id seen before is one lookup.
  bool IsCollective(std::string_view name, uint32_t name_id) {
    const uint8_t* verdict = verdict_by_name_id_.Find(name_id);
    if (verdict != nullptr && *verdict != 0) return *verdict == 1;
    return DecideCollective(name, name_id);
  }
  bool DecideCollective(std::string_view name, uint32_t name_id);

  uint64_t count_ = 0;
  size_t kept_ = 0;
  std::vector<Stream> streams_;  // by their first collective
  NameIdTable<uint8_t> verdict_by_name_id_;  // 0 = not seen, 1 = collective, 2 = not
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_COLLECTIVE_LOG_H_
