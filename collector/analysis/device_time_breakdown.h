// Per-device wall-time breakdown: busy (union of kernels, copies, memsets on the device) and idle,
// idle split into launch_bound / sync_drain / host_outside_cuda (DESIGN.md, "breakdown"). The
// parts of every device sum to its wall time exactly (integer ns, by construction: the sweep
// tiles [origin, end) with segments and gives each segment to exactly one part).
//
// Classification of an idle instant t (device d has no op running at t), first rule that applies:
//   1. some host thread is inside a call that stalled (see stall_classifier.h)    -> sync_drain
//   2. no host thread is inside a CUDA call and the last call ended more than
//      host_gap_ns ago                                                            ->
//      host_outside_cuda
//   3. the last stall ended after the last op on d started (the queue ran dry
//      while the host was blocked and has not been refilled since)               -> sync_drain
//   4. otherwise (host inside CUDA calls or between them: launching)             -> launch_bound
// Rule 2 comes before rule 3 on purpose: after `loss.item()` a job that then spends 10 ms loading
// data is input-bound, not sync-bound; only the first host_gap_ns of that gap count as drain.
//
// Start-up and teardown: the time before the run's first CUDA work (the earliest host call or
// device op of any device) is start-up, the time after its last (the latest call exit or op end)
// is teardown. The call in which CUDA initialized (NoteInitializationCall: the runtime creates its
// context in the process's first call, cudaFree(NULL) or cudaMalloc, say) ends start-up instead,
// at its exit, when no device work came before it. Both
// are parts of every device's wall time, apart from busy and idle, so that the verdict can judge
// the steady state alone. (All wall time is start-up when there was no CUDA work at all.) The idle
// listener still receives those pieces classified by the rules above. Only with
// Options.split_startup_teardown; without it they are classified like the rest.
//
// Bounded memory: events arrive out of order (host threads drained in rounds, CUPTI buffers
// seconds late), so spans and ops wait in pending vectors until the watermark
// W = newest_time - window_ns passes them; then [cursor, W) is swept in time order and the
// consumed items are dropped. Only O(window) items are retained, further capped by max_pending
// (over the cap, the older half is finalized early). The sweep keeps O(1) state per device: the
// largest host exit and stall exit seen, the device's busy-until and last op start. An item that
// arrives after the watermark passed it is "late": its part after the cursor still counts, the
// rest is lost for the breakdown (it still counts in every other statistic) and is counted.
// Two op-less accumulators run alongside: a host-only "virtual device" (never busy, no drain rule)
// gives the host-side split used when there are no device records; an "empty device" (never
// busy, all rules) is the exact history of a device whose first op arrives after the cursor moved.
//
// Not thread-safe. Must never: lose or double-count a nanosecond of wall time, or retain memory
// proportional to the run's length.
#ifndef BRRR_COLLECTOR_ANALYSIS_DEVICE_TIME_BREAKDOWN_H_
#define BRRR_COLLECTOR_ANALYSIS_DEVICE_TIME_BREAKDOWN_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/span_backlog.h"
#include "viewer/format/report.h"

namespace brrr {

// The three causes of device idle time, as IdleBreakdown names them.
enum class IdleKind : uint8_t { kLaunchBound = 0, kSyncDrain = 1, kHostOutsideCuda = 2 };

class DeviceTimeBreakdown {
 public:
  // Receives the classified idle time of every device as it is finalized: for each sweep, the
  // idle pieces of each device in time order (a device's pieces never overlap; devices come one
  // after another), then OnSwept(watermark): nothing before it will be reported again.
  class IdleListener {
   public:
    virtual ~IdleListener() = default;
    virtual void OnIdle(uint32_t device_id, IdleKind kind, int64_t lo, int64_t hi) = 0;
    virtual void OnSwept(int64_t watermark) = 0;
  };
  // Receives every finalized piece of every device's wall time with the part it was counted in
  // (busy, an idle cause, start-up or teardown), so that the pieces of a device add up to its
  // DeviceBreakdown exactly; OnEmptyDevicePart gets those of the "empty device" (see above), the
  // history a device seen late inherits. After each sweep, OnSwept(watermark).
  class PartListener {
   public:
    enum class Part : uint8_t { kBusy, kLaunchBound, kSyncDrain, kHostOutsideCuda, kStartup,
                                kTeardown };
    struct Piece {
      Part part;
      int64_t lo, hi;
    };
    virtual ~PartListener() = default;
    virtual void OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) = 0;
    // A device's pieces come in batches (the sweep gathers them: one call per batch, not per
    // piece), in time order; by default each is handed to OnPart.
    virtual void OnParts(uint32_t device_id, const Piece* pieces, size_t count) {
      for (size_t i = 0; i < count; ++i)
        OnPart(device_id, pieces[i].part, pieces[i].lo, pieces[i].hi);
    }
    virtual void OnEmptyDevicePart(Part part, int64_t lo, int64_t hi) = 0;
    virtual void OnSwept(int64_t watermark) = 0;
  };
  struct Options {
    int64_t host_gap_ns = 100'000;
    int64_t window_ns = 3'000'000'000;     // how late an event may arrive and still count fully
    size_t max_pending = size_t{1} << 20;  // per pending queue
    bool split_startup_teardown = false;   // count start-up and teardown apart (see above)
  };
  struct HostSplit {  // the virtual device: how the host spent the wall time
    int64_t wall_ns = 0;
    int64_t in_stall_ns = 0;         // inside calls that stalled
    int64_t in_or_near_cuda_ns = 0;  // inside other CUDA calls or less than host_gap_ns between
    int64_t outside_cuda_ns = 0;
    int64_t startup_ns = 0;   // before the first CUDA work
    int64_t teardown_ns = 0;  // after the last CUDA work
  };

  explicit DeviceTimeBreakdown(Options options);

  // The run's start; events before it are clipped. Effective only before the first sweep;
  // without it the earliest event seen is the origin.
  void SetOrigin(int64_t start_ns);
  // Host time inside one CUDA call (any thread). `stall` marks a call that blocked on the device.
  // Inline: a call of a launch loop continues the open span (see open_host_).
  void AddHostSpan(int64_t enter_ns, int64_t exit_ns, bool stall) {
    if (finished_) return;
    exit_ns = NoteWork(enter_ns, exit_ns);
    if (!stall && open_host_valid_ && enter_ns >= open_host_.start &&
        enter_ns - open_host_.end <= options_.host_gap_ns) {
      open_host_.end = std::max(open_host_.end, exit_ns);
      MaybeSweep(host_pending_);
      return;
    }
    AddHostSpanApart(enter_ns, exit_ns, stall);
  }
  // Inline: an op of the device the last one ran on.
  void AddDeviceOp(uint32_t device_id, int64_t start_ns, int64_t end_ns) {
    if (finished_) return;
    end_ns = NoteWork(start_ns, end_ns);
    if (last_device_ != nullptr && device_id == last_device_id_) {
      last_device_->pending.push_back(start_ns, end_ns, false);
      MaybeSweep(last_device_->pending);
      return;
    }
    AddOpOfAnotherDevice(device_id, start_ns, end_ns);
  }
  // A host call (added with AddHostSpan too) in which CUDA may have initialized: if the earliest
  // one came before any device work, start-up runs to its exit.
  void NoteInitializationCall(int64_t enter_ns, int64_t exit_ns) {
    if (enter_ns >= init_enter_) return;
    init_enter_ = enter_ns;
    init_exit_ = std::max(enter_ns, exit_ns);
  }
  // The newest event time seen from any source; drives the watermark.
  void ObserveTime(int64_t t_ns) { ObserveSpan(t_ns, t_ns); }
  // From now on, finalized idle time also goes to `listener` (nullptr: none); it must outlive
  // this object or be unset.
  void SetIdleListener(IdleListener* listener) { idle_listener_ = listener; }
  // Likewise for every part (see PartListener); set it before the first event to see them all.
  void SetPartListener(PartListener* listener) { part_listener_ = listener; }
  // The time before which everything is finalized (the sweep cursor; the origin before the first
  // sweep, INT64_MIN before anything is known).
  int64_t finalized_until() const;

  // Sweeps everything up to end_ns (raised to the sweep cursor if below it) and returns one entry
  // per device seen, ordered by id. Call once.
  std::vector<DeviceBreakdown> Finish(int64_t end_ns);
  HostSplit host_split() const { return host_split_; }

  uint64_t late_items() const { return late_items_; }
  uint64_t forced_sweeps() const { return forced_sweeps_; }
  size_t RetainedItemsForTest() const;

 private:
  using Span = PendingSpan;
  struct HostTrack {
    int64_t max_exit;
    int64_t stall_exit;
  };
  struct Parts {
    int64_t busy = 0, launch = 0, drain = 0, outside = 0, startup = 0, teardown = 0;
  };
  enum class Region : uint8_t { kStartup, kSteady, kTeardown };
  struct Device {
    SpanBacklog pending;
    int64_t busy_until;
    int64_t last_start;
    Parts parts;
  };

  // `grown`: the queue that just received an item (only it can have gone over the cap). Called
  // for every event: the test is inline, the work (SweepOrCap) is not.
  void MaybeSweep(SpanBacklog& grown) {
    if (newest_ - options_.window_ns - SweepStart() >= sweep_span_ ||
        grown.size() > options_.max_pending || some_queue_over_cap_) {
      SweepOrCap(grown);
    }
  }
  void SweepOrCap(SpanBacklog& grown);
  // Where the next sweep begins: the cursor, else the origin, else the earliest event seen.
  int64_t SweepStart() const {
    return cursor_valid_ ? cursor_ : (origin_set_ ? origin_ : oldest_seen_);
  }
  void Sweep(int64_t watermark);
  // Classifies [cursor_, watermark) for one device or, with nullptr, for the two op-less
  // accumulators (a walk split only where host spans begin).
  void SweepDevice(uint32_t device_id, Device* device, size_t host_count, int64_t watermark);
  // The two op-less accumulators' share of a segment [lo, hi) inside one region.
  void ClassifyHostOnly(int64_t lo, int64_t hi, const HostTrack& host, Region region);
  // Finds the first CUDA work among the items about to be swept (before `watermark`), once.
  void NoteActivityStart(int64_t watermark);
  // Emits the pieces to idle_listener_ as device `device_id`'s when one is set, and to
  // part_listener_ when `counted` (the pieces are the device's idle parts, not start-up/teardown).
  void ClassifyIdle(int64_t lo, int64_t hi, const HostTrack& host, int64_t last_start,
                    bool drain_rule, Parts& parts, uint32_t device_id, bool counted);
  // ClassifyIdle's pieces for idle_listener_: [lo, stalled_until) drain, then launch-bound (or
  // drain when refilling after a stall) until active_until, then outside CUDA until hi.
  void NotifyIdle(uint32_t device_id, int64_t lo, int64_t stalled_until, int64_t active_until,
                  int64_t hi, bool refilling_after_stall);
  // Queues a piece of device `device_id` (the one being swept) for part_listener_ (EmitParts).
  void EmitPart(uint32_t device_id, PartListener::Part part, int64_t lo, int64_t hi) {
    if (piece_count_ == kPieceBatch) EmitParts(device_id);
    pieces_[piece_count_++] = {part, lo, hi};
  }
  // Hands the queued pieces to part_listener_ (one call) and empties the queue.
  void EmitParts(uint32_t device_id);
  void InitCursor();
  // Moves the open host span (if any) into host_pending_.
  void CloseOpenHostSpan();
  // ObserveTime(lo) and ObserveTime(hi) in one step; requires lo <= hi.
  void ObserveSpan(int64_t lo, int64_t hi) {
    if (!seen_any_) {
      seen_any_ = true;
      oldest_seen_ = lo;
      newest_ = hi;
    } else {
      newest_ = std::max(newest_, hi);
      oldest_seen_ = std::min(oldest_seen_, lo);
    }
  }
  // A span of CUDA work (a host call or a device op): its end raised to its start, returned; the
  // span is seen (it moves the watermark) and is the last work so far if it ends latest.
  int64_t NoteWork(int64_t lo, int64_t hi) {
    if (hi < lo) hi = lo;
    ObserveSpan(lo, hi);
    last_work_end_ = any_work_ ? std::max(last_work_end_, hi) : hi;
    any_work_ = true;
    return hi;
  }
  // AddHostSpan when the span does not continue the open one: a stall, or a new open span.
  void AddHostSpanApart(int64_t enter_ns, int64_t exit_ns, bool stall);
  // AddDeviceOp of a device other than the last one's (found or created).
  void AddOpOfAnotherDevice(uint32_t device_id, int64_t start_ns, int64_t end_ns);

  Options options_;
  int64_t sweep_span_;  // the least event time a sweep finalizes (window / 2, at least 1 ms)
  int64_t origin_ = 0;
  bool origin_set_ = false;
  bool cursor_valid_ = false;
  int64_t cursor_ = 0;
  int64_t newest_ = 0;
  int64_t oldest_seen_ = 0;
  bool seen_any_ = false;
  SpanBacklog host_pending_;
  // Non-stall host spans are merged on arrival while each new one enters no earlier than the open
  // span's start and at most host_gap_ns after its end. That changes no instant's class: in the
  // gap the host was "near CUDA" (rule 4 or 3) either way, and rules 1-3 do not depend on where
  // one non-stall call ends and the next begins. A launch loop then costs one pending span per
  // sweep instead of one per call. Stall spans are never merged (rule 1 needs their exact ends).
  PendingSpan open_host_{};
  bool open_host_valid_ = false;
  HostTrack host_;
  absl::flat_hash_map<uint32_t, Device> devices_;
  uint32_t last_device_id_ = 0;
  Device* last_device_ = nullptr;  // devices_[last_device_id_]; devices_ only grows
  Parts virtual_parts_;            // the host-only view: never busy, no drain rule
  Parts empty_device_parts_;       // a device that never had an op: inherited by devices seen late
  HostSplit host_split_;
  uint64_t late_items_ = 0;
  uint64_t forced_sweeps_ = 0;
  bool some_queue_over_cap_ = false;  // set when a forced sweep left a queue over max_pending
  bool finished_ = false;
  IdleListener* idle_listener_ = nullptr;
  PartListener* part_listener_ = nullptr;
  // The pieces a device's sweep has for part_listener_ and not handed over yet (empty between
  // sweeps).
  static constexpr size_t kPieceBatch = 64;
  PartListener::Piece pieces_[kPieceBatch] = {};
  size_t piece_count_ = 0;
  // Start-up ends at the first CUDA work (INT64_MAX until some is swept); teardown begins after
  // the last (INT64_MAX until Finish).
  int64_t startup_end_ = INT64_MAX;
  int64_t teardown_from_ = INT64_MAX;
  int64_t init_enter_ = INT64_MAX;  // the earliest initialization call (INT64_MAX: none)
  int64_t init_exit_ = INT64_MIN;
  bool any_work_ = false;
  int64_t last_work_end_ = 0;  // the latest host exit or op end added
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_DEVICE_TIME_BREAKDOWN_H_
