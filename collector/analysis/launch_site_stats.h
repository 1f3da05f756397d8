// Sampled launch sites: launches the shim recorded with kRecordLaunchSample (1 in N launches
// carries its stack), counted per stack id; at the end, the top sites by estimated launches
// (sampled x N), symbolized through a callback and merged by the symbolized stack. Also what
// those sampled launches ran on the device, by kernel name and device (the device time that a
// pprof profile puts on the launching stack).
//
// Memory: one counter per distinct stack id, capped at max_sites; further sites fold into stack
// id 0 ("no stack"); the same for the (stack id, kernel name id, device) rows. Not thread-safe.
// Must never: symbolize on the per-call path, or present an estimate without the sample period.
#ifndef BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "viewer/format/report.h"

namespace brrr {

class LaunchSiteStats {
 public:
  explicit LaunchSiteStats(size_t max_sites = 100'000) : max_sites_(max_sites) {}

  // One sampled launch with its (collector-wide) stack id; 0 = no stack.
  void Add(uint32_t stack_id);
  // Kernels of a sampled launch of `stack_id`: `kernels` of them, named by `name_id`
  // (DeviceOp.name_id; CallJoiner::kSeveralKernelNames), on `device_id`, run for `device_ns`.
  void AddKernels(uint32_t stack_id, uint32_t name_id, uint32_t device_id, int64_t device_ns,
                  uint32_t kernels);

  // Each site keeps its top kernel rows by device time; the rest are one "(other kernels)" row
  // per device.
  static constexpr size_t kKernelsPerSite = 16;

  uint64_t sampled() const { return sampled_; }
  size_t sites() const { return sites_.size(); }

  // Top `limit` sites by estimated launches (sampled launches x `sample_period`; ties: the stack's
  // frames). Sites whose stacks symbolize alike are one row. Empty when `sample_period` is 0.
  // `kernel_name` names a name id ("" when unknown).
  std::vector<LaunchSite> Top(
      size_t limit, uint32_t sample_period,
      const std::function<std::vector<std::string>(uint32_t)>& symbolize,
      const std::function<std::string(uint32_t)>& kernel_name = {}) const;

 private:
  struct KernelKey {
    uint32_t stack_id;
    uint32_t name_id;
    uint32_t device_id;
    bool operator==(const KernelKey& o) const {
      return stack_id == o.stack_id && name_id == o.name_id && device_id == o.device_id;
    }
    template <typename H>
    friend H AbslHashValue(H h, const KernelKey& k) {
      return H::combine(std::move(h), k.stack_id, k.name_id, k.device_id);
    }
  };
  struct KernelWork {
    uint64_t kernels = 0;
    int64_t device_ns = 0;
  };

  size_t max_sites_;
  absl::flat_hash_map<uint32_t, uint64_t> sites_;  // stack id -> sampled launches
  absl::flat_hash_map<KernelKey, KernelWork> kernels_;
  uint64_t sampled_ = 0;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_LAUNCH_SITE_STATS_H_
