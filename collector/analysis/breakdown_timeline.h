// The device-time breakdown over the run as a bounded time series (Report.timeline): receives the
// breakdown's finalized pieces (DeviceTimeBreakdown::PartListener) and adds each nanosecond to the
// bucket and part it fell in. Buckets start at 1.024 us; when a piece reaches past the last of
// kMaxTimelineBuckets buckets, the bucket width doubles and adjacent buckets merge pairwise, so a
// run of any length keeps between kMaxTimelineBuckets / 2 and kMaxTimelineBuckets of them (fewer
// only for runs shorter than kMaxTimelineBuckets x 1.024 us). A device's buckets add up to its
// DeviceBreakdown part by part exactly: pieces are split at bucket edges in integer nanoseconds,
// and a device seen late inherits the empty device's buckets as the breakdown has it inherit its
// parts.
//
// Not thread-safe. Must never: hold more than kMaxTimelineBuckets buckets per device, or lose or
// double-count a nanosecond the breakdown counted.
#ifndef BRRR_COLLECTOR_ANALYSIS_BREAKDOWN_TIMELINE_H_
#define BRRR_COLLECTOR_ANALYSIS_BREAKDOWN_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/device_time_breakdown.h"
#include "viewer/format/report.h"

namespace brrr {

class BreakdownTimeline : public DeviceTimeBreakdown::PartListener {
 public:
  // A power of two, as every width after it: bucket indexes are shifts, not divisions.
  static constexpr int kFirstBucketShift = 10;
  static constexpr int64_t kFirstBucketNs = int64_t{1} << kFirstBucketShift;  // 1.024 us

  // `origin` is the run's start, which the breakdown's first piece begins at; without it, the
  // first piece's start is the origin.
  void SetOrigin(int64_t origin_ns);

  void OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) override;
  void OnParts(uint32_t device_id, const Piece* pieces, size_t count) override;
  void OnEmptyDevicePart(Part part, int64_t lo, int64_t hi) override;
  void OnSwept(int64_t watermark) override;

  // The series of the devices in `devices` (the breakdown's result, by id) over the run's wall
  // time [origin, origin + wall_ns): ceil(wall_ns / bucket_ns) buckets each. Absent when nothing
  // was recorded.
  std::optional<Timeline> Finish(const std::vector<DeviceBreakdown>& devices) const;

  int64_t bucket_ns() const { return bucket_ns_; }
  // The time bucket 0 starts at (the clock of the pieces); absent before the first piece.
  std::optional<int64_t> origin_ns() const {
    return any_ ? std::optional<int64_t>(origin_) : std::nullopt;
  }

 private:
  using Buckets = std::vector<TimelineBucket>;  // always kMaxTimelineBuckets long
  // Adds one piece. Most pieces (one kernel, one gap between launches) fall inside one bucket
  // that is not the last: added there inline, without the walk (and no growth can be due).
  void Add(Buckets& buckets, Part part, int64_t lo, int64_t hi) {
    if (!any_) Start(lo);
    if (buckets.empty()) buckets.assign(kMaxTimelineBuckets, TimelineBucket{});
    const int64_t first = (lo - origin_) >> bucket_shift_;
    if (lo >= origin_ && hi > lo && first < static_cast<int64_t>(kMaxTimelineBuckets) - 1 &&
        ((hi - 1 - origin_) >> bucket_shift_) == first) {
      buckets[static_cast<size_t>(first)].*Member(part) += hi - lo;
      return;
    }
    AddAcrossBuckets(buckets, part, lo, hi);
  }
  // Add's general case: a piece over several buckets, or one that needs the buckets to grow.
  void AddAcrossBuckets(Buckets& buckets, Part part, int64_t lo, int64_t hi);
  static int64_t TimelineBucket::*Member(Part part) {
    switch (part) {
      case Part::kBusy:
        return &TimelineBucket::busy_ns;
      case Part::kLaunchBound:
        return &TimelineBucket::launch_bound_ns;
      case Part::kSyncDrain:
        return &TimelineBucket::sync_drain_ns;
      case Part::kHostOutsideCuda:
        return &TimelineBucket::host_outside_cuda_ns;
      case Part::kStartup:
        return &TimelineBucket::startup_ns;
      case Part::kTeardown:
        return &TimelineBucket::teardown_ns;
    }
    return &TimelineBucket::busy_ns;
  }
  // Doubles the bucket width until `rel_hi` (ns from the origin) fits.
  void GrowTo(int64_t rel_hi);
  static void MergePairs(Buckets& buckets);
  // On the first piece: fixes the origin (if not set) and sizes the empty device's buckets.
  void Start(int64_t lo);
  Buckets& DeviceBuckets(uint32_t device_id) {
    return last_.buckets != nullptr && device_id == last_.id ? *last_.buckets
                                                             : NewLastDevice(device_id);
  }
  Buckets& NewLastDevice(uint32_t device_id);  // DeviceBuckets when the device is not the last

  bool origin_set_ = false;
  int64_t origin_ = 0;
  int bucket_shift_ = kFirstBucketShift;
  int64_t bucket_ns_ = kFirstBucketNs;  // 1 << bucket_shift_
  absl::flat_hash_map<uint32_t, Buckets> devices_;
  // The last device's buckets (pieces come device after device), a pointer into devices_ set at
  // each insertion; a copy of the timeline starts without it.
  struct LastDevice {
    uint32_t id = 0;
    Buckets* buckets = nullptr;
    LastDevice() = default;
    LastDevice(const LastDevice&) {}
    LastDevice& operator=(const LastDevice&) {
      buckets = nullptr;
      return *this;
    }
  };
  LastDevice last_;
  Buckets empty_swept_;   // the empty device up to the last sweep
  Buckets empty_sweep_;   // the empty device in the sweep under way
  bool any_ = false;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_BREAKDOWN_TIMELINE_H_
