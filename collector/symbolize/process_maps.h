// The executable mappings of the profiled process, captured from /proc/<pid>/maps while it runs
// (a dead process has none) and accumulated: a later capture replaces the regions it overlaps and
// keeps the rest, so a library unloaded mid-run can still be symbolized.
//
// Thread-safety: none; one owner at a time (the drain thread while running, then the symbolizer).
// Must never: fail on a malformed line (it is skipped), or keep non-executable regions (memory
// stays proportional to loaded code, not to the app's allocations).
#ifndef BRRR_COLLECTOR_SYMBOLIZE_PROCESS_MAPS_H_
#define BRRR_COLLECTOR_SYMBOLIZE_PROCESS_MAPS_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace brrr::symbolize {

struct MappedRegion {
  uint64_t start = 0;   // first address
  uint64_t end = 0;     // one past the last
  uint64_t offset = 0;  // file offset of `start`
  std::string path;     // "" for anonymous memory; "[vdso]" etc. for kernel-named regions
};

class ProcessMaps {
 public:
  // Merges the executable regions listed in `maps_text` (the format of /proc/<pid>/maps).
  void Merge(absl::string_view maps_text);
  // Reads /proc/<pid>/maps and merges it.
  absl::Status Capture(pid_t pid);

  // The region holding `address`, or nullptr.
  const MappedRegion* Find(uint64_t address) const;
  size_t size() const { return regions_.size(); }
  uint64_t captures() const { return captures_; }

 private:
  std::map<uint64_t, MappedRegion> regions_;  // by start
  uint64_t captures_ = 0;
};

}  // namespace brrr::symbolize

#endif  // BRRR_COLLECTOR_SYMBOLIZE_PROCESS_MAPS_H_
