// OverheadBudget (see overhead_budget.h).
#include "collector/analysis/overhead_budget.h"

#include <algorithm>

namespace brrr {

std::optional<OverheadBudget::StepResult> OverheadBudget::Step(const Totals& now, double current) {
  if (!last_.has_value()) {
    last_ = now;
    return std::nullopt;
  }
  const int64_t wall = now.now_ns - last_->now_ns;
  if (wall < options_.step_ns) return std::nullopt;
  const double records =
      static_cast<double>(now.host_records >= last_->host_records
                              ? now.host_records - last_->host_records
                              : 0);
  const double launches =
      static_cast<double>(now.launch_calls >= last_->launch_calls
                              ? now.launch_calls - last_->launch_calls
                              : 0);
  last_ = now;
  const double hooks = records * hook_record_ns_;
  const double added = now.tracing_ns_per_launch.has_value()
                           ? static_cast<double>(*now.tracing_ns_per_launch)
                           : options_.assumed_ns_per_launch;
  StepResult r;
  r.cost_share = (hooks + (added > 0 ? launches * current * added : 0)) / static_cast<double>(wall);
  const double lo = std::max(current / options_.max_down, options_.min_share);
  const double hi = std::min(current * options_.max_up, options_.max_share);
  const double room = options_.margin * options_.budget * static_cast<double>(wall) - hooks;
  double share = current;
  if (room <= 0) {
    // The hooks alone spend the budget: trace less, whatever the A/B says (on a loaded machine it
    // can see nothing added, and tracing more would only add to the overspend).
    share = lo;
  } else if (added <= 0 || launches == 0) {
    share = hi;  // tracing adds nothing measurable (or nothing launched): trace more
  } else {
    share = room / (launches * added);
  }
  r.share = std::clamp(share, std::min(lo, hi), hi);
  r.share = std::clamp(r.share, options_.min_share, options_.max_share);
  return r;
}

}  // namespace brrr
