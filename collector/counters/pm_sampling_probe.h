// Whether CUPTI PM sampling (hardware counters sampled at a fixed interval: SM and DRAM
// throughput) can be used on this machine, for `brrr run --counters` / BRRR_COUNTERS=1. The
// entry points are found at run time (dlopen + dlsym): a libcupti without PM sampling (before
// CUDA 12.6, or the simulated device's) or a machine without a driver is a reason, never a
// failure. This probe runs in the collector process, when the app's shim did not sample (the
// sampling itself runs on the shim's own thread in the app, shim/pm_sampler.h); the shim's hot
// path is untouched either way.
//
// Must never: call an entry point that was not found, or leave PM sampling enabled.
#ifndef BRRR_COLLECTOR_COUNTERS_PM_SAMPLING_PROBE_H_
#define BRRR_COLLECTOR_COUNTERS_PM_SAMPLING_PROBE_H_

#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>

#include <string>

namespace brrr::counters {

// The entry points the probe needs; nullptr when not found.
struct PmSamplingEntryPoints {
  std::string load_error;  // why libcupti could not be loaded; "" when it was
  int (*cu_init)(unsigned int) = nullptr;
  CUptiResult (*profiler_initialize)(CUpti_Profiler_Initialize_Params*) = nullptr;
  CUptiResult (*enable)(CUpti_PmSampling_Enable_Params*) = nullptr;
  CUptiResult (*disable)(CUpti_PmSampling_Disable_Params*) = nullptr;
  // Needed for sampling itself; their absence means "no PM sampling" as well.
  void* set_config = nullptr;
  void* start = nullptr;
  void* stop = nullptr;
  void* decode_data = nullptr;
};

// dlopen("libcupti.so.13", then .12, then "libcupti.so") and dlsym the PM sampling entry points;
// libcuda.so.1's cuInit only when libcupti has them.
PmSamplingEntryPoints LoadPmSamplingEntryPoints();

struct CounterAvailability {
  bool available = false;
  std::string reason;  // when not available: why, in one sentence (the report quotes it)
};

// Tries PM sampling on device 0 (cuInit, cuptiProfilerInitialize, cuptiPmSamplingEnable) and
// disables it again; maps the outcome to a reason.
CounterAvailability ProbePmSampling(const PmSamplingEntryPoints& api);

// The reason for a CUPTI result of enabling PM sampling: not permitted (counters restricted to
// administrators), busy (another tool holds them), not supported (GPU, vGPU, MIG), or the code.
std::string EnableFailureReason(CUptiResult result);

}  // namespace brrr::counters

#endif  // BRRR_COLLECTOR_COUNTERS_PM_SAMPLING_PROBE_H_
