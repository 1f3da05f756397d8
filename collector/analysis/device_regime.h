// The device regime: when a run is device-bound, which side of the roofline its busy time is on.
// Two bases:
//  - kernel classes (always available): matmul, convolution and attention time counts as
//    compute-capable; pointwise, reduction/normalization and copy kernels as bandwidth-bound by
//    construction. compute when compute-capable kernels hold >= share_threshold of kernel time,
//    bandwidth when bandwidth-bound ones do, mixed otherwise. An inference from names, and `why`
//    says so.
//  - hardware counters (brrr run --counters, where the GPU and driver allow PM sampling): the SM
//    and DRAM throughput sampled while the device was busy. compute when SM throughput is at least
//    counter_threshold % of peak and above DRAM's; bandwidth when DRAM's is and is above SM's;
//    mixed otherwise.
//
// Must never: state a share it was not given, or claim a measurement for an inference.
#ifndef BRRR_COLLECTOR_ANALYSIS_DEVICE_REGIME_H_
#define BRRR_COLLECTOR_ANALYSIS_DEVICE_REGIME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr {

// What PM sampling measured over the busy intervals: mean throughput in % of peak.
struct CounterThroughput {
  double sm_pct = 0;
  double dram_pct = 0;
  uint64_t samples = 0;  // samples that fell inside busy intervals
};

struct DeviceRegimeInputs {
  std::vector<KernelClassStat> classes;  // as Report.kernels.classes
  std::optional<CounterThroughput> counters;
  // When counters were asked for but not used: why (e.g. "not permitted: ..."); "" otherwise.
  std::string counters_unavailable;
  double share_threshold = 0.6;
  double counter_threshold = 60.0;
};

// Time of the classes on each side, from Report.kernels.classes.
struct ClassShares {
  int64_t total_ns = 0;
  int64_t compute_ns = 0;    // matmul + convolution + attention
  int64_t bandwidth_ns = 0;  // pointwise + reduction + copy
  int64_t ns_of(const std::string& kernel_class) const;
  std::vector<KernelClassStat> classes;
};
ClassShares SharesOf(const std::vector<KernelClassStat>& classes);

DeviceRegime DecideDeviceRegime(const DeviceRegimeInputs& in);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_DEVICE_REGIME_H_
