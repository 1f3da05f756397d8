// The verdict: which regime the run is in (regime.h: launch-bound, sync-bound, input-bound,
// device-bound, or no-cuda-work when no CUDA call and no device work were recorded) and why,
// quoting the numbers. Rules:
//  - with device records: busy >= device_bound_fraction of wall (summed over devices) ->
//    device-bound; else the largest idle part decides: launch_bound -> launch-bound,
//    sync_drain -> sync-bound, host_outside_cuda -> input-bound;
//  - host-only (no device records): the host split decides the same way (time in stalled calls
//    -> sync-bound, in or between other CUDA calls -> launch-bound, outside CUDA -> input-bound),
//    and `why` says it is inferred from host timing only.
// All shares are of the steady state: wall time minus start-up (before the first CUDA work) and
// teardown (after the last), so a short program is not called input-bound for its process start.
// A device-bound verdict carries the device regime (device_regime.h); every verdict carries advice
// (advice.h).
// Runner-up and margin (Verdict.runner_up, margin_pts): for an idle regime, the next idle part,
// margin = the top idle share minus it, in points of the steady state; close when the margin is
// under kCloseMarginPts or the runner-up is at least kCloseRatio of the top share (idle shares of
// 17-25 % moved between identical runs on a busy machine, issue 47). A busy share within
// kCloseMarginPts below the device-bound threshold makes device-bound the runner-up, close. For
// device-bound, the largest idle part, margin = busy share minus the threshold, close under
// kCloseMarginPts.
//
// Must never: state a number it was not given.
#ifndef BRRR_COLLECTOR_ANALYSIS_VERDICT_H_
#define BRRR_COLLECTOR_ANALYSIS_VERDICT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "collector/analysis/device_regime.h"
#include "collector/analysis/device_time_breakdown.h"
#include "collector/analysis/regime.h"
#include "viewer/format/report.h"

namespace brrr {

struct VerdictInputs {
  std::vector<DeviceBreakdown> devices;
  DeviceTimeBreakdown::HostSplit host_split;
  bool have_device_records = false;
  // Optional details quoted in `why` (0 / empty when unknown).
  uint64_t kernel_launches = 0;
  int64_t median_kernel_ns = 0;
  int64_t median_launch_call_ns = 0;
  std::string top_kernel;
  int64_t top_kernel_ns = 0;
  std::string top_stall;  // e.g. "cudaMemcpy (d2h_copy)"
  uint64_t top_stall_calls = 0;
  int64_t top_stall_ns = 0;
  double device_bound_fraction = 0.7;
  // For the device regime and the advice (empty / absent when unknown).
  std::vector<KernelClassStat> kernel_classes;
  std::vector<KernelStat> top_kernels;
  std::optional<Stall> top_stall_row;
  std::optional<LaunchSite> top_launch_site;
  std::optional<CounterThroughput> counters;
  std::string counters_unavailable;  // why counters asked for were not used; "" otherwise
  // CUDA calls the process made, by any path (runtime hooks, CUPTI callbacks or records): none and
  // no device records -> no-cuda-work.
  uint64_t cuda_calls = 0;
  bool python = true;  // the process runs Python: PyTorch wording in the advice, else C++'s
  // Each step's device parts as recorded (StepsSummary.part_samples: busy, launch-bound, sync
  // drain, host outside CUDA), for the run's own spread: when at least kSpreadMinSteps steps are
  // given and a kSpreadShare of them would each be judged another regime, the verdict is close
  // whatever the margin of the whole run. Empty: none (or sampled, where a step's parts are a
  // window's and not the step's).
  std::vector<std::array<int64_t, 4>> step_parts;
};

inline constexpr double kCloseMarginPts = 5;
inline constexpr double kCloseRatio = 2.0 / 3.0;
inline constexpr size_t kSpreadMinSteps = 8;
inline constexpr double kSpreadShare = 1.0 / 3.0;

Verdict DecideVerdict(const VerdictInputs& in);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_VERDICT_H_
