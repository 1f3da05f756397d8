// The file a collection's report goes to, claimed when the collection starts: an empty 0600 file
// created with O_EXCL. When the name exists already (an earlier run's report, or the report of the
// image a process had before it exec'd), the report goes to a numbered sibling instead (NAME-1.brrr,
// NAME-2.brrr, ...): an existing report is never replaced. When the name cannot be created (no
// such directory, no permission), the default name in the working directory is tried, then the
// same in $TMPDIR or /tmp: a bad --output is found at the start, never after an hour-long job.
// Every later write of the collection (live snapshots, the final report) replaces its own claimed
// file atomically.
//
// Must never: replace or truncate a file it did not create, or return a path it could not create.
#ifndef BRRR_COLLECTOR_CLI_REPORT_PATH_H_
#define BRRR_COLLECTOR_CLI_REPORT_PATH_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace brrr::cli {

struct ClaimedPath {
  std::string path;  // created, empty, ours
  // One line for the user when `path` is not what was asked for ("" otherwise): why, and where
  // the report goes. Printed even under --quiet (the user would look for the asked-for file).
  std::string note;
};

// Claims `wanted` (or a sibling or fallback as above) for the report of process `pid`. An error
// only when nothing at all could be created.
absl::StatusOr<ClaimedPath> ClaimReportPath(const std::string& wanted, pid_t pid);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_REPORT_PATH_H_
