// Bucketing of the breakdown's pieces into a bounded time series. See breakdown_timeline.h.
//
// Must never: index a bucket past kMaxTimelineBuckets (GrowTo runs before every add).
#include "collector/analysis/breakdown_timeline.h"

#include <algorithm>

namespace brrr {
namespace {

constexpr int64_t kBuckets = static_cast<int64_t>(kMaxTimelineBuckets);

void AddInto(TimelineBucket& to, const TimelineBucket& from) {
  to.busy_ns += from.busy_ns;
  to.launch_bound_ns += from.launch_bound_ns;
  to.sync_drain_ns += from.sync_drain_ns;
  to.host_outside_cuda_ns += from.host_outside_cuda_ns;
  to.startup_ns += from.startup_ns;
  to.teardown_ns += from.teardown_ns;
}

}  // namespace

void BreakdownTimeline::SetOrigin(int64_t origin_ns) {
  if (any_) return;
  origin_ = origin_ns;
  origin_set_ = true;
}

void BreakdownTimeline::Start(int64_t lo) {
  if (any_) return;
  any_ = true;
  if (!origin_set_) origin_ = lo;
  empty_swept_.assign(kMaxTimelineBuckets, TimelineBucket{});
  empty_sweep_.assign(kMaxTimelineBuckets, TimelineBucket{});
}

void BreakdownTimeline::MergePairs(Buckets& buckets) {
  for (int64_t i = 0; i < kBuckets / 2; ++i) {
    TimelineBucket merged = buckets[2 * i];
    AddInto(merged, buckets[2 * i + 1]);
    buckets[i] = merged;
  }
  std::fill(buckets.begin() + kBuckets / 2, buckets.end(), TimelineBucket{});
}

void BreakdownTimeline::GrowTo(int64_t rel_hi) {
  while (rel_hi > kBuckets * bucket_ns_ && bucket_shift_ < 55) {
    ++bucket_shift_;
    bucket_ns_ = int64_t{1} << bucket_shift_;
    for (auto& [id, buckets] : devices_) MergePairs(buckets);
    MergePairs(empty_swept_);
    MergePairs(empty_sweep_);
  }
}

void BreakdownTimeline::AddAcrossBuckets(Buckets& buckets, Part part, int64_t lo, int64_t hi) {
  // Times before the origin count in the first bucket (the breakdown never sends any).
  int64_t a = std::max<int64_t>(lo - origin_, 0);
  const int64_t b = std::max<int64_t>(hi - origin_, a);
  GrowTo(b);
  int64_t TimelineBucket::*member = Member(part);
  while (a < b) {
    const int64_t index = std::min(a >> bucket_shift_, kBuckets - 1);
    const int64_t edge = index == kBuckets - 1 ? b : std::min(b, (index + 1) * bucket_ns_);
    buckets[index].*member += edge - a;
    a = edge;
  }
}

BreakdownTimeline::Buckets& BreakdownTimeline::NewLastDevice(uint32_t device_id) {
  auto [it, inserted] = devices_.try_emplace(device_id);
  last_.id = device_id;
  last_.buckets = &it->second;  // an insertion may move the others: only this pointer is kept
  // A device first seen now had no op before the last sweep: until then it was the empty device
  // (the breakdown gives it the empty device's parts the same way).
  if (inserted && any_) it->second = empty_swept_;
  return it->second;
}

void BreakdownTimeline::OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  if (!any_) Start(lo);  // before the device copies the empty device's buckets
  Add(DeviceBuckets(device_id), part, lo, hi);
}

void BreakdownTimeline::OnParts(uint32_t device_id, const Piece* pieces, size_t count) {
  if (count == 0) return;
  if (!any_) Start(pieces[0].lo);  // as OnPart does (a batch is in time order)
  Buckets& buckets = DeviceBuckets(device_id);
  for (size_t i = 0; i < count; ++i) {
    if (pieces[i].hi > pieces[i].lo) Add(buckets, pieces[i].part, pieces[i].lo, pieces[i].hi);
  }
}

void BreakdownTimeline::OnEmptyDevicePart(Part part, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  Add(empty_sweep_, part, lo, hi);
}

void BreakdownTimeline::OnSwept(int64_t /*watermark*/) {
  if (!any_) return;
  for (size_t i = 0; i < kMaxTimelineBuckets; ++i) AddInto(empty_swept_[i], empty_sweep_[i]);
  std::fill(empty_sweep_.begin(), empty_sweep_.end(), TimelineBucket{});
}

std::optional<Timeline> BreakdownTimeline::Finish(
    const std::vector<DeviceBreakdown>& devices) const {
  if (!any_ || devices.empty()) return std::nullopt;
  Timeline t;
  t.bucket_ns = bucket_ns_;
  for (const DeviceBreakdown& d : devices) {
    DeviceTimeline& out = t.devices.emplace_back();
    out.id = d.id;
    const int64_t wall = std::max<int64_t>(d.wall_ns, 0);
    const size_t n = static_cast<size_t>(
        std::clamp<int64_t>((wall + bucket_ns_ - 1) / bucket_ns_, 1, kBuckets));
    const auto it = devices_.find(d.id);
    const Buckets& from = it != devices_.end() && !it->second.empty() ? it->second : empty_swept_;
    out.buckets.assign(from.begin(), from.begin() + n);
    // Anything past the last reported bucket (none when the wall time is the breakdown's) stays
    // in the last one, so that the sums still hold.
    for (size_t i = n; i < from.size(); ++i) AddInto(out.buckets[n - 1], from[i]);
  }
  return t;
}

}  // namespace brrr
