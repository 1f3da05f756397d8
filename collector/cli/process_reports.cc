// Reading a job's per-process files. See process_reports.h.
//
// Must never: accept a job report as a process (its totals would be counted twice).
#include "collector/cli/process_reports.h"

#include "absl/strings/str_cat.h"
#include "viewer/format/brrr_file.h"

namespace brrr::cli {

absl::StatusOr<std::vector<Report>> ReadProcessReports(const std::vector<std::string>& paths) {
  std::vector<Report> reports;
  reports.reserve(paths.size());
  for (const std::string& path : paths) {
    absl::StatusOr<Report> report = ReadBrrrFile(path);
    if (!report.ok()) return report.status();  // names the file
    if (report->job.has_value() || !report->processes.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": already a job report (", report->processes.size(),
                       " processes); merge the per-process files instead"));
    }
    reports.push_back(*std::move(report));
  }
  return reports;
}

}  // namespace brrr::cli
