// Finding and removing the shared-memory segments of runs that are over: a segment stays in
// /dev/shm when its app and its collector both died (SIGKILL, a crash, a collector that could not
// start). A leftover is a segment that is the user's own, carries brrr's header, is at least
// min_age old, and whose creator (the pid in the name) and app (the pid in the header) are both
// gone. Its report was either written (the collector set collector_done) or not: then the segment
// is the only copy of the run, and `brrr attach --shm NAME --pid PID` (the command the shim
// printed) recovers it.
//
// `brrr run` and every collector look once when they start: they remove collected leftovers, and
// uncollected ones only once they are kUncollectedKeep old. `brrr clean` removes every leftover,
// collected or not. Removing a name never disturbs a process that still maps the segment.
//
// Must never: remove a segment of another user, one that is not brrr's, a young one (its
// collector may be about to open it), one of a process that lives, or an uncollected one before
// its keep time outside `brrr clean`; or trust the file's bytes beyond the header it
// bounds-checks.
#ifndef BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_
#define BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace brrr::cli {

inline constexpr std::chrono::seconds kLeftoverMinAge{60};
// How long a dead run's segment that no collector finished is kept for `brrr attach`.
inline constexpr std::chrono::seconds kUncollectedKeep{7 * 24 * 3600};

struct LeftoverScan {
  std::string dir = "/dev/shm";
  uid_t uid = 0;                                      // whose segments
  std::chrono::seconds min_age = kLeftoverMinAge;     // since the file's last status change
  // Uncollected leftovers younger than this are found but not removable (0: all removable).
  std::chrono::seconds uncollected_keep = kUncollectedKeep;
  std::function<bool(pid_t)> alive;                   // default: kill(pid, 0) != ESRCH
  std::string keep;  // a segment name ("/brrr-...") never to remove: the one being collected
};

struct LeftoverSegment {
  std::string path;
  uint64_t bytes = 0;      // what it holds of the tmpfs (its blocks in use, not its size)
  pid_t app = 0;           // the pid in its header (0: unknown)
  bool collected = false;  // its report was written (collector_done)
  bool removable = false;  // collected, or uncollected and past the scan's uncollected_keep
};

// The leftover segments in `scan.dir`.
std::vector<LeftoverSegment> FindLeftoverSegments(const LeftoverScan& scan);

struct LeftoverCleanup {
  size_t removed = 0;
  uint64_t removed_bytes = 0;
  // The uncollected ones kept, and one of them for the message (its name, "/brrr-...", and app).
  size_t kept = 0;
  uint64_t kept_bytes = 0;
  std::string kept_name;
  pid_t kept_app = 0;
};

// Removes the removable ones.
LeftoverCleanup RemoveLeftoverSegments(const LeftoverScan& scan);

// What `brrr run` says about a cleanup: one line for what was removed, one for what was kept and
// how to recover or remove it; "" when neither.
std::string DescribeCleanup(const LeftoverCleanup& cleanup);

// The scan for this user's /dev/shm.
LeftoverScan DefaultLeftoverScan();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_
