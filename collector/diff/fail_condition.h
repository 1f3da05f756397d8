// The CI gate of `brrr diff --fail-if EXPR`: EXPR is `METRIC OP VALUE` with OP one of > >= < <=
// and VALUE a signed number, optionally with % (a relative change, delta_pct) or without (an
// absolute change, delta, in the metric's unit), e.g. 'step_wall_p50_ns > +10%',
// 'sync_calls_per_step > +0', 'new_sync_sites > 0', 'sync_calls_per_step[cudaFree] > +0',
// 'device_busy_pct < -5'. A condition holds when the comparison does and, for a timing, the
// change is significant (report_diff.h); a count holds on any change that satisfies it. A change
// from 0 is +inf% (or 0% when both are 0). A per-API metric names an API either run called.
//
// Must never: accept a malformed condition or an unknown metric (the error says what is wrong).
#ifndef BRRR_COLLECTOR_DIFF_FAIL_CONDITION_H_
#define BRRR_COLLECTOR_DIFF_FAIL_CONDITION_H_

#include <string>

#include "absl/status/statusor.h"
#include "viewer/format/diff.h"

namespace brrr::diff {

struct FailCondition {
  std::string text;  // as given
  std::string metric;
  enum class Op { kGreater, kGreaterEqual, kLess, kLessEqual } op = Op::kGreater;
  double value = 0;
  bool percent = false;
};

// `known_metrics`: the names a diff has (a condition on another is refused).
absl::StatusOr<FailCondition> ParseFailCondition(const std::string& text,
                                                 const std::vector<std::string>& known_metrics);

// Whether the condition holds for `diff` (its metric is there: ParseFailCondition checked).
bool Holds(const FailCondition& condition, const ReportDiff& diff);

}  // namespace brrr::diff

#endif  // BRRR_COLLECTOR_DIFF_FAIL_CONDITION_H_
