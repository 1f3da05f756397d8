// `brrr diff A.brrr B.brrr`: two runs compared (collector/diff/report_diff.h), printed as text
// or JSON, optionally written as HTML and a folded stack diff, and the CI gate (--fail-if).
//
// Must never: exit 0 when a condition holds, or 1 for a usage error (those are 2).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "collector/cli/command_line.h"
#include "collector/cli/subcommands.h"
#include "collector/diff/fail_condition.h"
#include "collector/diff/report_diff.h"
#include "viewer/format/atomic_file.h"
#include "viewer/format/brrr_file.h"
#include "viewer/render_diff.h"

namespace brrr::cli {

int DiffSubcommand(const DiffOptions& options) {
  std::vector<Report> reports;
  for (const std::string& path : {options.a, options.b}) {
    absl::StatusOr<Report> r = ReadBrrrFile(path);
    if (!r.ok()) {
      // The reader's messages may name the file already.
      const std::string message(r.status().message());
      std::fprintf(stderr, "brrr diff: %s\n",
                   absl::StartsWith(message, path) ? message.c_str()
                                                   : absl::StrCat(path, ": ", message).c_str());
      return kUsageExitCode;
    }
    reports.push_back(*std::move(r));
  }
  const ReportDiff diff = diff::DiffReports(reports[0], reports[1]);
  std::vector<std::string> names;
  for (const DiffMetric& m : diff.metrics) names.push_back(m.name);
  std::vector<diff::FailCondition> conditions;
  for (const std::string& text : options.fail_if) {
    absl::StatusOr<diff::FailCondition> c = diff::ParseFailCondition(text, names);
    if (!c.ok()) {
      std::fprintf(stderr, "brrr diff: %s\n", std::string(c.status().message()).c_str());
      return kUsageExitCode;
    }
    conditions.push_back(*std::move(c));
  }
  const std::string shown = options.json ? RenderDiffJson(diff) : RenderDiffText(diff);
  std::fputs(shown.c_str(), stdout);
  for (const auto& [path, bytes] :
       {std::pair<std::string, std::string>{options.html,
                                            options.html.empty() ? "" : RenderDiffHtml(diff)},
        {options.folded_diff, options.folded_diff.empty() ? "" : RenderFoldedDiff(diff)}}) {
    if (path.empty()) continue;
    if (absl::Status w = WriteFileAtomically(path, bytes); !w.ok()) {
      std::fprintf(stderr, "brrr diff: %s: %s\n", path.c_str(), std::string(w.message()).c_str());
      return kUsageExitCode;
    }
  }
  int held = 0;
  for (const diff::FailCondition& c : conditions) {
    if (!diff::Holds(c, diff)) continue;
    ++held;
    std::fprintf(stderr, "brrr diff: fail-if holds: %s\n", c.text.c_str());
  }
  if (!conditions.empty() && held == 0) {
    std::fprintf(stderr, "brrr diff: none of the %zu fail-if conditions holds\n",
                 conditions.size());
  }
  return held > 0 ? 1 : 0;
}

}  // namespace brrr::cli
