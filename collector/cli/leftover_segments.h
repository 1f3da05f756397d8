// Finding and removing the shared-memory segments of runs that are over: a segment stays in
// /dev/shm when its app and its collector both died (SIGKILL, a crash, a collector that could not
// start). `brrr run` and every collector look once when they start and remove the names of
// segments that are the user's own, carry brrr's header, are at least kLeftoverMinAge old, and
// whose creator (the pid in the name) and app (the pid in the header) are both gone. Removing a
// name never disturbs a process that still maps the segment.
//
// Must never: remove a segment of another user, one that is not brrr's, a young one (its
// collector may be about to open it), or one of a process that lives; or trust the file's bytes
// beyond the header it bounds-checks.
#ifndef BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_
#define BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace brrr::cli {

inline constexpr std::chrono::seconds kLeftoverMinAge{60};

struct LeftoverScan {
  std::string dir = "/dev/shm";
  uid_t uid = 0;                                      // whose segments
  std::chrono::seconds min_age = kLeftoverMinAge;     // since the file's last status change
  std::function<bool(pid_t)> alive;                   // default: kill(pid, 0) != ESRCH
  std::string keep;  // a segment name ("/brrr-...") never to remove: the one being collected
};

// The paths of the leftover segments in `scan.dir`.
std::vector<std::string> FindLeftoverSegments(const LeftoverScan& scan);

// Removes them; returns how many names were removed.
size_t RemoveLeftoverSegments(const LeftoverScan& scan);

// The scan for this user's /dev/shm.
LeftoverScan DefaultLeftoverScan();

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_LEFTOVER_SEGMENTS_H_
