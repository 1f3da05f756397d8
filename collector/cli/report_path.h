// The file a collection's report goes to. Its name is chosen when the collection starts: when the
// wanted name exists already (an earlier run's report, or the report of the program a process ran
// before it exec'd), a numbered sibling (NAME-1.brrr, NAME-2.brrr, ...); when its directory cannot
// be written (no such directory, no permission: probed with a temporary file, removed at once),
// the default name in the working directory, then in $TMPDIR or /tmp. A bad --output is found at
// the start, never after an hour-long job. Nothing is created then: the first write of the
// collection (a live snapshot or the final report) moves its file into place without replacing
// anything (a name taken meanwhile moves on to the next sibling, said once); later writes replace
// the collection's own file atomically. An existing report is never replaced.
//
// Thread-safety: a ReportDestination is used by one thread at a time (the drain thread writes the
// snapshots, the main thread the final report after the drain thread stopped).
// Must never: replace or truncate a file the collection did not write itself.
#ifndef BRRR_COLLECTOR_CLI_REPORT_PATH_H_
#define BRRR_COLLECTOR_CLI_REPORT_PATH_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "viewer/format/report.h"
#include "viewer/format/trace.h"

namespace brrr::cli {

struct ClaimedPath {
  std::string path;
  // One line for the user when `path` is not what was asked for ("" otherwise): why, and where
  // the report goes. Printed even under --quiet (the user would look for the asked-for file).
  std::string note;
};

// Chooses the file for the report of process `pid`, wanted at `wanted`, as above. An error only
// when no directory at all could be written.
absl::StatusOr<ClaimedPath> ClaimReportPath(const std::string& wanted, pid_t pid);

// NAME.brrr -> NAME-n.brrr; a name without an extension gets "-n" at its end.
std::string NumberedSibling(const std::string& path, int n);

class ReportDestination {
 public:
  explicit ReportDestination(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // Writes `report` (with `trace` when not null). The first write never replaces a file: when
  // the name was taken since it was chosen, the next free sibling is used and `*moved` (when
  // not null) says so. Later writes replace the collection's own file.
  absl::Status Write(const Report& report, const Trace* trace, std::string* moved = nullptr);

 private:
  std::string path_;
  bool written_ = false;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_REPORT_PATH_H_
