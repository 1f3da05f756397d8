// Per-kernel device time: launches, total and mean device ns, by kernel name (demangled at report
// time with abi::__cxa_demangle; template arguments kept, nothing stripped). Also the distribution
// of kernel durations (for the verdict's "median kernel"), and the kernels' classes
// (kernel_class.h), each distinct name classified once, at report time.
//
// Memory: bounded by distinct kernel names, capped at max_names; further names fold into
// "<other>". Not thread-safe. Must never: demangle or allocate on the per-kernel path (except for
// a name's first occurrence).
#ifndef BRRR_COLLECTOR_ANALYSIS_KERNEL_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_KERNEL_STATS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/log_histogram.h"
#include "collector/analysis/name_id_table.h"
#include "viewer/format/report.h"

namespace brrr {

// "_Z6squarePfi" -> "square(float*, int)"; anything that does not demangle is returned as is.
std::string DemangleKernelName(std::string_view name);

class KernelStats {
 public:
  explicit KernelStats(size_t max_names = 10'000);

  // `name_id`: the segment's id of `name` (DeviceOp.name_id; 0 = none): a name seen once under
  // an id is then found by the id, without hashing.
  // Inline: every kernel record comes here.
  void Add(std::string_view name, int64_t duration_ns, uint32_t name_id = 0) {
    if (duration_ns < 0) duration_ns = 0;
    Entry& entry = entries_[IndexOf(name, name_id)];
    ++entry.launches;
    entry.device_ns += duration_ns;
    ++launches_;
    device_ns_ += duration_ns;
    durations_.Add(duration_ns);
  }

  uint64_t launches() const { return launches_; }
  int64_t device_ns() const { return device_ns_; }
  const LogHistogram& durations() const { return durations_; }
  size_t distinct_names() const { return entries_.size(); }
  uint64_t folded_launches() const { return folded_launches_; }

  // The demangled name of the kernel seen under `name_id`; "" when none was (or its name was
  // folded into "<other>").
  std::string NameOf(uint32_t name_id) const;

  // The top `limit` kernels by device_ns (ties by name), names demangled, each with its class.
  std::vector<KernelStat> Top(size_t limit) const;
  // Every class with kernels, by device_ns descending (ties by class name). Their device_ns add up
  // to device_ns() and their launches to launches(); names folded into "<other>" count as other.
  std::vector<KernelClassStat> Classes() const;

 private:
  struct Entry {
    std::string name;
    uint64_t launches = 0;
    int64_t device_ns = 0;
  };
  size_t IndexOf(std::string_view name);
  // Inline: a name id seen before is one lookup.
  size_t IndexOf(std::string_view name, uint32_t name_id) {
    const uint32_t* known = index_by_name_id_.Find(name_id);
    if (known != nullptr && *known != 0) return *known - 1;
    return IndexOfNewId(name, name_id);
  }
  size_t IndexOfNewId(std::string_view name, uint32_t name_id);

  size_t max_names_;
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, size_t> index_;
  NameIdTable<uint32_t> index_by_name_id_;  // entry index + 1; 0 = not seen under that id
  size_t last_index_ = SIZE_MAX;
  size_t other_index_ = SIZE_MAX;
  uint64_t launches_ = 0;
  int64_t device_ns_ = 0;
  uint64_t folded_launches_ = 0;
  LogHistogram durations_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_KERNEL_STATS_H_
