// Two reports compared (`brrr diff A B`): the metrics a before/after change moves, per step when
// both runs have steps (collector/analysis/step_ledger.h; basis "steps"), else for the whole run
// as one step (basis "run"), and whether each moved significantly:
//  - exact counts (launches, syncing calls, bytes copied per step; sync sites new and gone): they
//    do not depend on timing, so any change is one; these are what a CI gate should use;
//  - step times: a Mann-Whitney U test of the two runs' per-step walls at p < kAlpha, and an
//    effect of at least kMinStepEffectPct (two runs of one program differ by a little, always);
//    with fewer than kMinTestSteps steps in either run: "n too small", never significant;
//  - timings without per-step samples (busy share, stall and kernel time per step, launch
//    latency) and stalls per step (a call stalls or not by how long it waited: timing) move
//    significantly only past a larger minimum effect, stated per metric.
// Stalls and sync sites are matched by reason, API and stack (new and gone ones included);
// kernels by name. Per-site and per-API figures are the run's calls divided by its steps.
//
// Must never: call a timing significant on noise between runs of one program, or divide by zero.
#ifndef BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_
#define BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_

#include "viewer/format/diff.h"
#include "viewer/format/report.h"

namespace brrr::diff {

inline constexpr double kAlpha = 0.01;
inline constexpr double kMinStepEffectPct = 5;      // step times, with the test
inline constexpr size_t kMinTestSteps = 8;          // per run, for the rank test
inline constexpr double kMinTimingEffectPct = 10;   // stall and kernel time per step, no samples
inline constexpr double kMinLatencyEffectPct = 20;  // launch latency p50: noisy on a loaded host
inline constexpr double kMinBusyEffectPoints = 5;   // device busy %, in points

ReportDiff DiffReports(const Report& a, const Report& b);

}  // namespace brrr::diff

#endif  // BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_
