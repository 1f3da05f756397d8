// What `brrr diff A.brrr B.brrr` decided (collector/diff/report_diff.h): the metrics of two runs
// side by side, whether each changed significantly, and the stalls and kernels per step. Rendered
// as text, as JSON "brrr.diff/1" (viewer/render_diff.h) and as a folded stack diff.
//
// Must never: hold anything the renderers would have to decide (significance is decided here).
#ifndef BRRR_VIEWER_FORMAT_DIFF_H_
#define BRRR_VIEWER_FORMAT_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace brrr {

inline constexpr char kDiffSchema[] = "brrr.diff/1";

struct DiffMetric {
  std::string name;    // step_wall_p50_ns, launches_per_step, sync_calls_per_step[cudaFree], ...
  bool count = false;  // an exact count (any change is one) rather than a timing
  double a = 0, b = 0;
  double delta = 0;                 // b - a
  std::optional<double> delta_pct;  // 100 * (b - a) / a; absent when a is 0
  bool significant = false;
  std::string test;  // how `significant` was decided, in words
};

struct DiffStall {
  std::string reason;
  std::string api;
  std::vector<std::string> stack;  // innermost first
  double a_calls_per_step = 0, b_calls_per_step = 0;
  double a_ns_per_step = 0, b_ns_per_step = 0;
};

struct DiffKernel {
  std::string name;
  double a_device_ns_per_step = 0, b_device_ns_per_step = 0;
};

struct ReportDiff {
  std::string basis;  // "steps" (both runs have steps) or "run" (each run counts as one step)
  uint64_t a_steps = 1, b_steps = 1;
  std::string a_command, b_command;
  std::string a_verdict, b_verdict;  // "regime: why"
  std::string significance_rule;  // how `significant` is decided, in one line
  std::vector<DiffMetric> metrics;
  std::vector<DiffStall> stalls;    // matched by reason and stack; new and gone ones too
  // Syncing calls (report.h, SyncCalls) by site, matched the same way: calls per step are exact,
  // ns per step is the host time in them. Empty when either report predates them.
  std::vector<DiffStall> sync_sites;
  // Each run's sites beyond the rows it kept (kMaxSyncSitesKept): new and gone sites are
  // decided among the rows, so a nonzero count says they may be incomplete.
  uint64_t sync_sites_not_kept = 0;
  std::vector<DiffKernel> kernels;  // by the larger of the two, descending
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_DIFF_H_
