// Reading the per-process .brrr files of a job (`brrr merge`, and `brrr run` of a process tree):
// every file must read cleanly and be one process's report, or nothing is merged.
//
// Must never: return a partial list (the first bad file fails the whole read, named).
#ifndef BRRR_COLLECTOR_CLI_PROCESS_REPORTS_H_
#define BRRR_COLLECTOR_CLI_PROCESS_REPORTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "viewer/format/report.h"

namespace brrr::cli {

// The reports of `paths`, in order. Errors name the file (and what is wrong with it); a file that
// is already a job report is refused (merge the per-process files instead).
absl::StatusOr<std::vector<Report>> ReadProcessReports(const std::vector<std::string>& paths);

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_PROCESS_REPORTS_H_
