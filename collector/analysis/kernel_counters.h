// Per-kernel hardware counters: joins the PM samples (`brrr run --counters`, SM and DRAM
// throughput over ~1 ms intervals) to the kernels that executed in them, by time. Each sample's
// value is attributed to every kernel it overlaps, weighted by the overlap, so that per kernel
// name there is an overlap-weighted mean SM and DRAM throughput (% of peak) over the kernel time
// the samples covered, and that coverage.
//
// Decisions (the report states them):
//  - A sample partly idle would dilute its value: each value is divided by the sample's GPU active
//    share (gpu__time_active) and capped at 100 %. A sample without an active share is taken as is:
//    the kernel's figure is then a lower bound (lower_bound_ns says over how much time).
//  - A sample that overlaps several kernels (concurrent streams, or one kernel ending and the next
//    starting inside the interval) measured the device, not one kernel: its value goes to each of
//    them by overlap, and that time counts as shared (shared_ns), for the report to flag.
//  - Kernel records come in CUPTI buffers, later or earlier than the samples of the same time.
//    Whichever of a (kernel, sample) pair arrives second does the join, so each pair counts once.
//    Both are held in bounded windows (max_samples, max_kernels; the oldest leave first): a kernel
//    arriving after samples of its time left the window counts as kernels_late, a sample arriving
//    after kernels of its time left counts as samples_late; their overlap is lost (coverage shows
//    it).
//  - Samples must come in start order (one sampler): one starting before the last is skipped
//    (out_of_order); zero-length and non-finite ones too.
//  - The sampler measures one device (each sample says which; the shim samples device 0): a
//    sample joins only kernels that ran on its device, samples of a second device are skipped, and
//    the kernels of other devices are counted apart (OtherDevices) for the report to say that
//    their figures are missing, e.g. in a job where rank 3 runs on device 3.
//
// Memory: bounded by the windows and by distinct kernel names (capped at max_names; further names
// fold into "<other>"). Not thread-safe. Must never: grow with the run's length, or count a
// (kernel, sample) pair twice.
#ifndef BRRR_COLLECTOR_ANALYSIS_KERNEL_COUNTERS_H_
#define BRRR_COLLECTOR_ANALYSIS_KERNEL_COUNTERS_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "viewer/format/report.h"

namespace brrr {

class KernelCounters {
 public:
  struct Options {
    size_t max_samples = 4096;   // ~4 s of 1 ms samples
    size_t max_kernels = 16384;  // kernel intervals held for samples still to come
    size_t max_names = 10'000;
  };
  // Times on the kernels' clock; a value not measured is NaN.
  struct Sample {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    double sm_pct = 0;
    double dram_pct = 0;
    double active_pct = 0;
    uint32_t device_id = 0;  // the device sampled
  };
  // One kernel name's figures.
  struct Figures {
    int64_t kernel_ns = 0;       // device time of its kernels seen by the join
    int64_t covered_ns = 0;      // of it, inside samples
    int64_t shared_ns = 0;       // of covered_ns, in samples that also covered another kernel
    int64_t lower_bound_ns = 0;  // of covered_ns, in samples without an active share
    double sm_sum = 0;           // sum of overlap x SM % (normalized), over sm_ns
    int64_t sm_ns = 0;
    double dram_sum = 0;
    int64_t dram_ns = 0;
  };
  struct Totals {
    uint64_t samples = 0;  // joined (held) samples
    uint64_t kernels = 0;
    uint64_t samples_late = 0;
    uint64_t kernels_late = 0;
    uint64_t samples_skipped = 0;  // out of order, zero-length, non-finite, or a second device
  };
  // Kernels on devices other than the sampled one (device 0 until a sample names one).
  struct OtherDeviceKernels {
    uint64_t kernels = 0;
    int64_t device_ns = 0;
  };

  KernelCounters() : KernelCounters(Options{}) {}
  explicit KernelCounters(Options options);

  void AddKernel(std::string_view name, int64_t start_ns, int64_t end_ns, uint32_t device_id = 0);
  void AddSample(const Sample& sample);

  // Figures by kernel name as given (mangled), names with no kernel time left out.
  std::vector<std::pair<std::string, Figures>> ByName() const;
  const Totals& totals() const { return totals_; }
  // The device the samples measured (0 before any sample: the shim's sampler samples device 0).
  uint32_t sampled_device() const { return device_.value_or(0); }
  OtherDeviceKernels OtherDevices() const;
  size_t held() const { return samples_.size() + kernels_.size(); }

 private:
  struct HeldSample {
    int64_t start_ns, end_ns;
    double sm, dram;  // normalized; NaN = unknown
    bool lower_bound;
    uint32_t kernels = 0;     // kernels attributed so far
    uint32_t first_name = 0;  // the first one's name and overlap (shared once a second comes)
    int64_t first_overlap = 0;
  };
  struct HeldKernel {
    int64_t start_ns;
    int64_t end_ns;
    uint32_t name;
    uint32_t device;
  };
  struct DeviceKernels {
    uint32_t device;
    uint64_t kernels;
    int64_t device_ns;
  };
  uint32_t Intern(std::string_view name);
  void Attribute(uint32_t name, int64_t overlap, const HeldSample& s, bool shared);
  // Joins a kernel with a held sample it overlaps (the kernel arrived second).
  void JoinArrivingKernel(uint32_t name, int64_t start, int64_t end, HeldSample& s);

  Options options_;
  std::vector<std::string> names_;
  std::vector<Figures> figures_;
  absl::flat_hash_map<std::string, uint32_t> index_;
  uint32_t other_ = UINT32_MAX;
  std::deque<HeldSample> samples_;              // by start
  // By start. Records come nearly in time order (per stream), so an insert is almost always at
  // the back; an older one is moved into place.
  std::deque<HeldKernel> kernels_;
  uint32_t last_name_ = UINT32_MAX;  // one-entry cache: launch loops repeat one kernel
  int64_t longest_kernel_ns_ = 0;  // of those ever held: how far back a sample's scan starts
  int64_t longest_sample_ns_ = 0;
  int64_t evicted_samples_end_ = INT64_MIN;  // latest end of a sample that left the window
  int64_t evicted_kernels_end_ = INT64_MIN;
  std::vector<std::pair<uint32_t, int64_t>> scratch_;  // (name, overlap) of one arriving sample
  std::optional<uint32_t> device_;                     // the first accepted sample's device
  // Kernel time per device, at most kMaxDevices rows (a further device joins the last row).
  static constexpr size_t kMaxDevices = 64;
  std::vector<DeviceKernels> by_device_;
  Totals totals_;
};

// Adds the joined figures to the top kernels (names demangled alike are summed, as KernelStats
// merges them): achieved_sm_pct / achieved_dram_pct where some of the kernel's time had a known
// value, counter_coverage, counter_shared, counter_lower_bound. Kernels the join never saw keep
// the fields absent.
void AttachKernelCounters(const KernelCounters& counters, std::vector<KernelStat>* top);

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_KERNEL_COUNTERS_H_
