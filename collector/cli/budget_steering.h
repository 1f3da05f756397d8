// Steers sampled device tracing under an overhead budget during a run (analysis/overhead_budget.h):
// after each drain, once a second, reads what the app has done so far (host records from the
// reader, launch calls and the A/B from the analysis) and writes the traced share it wants into
// the segment's header, which the shim's control thread applies. Does nothing for a run without a
// budget.
//
// Runs on the drain thread (the analysis' own). Must never: write a share outside 1..999 permille.
#ifndef BRRR_COLLECTOR_CLI_BUDGET_STEERING_H_
#define BRRR_COLLECTOR_CLI_BUDGET_STEERING_H_

#include <cstdint>
#include <optional>

#include "collector/analysis/analysis.h"
#include "collector/analysis/overhead_budget.h"
#include "collector/ingest/segment_reader.h"

namespace brrr::cli {

class BudgetSteering {
 public:
  explicit BudgetSteering(ingest::SegmentReader* reader) : reader_(reader) {}
  void AfterDrain(const Analysis& analysis);

 private:
  ingest::SegmentReader* reader_;
  std::optional<OverheadBudget> budget_;  // once the shim has written its budget
  int64_t next_look_ns_ = 0;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_BUDGET_STEERING_H_
