// The regimes a verdict can name, as an enum for the analysis (exhaustive switches) and as the
// words the report carries (`verdict.regime` in JSON, the VERDICT line).
//
// Must never: be turned into text anywhere but RegimeName.
#ifndef BRRR_COLLECTOR_ANALYSIS_REGIME_H_
#define BRRR_COLLECTOR_ANALYSIS_REGIME_H_

#include <string_view>

namespace brrr {

enum class Regime {
  kNoCudaWork,   // no CUDA call and no device work was recorded
  kLaunchBound,  // the device idled while the host launched or was between launches
  kSyncBound,    // the device idled after synchronizations drained its queue
  kInputBound,   // the device idled while the host was outside CUDA (data, Python, I/O)
  kDeviceBound,  // the device was busy (then compute or bandwidth: device_regime.h)
  // A job's rank whose device was busy mostly in collective kernels waiting for another rank to
  // arrive (collector/job/collective_waits.h): only a job merge, which sees every rank, says it.
  kCollectiveWait,
  // Nothing profiled used CUDA, but a process of a `brrr run` job ran unprofiled (its shim
  // declined: collector/cli/unprofiled_notes.h): no-cuda-work would state what brrr does not know.
  kUnprofiled,
};

constexpr std::string_view RegimeName(Regime r) {
  switch (r) {
    case Regime::kNoCudaWork:
      return "no-cuda-work";
    case Regime::kLaunchBound:
      return "launch-bound";
    case Regime::kSyncBound:
      return "sync-bound";
    case Regime::kInputBound:
      return "input-bound";
    case Regime::kDeviceBound:
      return "device-bound";
    case Regime::kCollectiveWait:
      return "collective-wait";
    case Regime::kUnprofiled:
      return "unprofiled";
  }
  return "";
}

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_REGIME_H_
