// BudgetSteering (see budget_steering.h).
#include "collector/cli/budget_steering.h"

#include <algorithm>
#include <cmath>

#include "collector/ingest/clock_pair.h"

namespace brrr::cli {

void BudgetSteering::AfterDrain(const Analysis& analysis) {
  const int64_t now = ingest::MonotonicNowNs();
  if (now < next_look_ns_) return;
  next_look_ns_ = now + 100'000'000;  // the header and the step clock: 10 looks a second at most
  const RunInfo info = reader_->ReadRunInfo();
  if (info.device_budget_permille == 0 || info.device_sample_permille >= 1000) return;
  if (!budget_.has_value()) {
    OverheadBudget::Options options;
    options.budget = info.device_budget_permille / 1000.0;
    budget_.emplace(options, info.hook_record_ns);
  }
  const TracedWindows& windows = analysis.traced_windows();
  const double current = info.device_sample_permille / 1000.0;
  std::optional<int64_t> per_traced_launch;
  if (const std::optional<double> cost = windows.CostPerTracedLaunchNs(
          {info.cupti_detaches, info.cupti_detach_ns, info.cupti_attach_ns})) {
    per_traced_launch = std::llround(*cost);
  }
  const std::optional<OverheadBudget::StepResult> step =
      budget_->Step({now, info.host_records, windows.launch_calls(), per_traced_launch}, current);
  if (!step.has_value()) return;
  const auto permille =
      static_cast<uint32_t>(std::clamp<long>(std::lround(step->share * 1000), 1, 999));
  if (permille != info.device_sample_permille) reader_->RequestDeviceSample(permille);
}

}  // namespace brrr::cli
