// The metric sets the shim's PM sampler tries, in order, to read its three figures (SM throughput,
// DRAM throughput, the SMs' active share, each in % of peak), and how each set's values combine
// into them. Shared by the shim (which tries them) and the collector (which names the one used:
// SegmentHeader.counters_metric_plan is its number, 1-based).
//
// Why several: PM sampling takes only what the hardware can count in ONE pass. On an H200
// (GH100, driver 580, CUDA 13.0; tools/gpu/workloads/pm_metrics_probe.cu, 2026-11-26) the ncu
// breakdown `sm__throughput` needs 19 passes (cuptiPmSamplingSetConfig: CUPTI_ERROR_NOT_SUPPORTED,
// "config image which require multiple passes"), while each of the "realtime" SM metrics NVIDIA
// lists for periodic sampling in Nsight Compute's documentation, `sm__cycles_active`,
// `gpu__dram_throughput`, `gpu__time_active` and the dramc__ read/write throughputs takes one,
// and sets 2 and 3 below configured whole. On that H200 the dramc__ figures read about 100 times
// lower than the loop's bandwidth (0.9 % for a DRAM-bound pointwise loop), hence
// gpu__dram_throughput first. A set whose names the chip does not know fails at
// ConfigAddMetrics; one that needs several passes fails at SetConfig; either way the next set is
// tried.
//
// Must never: hold code that allocates, locks or blocks (the shim includes it), or change a
// plan's meaning under the same number (a saved file names its plan by number).
#ifndef BRRR_SHIM_PM_METRIC_PLANS_H_
#define BRRR_SHIM_PM_METRIC_PLANS_H_

#include <stdint.h>

namespace brrr::shim {

// What a metric's value adds to. kSm: the SM figure is the largest kSm value (instruction issue
// and tensor-pipe use are each a share of an SM's peak; a matmul saturates the tensor pipe at a
// low issue rate). kDram: the DRAM figure is the sum of the kDram values (reads and writes share
// one peak). kActive: the SMs' active share, which the collector divides by.
enum class MetricRole : uint8_t { kSm, kDram, kActive };

inline constexpr uint32_t kMaxPlanMetrics = 5;

struct MetricPlan {
  const char* label;  // how the report names the set
  uint32_t count;
  const char* names[kMaxPlanMetrics];
  MetricRole roles[kMaxPlanMetrics];
};

inline constexpr MetricPlan kMetricPlans[] = {
    {"realtime SM issue and tensor pipe, DRAM throughput, SM active cycles",
     4,
     {"sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
     {MetricRole::kSm, MetricRole::kSm, MetricRole::kDram, MetricRole::kActive}},
    {"realtime SM issue and tensor pipe, DRAM read + write, SM active cycles",
     5,
     {"sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
      "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
      "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
     {MetricRole::kSm, MetricRole::kSm, MetricRole::kDram, MetricRole::kDram,
      MetricRole::kActive}},
    {"realtime SM issue, DRAM read + write, SM active cycles",
     4,
     {"sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
      "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
      "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
     {MetricRole::kSm, MetricRole::kDram, MetricRole::kDram, MetricRole::kActive}},
    {"SM and DRAM throughput breakdowns, GPU active time",
     3,
     {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__time_active.avg.pct_of_peak_sustained_elapsed"},
     {MetricRole::kSm, MetricRole::kDram, MetricRole::kActive}},
};
inline constexpr uint32_t kMetricPlanCount = sizeof(kMetricPlans) / sizeof(kMetricPlans[0]);

// The plan numbered `number` (1-based, as published), or nullptr for 0 or out of range.
inline const MetricPlan* MetricPlanNumbered(uint32_t number) {
  return number >= 1 && number <= kMetricPlanCount ? &kMetricPlans[number - 1] : nullptr;
}

struct CombinedFigures {
  double sm = 0, dram = 0, active = 0;
};

// The three figures from one sample's values (values[i] belongs to plan.names[i]). A NaN value
// makes its figure NaN, which the collector skips.
inline CombinedFigures CombineFigures(const MetricPlan& plan, const double* values) {
  CombinedFigures f;
  bool have_sm = false;
  for (uint32_t i = 0; i < plan.count && i < kMaxPlanMetrics; ++i) {
    const double v = values[i];
    switch (plan.roles[i]) {
      case MetricRole::kSm:
        if (!have_sm || v != v || (f.sm == f.sm && v > f.sm)) f.sm = v;  // a NaN stays
        have_sm = true;
        break;
      case MetricRole::kDram:
        f.dram += v;
        break;
      case MetricRole::kActive:
        f.active = v;
        break;
    }
  }
  return f;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PM_METRIC_PLANS_H_
