// ReadCounterTable and OutcomeOf (see counter_table.h).
//
// Must never: read a slot at or beyond kMaxCounterSamples, whatever the count says.
#include "collector/counters/counter_table.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collector/counters/pm_sampling_probe.h"
#include "shim/pm_metric_plans.h"

namespace brrr::counters {

CounterTable ReadCounterTable(const ring::SegmentHeader& header) {
  CounterTable t;
  t.state = header.counters_state.load(std::memory_order_acquire);
  t.result = header.counters_result.load(std::memory_order_relaxed);
  t.failed_call = header.counters_failed_call.load(std::memory_order_relaxed);
  t.metric_plan = header.counters_metric_plan.load(std::memory_order_relaxed);
  const uint32_t count = std::min(header.counters_sample_count.load(std::memory_order_acquire),
                                  ring::kMaxCounterSamples);
  for (uint32_t i = 0; i < count; ++i) {
    const ring::CounterSampleSlot slot = header.counter_samples[i];  // one copy, then checked
    if (slot.end_ns <= slot.start_ns || slot.end_ns - slot.start_ns > (uint64_t{1} << 50) ||
        slot.merged == 0) {
      ++t.skipped;
      continue;
    }
    CounterSample s;
    s.start_ns = static_cast<int64_t>(slot.start_ns & ((uint64_t{1} << 62) - 1));
    s.end_ns = s.start_ns + static_cast<int64_t>(slot.end_ns - slot.start_ns);
    s.sm_pct = slot.sm_pct;
    s.dram_pct = slot.dram_pct;
    s.active_pct = slot.active_pct;
    t.samples.push_back(s);
    t.merged.push_back(slot.merged);
  }
  return t;
}

std::string CuptiResultText(int32_t result) {
  const char* name = nullptr;
  switch (static_cast<CUptiResult>(result)) {
    case CUPTI_ERROR_INVALID_PARAMETER: name = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_NOT_SUPPORTED: name = "CUPTI_ERROR_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_HARDWARE_BUSY: name = "CUPTI_ERROR_HARDWARE_BUSY"; break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: name = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"; break;
    case CUPTI_ERROR_INVALID_METRIC_NAME: name = "CUPTI_ERROR_INVALID_METRIC_NAME"; break;
    case CUPTI_ERROR_OUT_OF_MEMORY: name = "CUPTI_ERROR_OUT_OF_MEMORY"; break;
    case CUPTI_ERROR_UNKNOWN: name = "CUPTI_ERROR_UNKNOWN"; break;
    default: break;
  }
  return name != nullptr ? absl::StrCat(name, " (", result, ")") : absl::StrCat("CUPTI error ", result);
}

namespace {

std::string MetricsText(uint32_t plan_number) {
  const shim::MetricPlan* plan = shim::MetricPlanNumbered(plan_number);
  if (plan == nullptr) return "";
  std::vector<std::string> names(plan->names, plan->names + plan->count);
  return absl::StrCat(plan->label, " (", absl::StrJoin(names, ", "), ")");
}

}  // namespace

const char* CountersCallName(uint32_t call) {
  switch (call) {
    case ring::kCallProfilerInitialize:
      return "cuptiProfilerInitialize";
    case ring::kCallEnable:
      return "cuptiPmSamplingEnable";
    case ring::kCallChipName:
      return "cuptiDeviceGetChipName";
    case ring::kCallCounterAvailability:
      return "cuptiPmSamplingGetCounterAvailability";
    case ring::kCallHostInitialize:
      return "cuptiProfilerHostInitialize";
    case ring::kCallConfig:
      return "the metrics' config image (cuptiProfilerHostGetConfigImage)";
    case ring::kCallSetConfig:
      return "cuptiPmSamplingSetConfig";
    case ring::kCallCounterData:
      return "the counter-data image (cuptiPmSamplingGetCounterDataSize)";
    case ring::kCallStart:
      return "cuptiPmSamplingStart";
    case ring::kCallDecode:
      return "decoding (cuptiPmSamplingDecodeData)";
    default:
      return "an unknown call";
  }
}

CounterOutcome OutcomeOf(const CounterTable& t) {
  CounterOutcome out;
  out.shim_sampled = t.state != ring::kCountersOff;
  out.metrics = MetricsText(t.metric_plan);
  switch (t.state) {
    case ring::kCountersOff:
      return out;
    case ring::kCountersWaiting:
      out.unavailable =
          "no sample: the app's first CUDA call never returned, so sampling never "
          "started";
      return out;
    case ring::kCountersNoLibrary:
      out.unavailable =
          "not supported: this libcupti has no PM sampling (cupti_pmsampling.h, CUDA 12.6 and "
          "later; the simulated device has none)";
      return out;
    case ring::kCountersFailed: {
      const auto r = static_cast<CUptiResult>(t.result);
      if (t.failed_call == ring::kCallEnable || t.failed_call == ring::kCallProfilerInitialize) {
        out.unavailable = EnableFailureReason(r);
      } else {
        out.unavailable = absl::StrCat("PM sampling failed at ", CountersCallName(t.failed_call),
                                       ": ", CuptiResultText(t.result));
        if (t.failed_call == ring::kCallSetConfig && r == CUPTI_ERROR_NOT_SUPPORTED) {
          absl::StrAppend(&out.unavailable, ": each metric set brrr knows (",
                          shim::kMetricPlanCount,
                          ") needs more than one pass on this GPU, and PM sampling takes one");
        }
      }
      return out;
    }
    case ring::kCountersSampling:
    case ring::kCountersDone:
      break;
    default:
      out.unavailable = absl::StrCat("the counter table is damaged (state ", t.state, ")");
      return out;
  }
  std::optional<CounterThroughput> m = ThroughputWhileBusy(t.samples);
  if (!m.has_value()) {
    out.unavailable =
        absl::StrCat("no PM sample saw the GPU busy (", t.samples.size(), " samples)");
    return out;
  }
  uint64_t busy_samples = 0;  // PM samples behind the slots that saw the GPU busy
  for (size_t i = 0; i < t.samples.size(); ++i) {
    if (std::isfinite(t.samples[i].active_pct) && t.samples[i].active_pct > 0) {
      busy_samples += t.merged[i];
    }
  }
  m->samples = busy_samples;
  out.measured = m;
  return out;
}

}  // namespace brrr::counters
