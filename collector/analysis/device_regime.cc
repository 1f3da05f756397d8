// DecideDeviceRegime (see device_regime.h).
//
// Must never: divide by zero kernel time.
#include "collector/analysis/device_regime.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collector/analysis/kernel_class.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

KernelClass ClassNamed(const std::string& name) {
  for (int c = 0; c < static_cast<int>(KernelClass::kCount); ++c) {
    if (KernelClassName(static_cast<KernelClass>(c)) == name) return static_cast<KernelClass>(c);
  }
  return KernelClass::kOther;
}

std::string Pct(int64_t part, int64_t whole) { return FormatPercent(part, whole); }

}  // namespace

int64_t ClassShares::ns_of(const std::string& kernel_class) const {
  int64_t ns = 0;
  for (const KernelClassStat& c : classes) {
    if (c.kernel_class == kernel_class) ns += c.device_ns;
  }
  return ns;
}

ClassShares SharesOf(const std::vector<KernelClassStat>& classes) {
  ClassShares s;
  s.classes = classes;
  for (const KernelClassStat& c : classes) {
    const int64_t ns = c.device_ns > 0 ? c.device_ns : 0;
    s.total_ns += ns;
    const KernelClass k = ClassNamed(c.kernel_class);
    if (IsComputeClass(k)) s.compute_ns += ns;
    if (IsBandwidthClass(k)) s.bandwidth_ns += ns;
  }
  return s;
}

DeviceRegime DecideDeviceRegime(const DeviceRegimeInputs& in) {
  DeviceRegime r;
  if (in.counters.has_value()) {
    const CounterThroughput& c = *in.counters;
    r.basis = "hardware counters";
    if (c.sm_pct >= in.counter_threshold && c.sm_pct > c.dram_pct) {
      r.regime = "compute";
    } else if (c.dram_pct >= in.counter_threshold && c.dram_pct >= c.sm_pct) {
      r.regime = "bandwidth";
    } else {
      r.regime = "mixed";
    }
    r.why = absl::StrFormat(
        "measured by CUPTI PM sampling over the busy time (%u samples): SM throughput %.1f%% of "
        "peak, DRAM throughput %.1f%% of peak",
        c.samples, c.sm_pct, c.dram_pct);
    return r;
  }
  r.basis = "kernel classes";
  const ClassShares s = SharesOf(in.classes);
  if (s.total_ns <= 0) {
    r.regime = "bandwidth";
    r.why = "no kernel time: the busy time is copies and memsets by the copy engines";
  } else {
    const double total = static_cast<double>(s.total_ns);
    if (static_cast<double>(s.compute_ns) >= in.share_threshold * total) {
      r.regime = "compute";
    } else if (static_cast<double>(s.bandwidth_ns) >= in.share_threshold * total) {
      r.regime = "bandwidth";
    } else {
      r.regime = "mixed";
    }
    const int64_t comm = s.ns_of("communication");
    const int64_t other = s.total_ns - s.compute_ns - s.bandwidth_ns - comm;
    const bool names_say_little = 2 * (s.compute_ns + s.bandwidth_ns) < s.total_ns;
    r.why = absl::StrCat(
        "inferred from kernel names, not measured: ",
        names_say_little ? "most kernel time is in kernels whose names say neither; " : "",
        "matmul/convolution/attention ", Pct(s.compute_ns, s.total_ns),
        " of kernel time (compute-capable), pointwise/reduction/copy ",
        Pct(s.bandwidth_ns, s.total_ns), " (bandwidth-bound by construction)");
    if (comm > 0) absl::StrAppend(&r.why, ", communication ", Pct(comm, s.total_ns));
    if (other > 0) absl::StrAppend(&r.why, ", other ", Pct(other, s.total_ns));
  }
  if (!in.counters_unavailable.empty()) {
    absl::StrAppend(&r.why, "; hardware counters not used: ", in.counters_unavailable);
  }
  return r;
}

}  // namespace brrr
