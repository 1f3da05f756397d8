// The collection shared by `brrr run` and `brrr attach`. See collector_session.h.
//
// Must never: print anything itself.
#include "collector/cli/collector_session.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collector/cli/output_path.h"
#include "collector/cli/report_path.h"
#include "collector/cli/trace_fold_rule.h"

namespace brrr::cli {
namespace {

AnalysisOptions OptionsWithSteps(const std::string& step_range_name) {
  AnalysisOptions options;
  options.step_range_name = step_range_name;
  return options;
}

}  // namespace

CollectorSession::CollectorSession(const Setup& setup, Warn warn)
    : reader_(setup.reader),
      pid_(setup.pid),
      warn_(std::move(warn)),
      analysis_(OptionsWithSteps(setup.step_range_name)),
      maps_sink_(&analysis_, &maps_, setup.pid),
      budget_(setup.reader) {
  analysis_.SetRunInfo(setup.known);
  if (setup.trace_cap.has_value()) {
    trace_.emplace(&maps_sink_, *setup.trace_cap, static_cast<uint32_t>(setup.pid),
                   &TraceFoldRule);
  }
}

void CollectorSession::ClaimReportFile(ReportOutput* output, const ProcessIdentity& who) {
  auto claimed = ClaimReportPath(
      ExpandOutputPattern(output->output_pattern, pid_, who.rank, who.host), pid_);
  if (claimed.ok()) {
    output->destination = std::make_shared<ReportDestination>(claimed->path);
    if (!claimed->note.empty()) warn_(claimed->note);
  } else {
    warn_(std::string(claimed.status().message()) + "; the report is only printed");
  }
}

void CollectorSession::StartSnapshots(std::chrono::milliseconds every, const std::string& path,
                                      const ProcessIdentity* identity,
                                      const ReportOutput& output) {
  snapshots_.emplace(every, path, identity);
  snapshots_->SetDestination(output.destination.get());
}

bool CollectorSession::StartMetrics(const std::string& addr, int64_t rank, bool say_failure) {
  if (const absl::Status s = metrics_.Start(addr); !s.ok()) {
    if (say_failure) warn_(absl::StrCat(s.message(), "; no metrics endpoint"));
    return false;
  }
  // Port 0: nobody knows the port but this process, so it is said (whatever else is quiet).
  if (metrics_.port_chosen_by_system()) {
    warn_(absl::StrCat("serving metrics at http://", metrics_.address(), "/metrics"));
  }
  snapshots_->SetMetrics(&metrics_, rank, static_cast<uint32_t>(pid_));
  return true;
}

void CollectorSession::AfterDrain(const RunInfo& known) {
  budget_.AfterDrain(analysis_);
  if (snapshots_.has_value()) snapshots_->MaybeWrite(*reader_, analysis_, maps_, known);
}

absl::Status CollectorSession::FinishAndReport(const RunInfo& info, const ReportOutput& output,
                                               const ProcessIdentity* identity) {
  return cli::FinishAndReport(*reader_, analysis_, maps_, info, pid_, output, trace(), identity);
}

}  // namespace brrr::cli
