// Two reports compared (`brrr diff A B`): the metrics a before/after change moves, per step when
// both runs have steps (collector/analysis/step_ledger.h; basis "steps"), else for the whole run
// as one step (basis "run"), and whether each moved significantly:
//  - counts (launches, stalls, bytes per step) are exact in a deterministic loop: any change is;
//  - step times: a Mann-Whitney U test of the two runs' per-step walls at p < kAlpha, and an
//    effect of at least kMinStepEffectPct (two runs of one program differ by a little, always);
//  - timings without per-step samples (busy share, stall and kernel time per step, launch
//    latency) move significantly only past a larger minimum effect, stated per metric.
// Stalls are matched by reason, API and stack (new and gone ones included); kernels by name.
//
// Must never: call a timing significant on noise between runs of one program, or divide by zero.
#ifndef BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_
#define BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_

#include "viewer/format/diff.h"
#include "viewer/format/report.h"

namespace brrr::diff {

inline constexpr double kAlpha = 0.01;
inline constexpr double kMinStepEffectPct = 5;      // step times, with the test
inline constexpr double kMinTimingEffectPct = 10;   // stall and kernel time per step, no samples
inline constexpr double kMinLatencyEffectPct = 20;  // launch latency p50: noisy on a loaded host
inline constexpr double kMinBusyEffectPoints = 5;   // device busy %, in points

ReportDiff DiffReports(const Report& a, const Report& b);

}  // namespace brrr::diff

#endif  // BRRR_COLLECTOR_DIFF_REPORT_DIFF_H_
