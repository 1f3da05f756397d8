// Steers sampled device tracing under an overhead budget (BRRR_OVERHEAD_BUDGET, `brrr run
// --overhead-budget=PCT`): once a step (about a second of the run) it measures what the step cost
// the app, and picks the traced share that keeps that cost at `margin` x the budget:
//   hooks    = host records made in the step x the record cost the shim timed at start;
//   tracing  = launch calls made in the step x the share traced x what tracing costs per launch
//              call traced (the A/B inside the run, and the windows' first calls, detaches and
//              attaches per call inside: TracedWindows::CostPerTracedLaunchNs);
//   share'   = (margin x budget x step wall - hooks) / (launch calls x added per call),
// within [min_share, max_share], and per step at most a factor `max_up` above the current share or
// `max_down` below it (the A/B is noisy and the loop may change; over budget is worse than
// under). Until the A/B has enough calls on both sides, tracing is assumed to add
// assumed_ns_per_launch to a call (pessimistic: real CUPTI adds about 1 us, DESIGN.md fact 18), so
// a budget run starts low (the shim starts it at 2 %) and grows only as far as that allows; when
// tracing adds nothing measurable the share grows by max_up. When the hooks alone spend the
// budget, the share falls to min_share and the report says the budget could not be met.
//
// What it cannot see: what CUPTI costs between windows while subscribed with every kind off
// (DESIGN.md fact 18, about 0.3 us per call on a real driver); the report's cost basis says so.
//
// Plain arithmetic, not thread-safe. Must never: ask for a share outside [min_share, max_share].
#ifndef BRRR_COLLECTOR_ANALYSIS_OVERHEAD_BUDGET_H_
#define BRRR_COLLECTOR_ANALYSIS_OVERHEAD_BUDGET_H_

#include <cstdint>
#include <optional>

namespace brrr {

class OverheadBudget {
 public:
  struct Options {
    double budget = 0.02;  // share of wall
    double margin = 0.8;
    double min_share = 0.005;
    double max_share = 0.9;
    double max_up = 2;
    double max_down = 4;
    double assumed_ns_per_launch = 5'000;
    int64_t step_ns = 1'000'000'000;
  };
  // What the run has done so far (cumulative), as of now_ns.
  struct Totals {
    int64_t now_ns = 0;
    uint64_t host_records = 0;
    uint64_t launch_calls = 0;
    // What tracing costs the app per launch call inside a window, the span after it where CUPTI
    // waits to detach, the window's first call and its detach and attach included
    // (TracedWindows::CostPerTracedLaunchNs); nullopt: not measured yet.
    std::optional<int64_t> tracing_ns_per_launch;
  };
  // One step's measurement, and the share it chose.
  struct StepResult {
    double cost_share = 0;  // what the step cost the app, as a share of its wall
    double share = 0;       // the share to trace from now
  };

  OverheadBudget(const Options& options, uint32_t hook_record_ns)
      : options_(options), hook_record_ns_(hook_record_ns) {}

  // nullopt until a step has passed since the previous one (the first call only starts the
  // clock); then the step's cost and the share to trace (which may equal `current`).
  std::optional<StepResult> Step(const Totals& now, double current);

 private:
  Options options_;
  uint32_t hook_record_ns_;
  std::optional<Totals> last_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_OVERHEAD_BUDGET_H_
