// The watermark sweep behind device_time_breakdown.h (see its comment for the rules and the
// memory bound).
//
// Must never: let a segment be counted in two parts, or skip one.
#include "collector/analysis/device_time_breakdown.h"

#include <algorithm>

namespace brrr {
namespace {

// "Never happened": far below any real time, yet far from overflowing when a gap is added.
constexpr int64_t kNever = -(int64_t{1} << 62);
constexpr int64_t kMinSweepSpan = 1'000'000;  // sweep at most once per ms of event time

}  // namespace

DeviceTimeBreakdown::DeviceTimeBreakdown(Options options)
    : options_(options),
      startup_end_(options.split_startup_teardown ? INT64_MAX : INT64_MIN) {
  options_.host_gap_ns = std::clamp<int64_t>(options_.host_gap_ns, 0, int64_t{1} << 60);
  options_.window_ns = std::clamp<int64_t>(options_.window_ns, 0, int64_t{1} << 60);
  options_.max_pending = std::max<size_t>(options_.max_pending, 16);
  sweep_span_ = std::max(options_.window_ns / 2, kMinSweepSpan);
  host_ = {kNever, kNever};
}

void DeviceTimeBreakdown::SetOrigin(int64_t start_ns) {
  if (cursor_valid_) return;
  origin_ = start_ns;
  origin_set_ = true;
}

void DeviceTimeBreakdown::AddHostSpanApart(int64_t enter_ns, int64_t exit_ns, bool stall) {
  if (!stall) {
    // Merging keeps every instant's classification (see open_host_ in the header): a call that
    // enters at most host_gap_ns after the open span's end continues it (AddHostSpan); this one
    // does not, so the open span is closed and this one is open.
    CloseOpenHostSpan();
    open_host_ = {enter_ns, exit_ns, false};
    open_host_valid_ = true;
    MaybeSweep(host_pending_);
    return;
  }
  host_pending_.push_back(enter_ns, exit_ns, stall);
  MaybeSweep(host_pending_);
}

void DeviceTimeBreakdown::CloseOpenHostSpan() {
  if (!open_host_valid_) return;
  open_host_valid_ = false;
  host_pending_.push_back(open_host_.start, open_host_.end, open_host_.stall);
}

void DeviceTimeBreakdown::AddOpOfAnotherDevice(uint32_t device_id, int64_t start_ns,
                                               int64_t end_ns) {
  auto [it, inserted] = devices_.try_emplace(device_id);
  Device& device = it->second;
  last_device_id_ = device_id;  // valid until the next insertion (which resets it here)
  last_device_ = &device;
  if (inserted) {
    device.busy_until = kNever;
    device.last_start = kNever;
    // A device first seen after the sweep began had no op before the cursor (any would be late):
    // until then it was exactly the empty device.
    device.parts = empty_device_parts_;
  }
  device.pending.push_back(start_ns, end_ns, false);
  MaybeSweep(device.pending);
}

void DeviceTimeBreakdown::InitCursor() {
  if (cursor_valid_) return;
  if (!origin_set_) origin_ = seen_any_ ? oldest_seen_ : 0;
  cursor_ = origin_;
  cursor_valid_ = true;
}

void DeviceTimeBreakdown::SweepOrCap(SpanBacklog& grown) {
  const int64_t watermark = newest_ - options_.window_ns;
  if (watermark - SweepStart() >= sweep_span_) {
    Sweep(watermark);
    return;
  }
  // Over the cap: finalize the older half of the fullest queue now (rare: very high rates with a
  // long window). Items still to come for that half will be late and counted. Queues grow only
  // here, so unless a forced sweep left some queue over the cap, only `grown` can be over it.
  if (grown.size() <= options_.max_pending && !some_queue_over_cap_) return;
  SpanBacklog* fullest = &host_pending_;
  for (auto& [id, device] : devices_) {
    if (device.pending.size() > fullest->size()) fullest = &device.pending;
  }
  some_queue_over_cap_ = false;
  if (fullest->size() <= options_.max_pending) return;
  CloseOpenHostSpan();
  fullest->Sort();
  ++forced_sweeps_;
  InitCursor();
  Sweep(std::max((*fullest)[fullest->size() / 2].start, cursor_ + 1));
  some_queue_over_cap_ = host_pending_.size() > options_.max_pending;
  for (auto& [id, device] : devices_) {
    some_queue_over_cap_ |= device.pending.size() > options_.max_pending;
  }
}

void DeviceTimeBreakdown::Sweep(int64_t watermark) {
  InitCursor();
  if (watermark <= cursor_) return;
  CloseOpenHostSpan();
  host_pending_.Sort();
  if (startup_end_ == INT64_MAX && options_.split_startup_teardown) NoteActivityStart(watermark);
  const size_t host_count = host_pending_.CountStartingBefore(watermark);
  // The op-less accumulators get a walk of their own, split only where host spans begin: riding
  // along a device's walk would classify them again at every op. (Their host state is constant
  // between host span starts, so the sums are the same either way.)
  for (auto& [id, device] : devices_) SweepDevice(id, &device, host_count, watermark);
  SweepDevice(0, nullptr, host_count, watermark);
  for (size_t i = 0; i < host_count; ++i) {
    const Span& s = host_pending_[i];
    if (s.start < cursor_ && cursor_ > origin_) ++late_items_;
    host_.max_exit = std::max(host_.max_exit, s.end);
    if (s.stall) host_.stall_exit = std::max(host_.stall_exit, s.end);
  }
  host_pending_.DropFront(host_count);
  cursor_ = watermark;
  if (idle_listener_ != nullptr) idle_listener_->OnSwept(watermark);
  if (part_listener_ != nullptr) part_listener_->OnSwept(watermark);
}

void DeviceTimeBreakdown::NoteActivityStart(int64_t watermark) {
  int64_t first_op = INT64_MAX;
  for (auto& [id, device] : devices_) {
    if (device.pending.empty()) continue;
    device.pending.Sort();
    first_op = std::min(first_op, device.pending[0].start);
  }
  int64_t first = first_op;
  if (!host_pending_.empty()) first = std::min(first, host_pending_[0].start);  // sorted
  if (first >= watermark) return;
  // The initialization call, before any device work, ends start-up, even after other calls (nvcc's
  // registrations at static initialization, device queries, seen only by CUPTI): setting up too.
  startup_end_ =
      init_enter_ != INT64_MAX && init_enter_ <= first_op ? std::max(first, init_exit_) : first;
}

void DeviceTimeBreakdown::SweepDevice(uint32_t device_id, Device* device, size_t host_count,
                                      int64_t watermark) {
  HostTrack host = host_;
  int64_t busy_until = device ? device->busy_until : kNever;
  int64_t last_start = device ? device->last_start : kNever;
  size_t op_count = 0;
  if (device) {
    device->pending.Sort();
    op_count = device->pending.CountStartingBefore(watermark);
  }
  auto piece = [&](int64_t lo, int64_t hi, Region region) {
    if (device == nullptr) {
      ClassifyHostOnly(lo, hi, host, region);
    } else {
      const int64_t busy_end = std::clamp(busy_until, lo, hi);
      device->parts.busy += busy_end - lo;
      if (part_listener_ != nullptr && busy_end > lo) {
        EmitPart(device_id, PartListener::Part::kBusy, lo, busy_end);
      }
      if (region == Region::kSteady) {
        ClassifyIdle(busy_end, hi, host, last_start, /*drain_rule=*/true, device->parts,
                     device_id, /*counted=*/true);
      } else {
        // The listener (phases) still gets the classified pieces; the device counts them apart.
        Parts scratch;
        ClassifyIdle(busy_end, hi, host, last_start, /*drain_rule=*/true, scratch, device_id,
                     /*counted=*/false);
        (region == Region::kStartup ? device->parts.startup : device->parts.teardown) +=
            hi - busy_end;
        if (part_listener_ != nullptr && hi > busy_end) {
          EmitPart(device_id,
                   region == Region::kStartup ? PartListener::Part::kStartup
                                              : PartListener::Part::kTeardown,
                   busy_end, hi);
        }
      }
    }
  };
  // [lo, hi) split at the end of start-up and the start of teardown.
  auto segment = [&](int64_t lo, int64_t hi) {
    if (lo >= startup_end_ && hi <= teardown_from_) {  // the steady state: most segments
      piece(lo, hi, Region::kSteady);
      return;
    }
    const int64_t a = std::clamp(startup_end_, lo, hi);
    const int64_t b = std::clamp(teardown_from_, a, hi);
    if (a > lo) piece(lo, a, Region::kStartup);
    if (b > a) piece(a, b, Region::kSteady);
    if (hi > b) piece(b, hi, Region::kTeardown);
  };

  int64_t t = cursor_;
  size_t i = 0, j = 0;
  while (true) {
    int64_t next = watermark;
    if (i < host_count) next = std::min(next, host_pending_[i].start);
    if (j < op_count) next = std::min(next, device->pending[j].start);
    if (next > t) {
      segment(t, next);
      t = next;
    }
    if (i >= host_count && j >= op_count) break;
    for (; i < host_count && host_pending_[i].start <= t; ++i) {
      host.max_exit = std::max(host.max_exit, host_pending_[i].end);
      if (host_pending_[i].stall) host.stall_exit = std::max(host.stall_exit, host_pending_[i].end);
    }
    for (; j < op_count && device->pending[j].start <= t; ++j) {
      const Span& op = device->pending[j];
      if (op.start < cursor_ && cursor_ > origin_) ++late_items_;
      busy_until = std::max(busy_until, op.end);
      last_start = std::max(last_start, op.start);
    }
  }
  if (device) {
    device->busy_until = busy_until;
    device->last_start = last_start;
    device->pending.DropFront(op_count);
    EmitParts(device_id);
  }
}

void DeviceTimeBreakdown::EmitParts(uint32_t device_id) {
  if (piece_count_ > 0 && part_listener_ != nullptr) {
    part_listener_->OnParts(device_id, pieces_, piece_count_);
  }
  piece_count_ = 0;
}

void DeviceTimeBreakdown::ClassifyIdle(int64_t lo, int64_t hi, const HostTrack& host,
                                       int64_t last_start, bool drain_rule, Parts& parts,
                                       uint32_t device_id, bool counted) {
  if (lo >= hi) return;
  const int64_t stalled_until = std::clamp(host.stall_exit, lo, hi);  // rule 1
  parts.drain += stalled_until - lo;
  const int64_t active_until = std::clamp(host.max_exit + options_.host_gap_ns, stalled_until, hi);
  const bool refilling_after_stall =  // rule 3
      drain_rule && host.stall_exit != kNever && host.stall_exit > last_start;
  (refilling_after_stall ? parts.drain : parts.launch) += active_until - stalled_until;
  parts.outside += hi - active_until;  // rule 2
  if (part_listener_ != nullptr && counted) {
    using Part = PartListener::Part;
    if (stalled_until > lo) EmitPart(device_id, Part::kSyncDrain, lo, stalled_until);
    if (active_until > stalled_until) {
      EmitPart(device_id, refilling_after_stall ? Part::kSyncDrain : Part::kLaunchBound,
               stalled_until, active_until);
    }
    if (hi > active_until) EmitPart(device_id, Part::kHostOutsideCuda, active_until, hi);
  }
  if (idle_listener_ != nullptr) {
    NotifyIdle(device_id, lo, stalled_until, active_until, hi, refilling_after_stall);
  }
}

void DeviceTimeBreakdown::NotifyIdle(uint32_t device_id, int64_t lo, int64_t stalled_until,
                                     int64_t active_until, int64_t hi, bool refilling_after_stall) {
  if (stalled_until > lo) {
    idle_listener_->OnIdle(device_id, IdleKind::kSyncDrain, lo, stalled_until);
  }
  if (active_until > stalled_until) {
    idle_listener_->OnIdle(device_id,
                           refilling_after_stall ? IdleKind::kSyncDrain : IdleKind::kLaunchBound,
                           stalled_until, active_until);
  }
  if (hi > active_until) {
    idle_listener_->OnIdle(device_id, IdleKind::kHostOutsideCuda, active_until, hi);
  }
}

int64_t DeviceTimeBreakdown::finalized_until() const {
  if (cursor_valid_) return cursor_;
  if (origin_set_) return origin_;
  return INT64_MIN;
}

void DeviceTimeBreakdown::ClassifyHostOnly(int64_t lo, int64_t hi, const HostTrack& host,
                                           Region region) {
  if (region != Region::kSteady) {
    int64_t Parts::*part =
        region == Region::kStartup ? &Parts::startup : &Parts::teardown;
    virtual_parts_.*part += hi - lo;
    empty_device_parts_.*part += hi - lo;
    if (part_listener_ != nullptr && hi > lo) {
      part_listener_->OnEmptyDevicePart(region == Region::kStartup
                                            ? PartListener::Part::kStartup
                                            : PartListener::Part::kTeardown,
                                        lo, hi);
    }
    return;
  }
  // ClassifyIdle for the virtual device (no drain rule) and the empty device (drain rule, no op
  // ever started: rule 3 holds whenever some stall ended), sharing the clamps.
  const int64_t stalled_until = std::clamp(host.stall_exit, lo, hi);
  const int64_t active_until = std::clamp(host.max_exit + options_.host_gap_ns, stalled_until, hi);
  const int64_t stalled = stalled_until - lo;
  const int64_t active = active_until - stalled_until;
  const int64_t outside = hi - active_until;
  virtual_parts_.drain += stalled;
  virtual_parts_.launch += active;
  virtual_parts_.outside += outside;
  empty_device_parts_.drain += stalled;
  (host.stall_exit != kNever ? empty_device_parts_.drain : empty_device_parts_.launch) += active;
  empty_device_parts_.outside += outside;
  if (part_listener_ != nullptr) {
    using Part = PartListener::Part;
    if (stalled > 0) part_listener_->OnEmptyDevicePart(Part::kSyncDrain, lo, stalled_until);
    if (active > 0) {
      part_listener_->OnEmptyDevicePart(
          host.stall_exit != kNever ? Part::kSyncDrain : Part::kLaunchBound, stalled_until,
          active_until);
    }
    if (outside > 0) part_listener_->OnEmptyDevicePart(Part::kHostOutsideCuda, active_until, hi);
  }
}

std::vector<DeviceBreakdown> DeviceTimeBreakdown::Finish(int64_t end_ns) {
  std::vector<DeviceBreakdown> out;
  if (finished_) return out;
  if (!seen_any_ && !origin_set_) {
    finished_ = true;
    return out;
  }
  InitCursor();
  // Teardown begins after the last CUDA work (or where the sweep already is, if it passed it).
  if (any_work_ && options_.split_startup_teardown) {
    teardown_from_ = std::max(last_work_end_, cursor_);
  }
  Sweep(std::max(end_ns, cursor_));
  finished_ = true;
  host_pending_.clear();
  host_split_.wall_ns = cursor_ - origin_;
  host_split_.in_stall_ns = virtual_parts_.drain;
  host_split_.in_or_near_cuda_ns = virtual_parts_.launch;
  host_split_.outside_cuda_ns = virtual_parts_.outside;
  host_split_.startup_ns = virtual_parts_.startup;
  host_split_.teardown_ns = virtual_parts_.teardown;
  for (auto& [id, device] : devices_) {
    device.pending.clear();
    DeviceBreakdown b;
    b.id = id;
    b.wall_ns = cursor_ - origin_;
    b.busy_ns = device.parts.busy;
    b.idle.launch_bound_ns = device.parts.launch;
    b.idle.sync_drain_ns = device.parts.drain;
    b.idle.host_outside_cuda_ns = device.parts.outside;
    b.startup_ns = device.parts.startup;
    b.teardown_ns = device.parts.teardown;
    out.push_back(b);
  }
  std::sort(out.begin(), out.end(),
            [](const DeviceBreakdown& a, const DeviceBreakdown& b) { return a.id < b.id; });
  return out;
}

size_t DeviceTimeBreakdown::RetainedItemsForTest() const {
  size_t n = host_pending_.size() + (open_host_valid_ ? 1 : 0);
  for (const auto& [id, device] : devices_) n += device.pending.size();
  return n;
}

}  // namespace brrr
