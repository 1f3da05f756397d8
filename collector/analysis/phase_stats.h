// NVTX phases: turns a run's NVTX ranges into per-phase figures (report.h, Phase).
//
// A phase is a distinct range path. Push/pop ranges nest per thread (one stack per thread, all
// domains together: a pop closes the thread's innermost range); a range's path is its parent's
// path, '/', its label, e.g. `step/fwd`. A label is the range's message, prefixed "domain:" when
// the range is not in the default domain (`megatron:fwd`); an empty message is "(unnamed)";
// torch.profiler's step ranges, `ProfilerStep#<n>`, are all `ProfilerStep#N` (one phase, not one
// per step: `ProfilerStep#N/fwd`).
// A start/end range (any thread may end it) is a phase of its own named by its label alone, never
// nested; when it shares a name with a top-level push range they are one phase.
//
// Figures of a phase (parents are inclusive: `step` counts everything of `step/fwd`):
//  calls      ranges of the path opened;
//  wall_ns    host time inside, summed over its ranges (two threads inside at once count twice);
//  launches   launch calls of a thread while the path was open on that thread (push/pop), or of
//             any thread while a start/end range of the path was open; a thread with no push/pop
//             range open of its own is in the ones open on the process's main thread at the time
//             of its call (SetMainThread): PyTorch runs `loss.backward()` on its autograd
//             engine's device thread while the main thread waits inside its `bwd` label;
//  device_ns  device time of the kernels those launches ran (carried through the CallJoiner's
//             correlation join as a tag);
//  stall_ns   host time of the calls StallStats counts as stalls, made inside, as launches;
//  idle       the DeviceTimeBreakdown's classified idle time (summed over devices) at instants
//             when at least one thread was inside the path (each instant once per phase).
// Calls seen only by CUPTI (no host record, hence no order with the NVTX events) are not
// attributed, nor is a query poll still running when the run ends. A thread id reused by a new
// thread inherits the ranges its predecessor left open. Marks are counted and ignored. Unbalanced
// pops (no open range), ends of unknown start/end ranges and ranges still open at the run's end
// (closed at the end) are tolerated and counted.
//
// Bounded memory: at most max_paths rows (ranges of a path beyond the cap are counted in
// over_cap(), their time still counts in their parents), max_depth frames per thread, max_open
// start/end ranges, max_contexts sets of open start/end ranges (a tag names one), and only the
// closed range intervals the breakdown has not finalized yet (it finalizes with a lag:
// OnSwept), at most max_intervals of them.
//
// Not thread-safe. Must never: keep anything per range or per call beyond the breakdown's lag,
// allocate per event once its paths exist, or trust an event (garbage gives wrong figures only).
#ifndef BRRR_COLLECTOR_ANALYSIS_PHASE_STATS_H_
#define BRRR_COLLECTOR_ANALYSIS_PHASE_STATS_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/device_time_breakdown.h"
#include "collector/events.h"
#include "viewer/format/report.h"

namespace brrr {

struct PhaseStatsOptions {
  size_t max_paths = 1000;  // at most 65535
  size_t max_depth = 64;
  size_t max_open_ranges = 4096;  // start/end ranges open at once
  size_t max_contexts = 4096;     // at most 65535
  size_t max_intervals = size_t{1} << 20;
};

class PhaseStats : public DeviceTimeBreakdown::IdleListener {
 public:
  using Options = PhaseStatsOptions;
  struct Counters {
    uint64_t ranges = 0;  // ranges opened (push + start)
    uint64_t marks = 0;
    uint64_t unbalanced_pops = 0;      // a pop on a thread with no open range
    uint64_t unknown_ends = 0;         // an end of a range id not open
    uint64_t closed_at_end = 0;        // ranges still open when the run ended
    uint64_t depth_over_cap = 0;       // pushes beyond max_depth (not phases of their own)
    uint64_t open_over_cap = 0;        // starts beyond max_open_ranges (ignored)
    uint64_t contexts_over_cap = 0;    // sets of open start/end ranges over the cap: not credited
    uint64_t late_events = 0;          // NVTX events older than the finalized idle time
    uint64_t intervals_dropped = 0;    // closed intervals not kept for the idle split (cap)
    uint64_t pop_domain_mismatch = 0;  // a pop of another domain than the range it closed
    uint64_t threads_over_cap = 0;     // pushes of a thread beyond 65536 threads with open ranges
  };

  explicit PhaseStats(Options options = {});

  // True once an NVTX range was seen: until then tags are all 0 and nothing needs calling.
  bool active() const { return active_; }

  void OnNvtx(const NvtxEvent& event);
  // The process's main thread (its pid; 0 = none): whose ranges a thread without its own is in.
  void SetMainThread(uint32_t tid) { main_tid_ = tid; }

  // The phases a call of thread `tid` made now (at `time_ns`) is inside, as a tag for the credits
  // below (0 = none). Valid for the whole run (tags are never reused).
  uint32_t TagFor(uint32_t tid, int64_t time_ns = 0);
  void AddLaunch(uint32_t tag);
  void AddStall(uint32_t tag, int64_t ns);
  void AddDeviceWork(uint32_t tag, int64_t ns);

  // DeviceTimeBreakdown::IdleListener: finalized idle pieces, then the time they are final to.
  void OnIdle(uint32_t device_id, IdleKind kind, int64_t lo, int64_t hi) override;
  void OnSwept(int64_t watermark) override;

  // Closes the ranges still open at `end_ns` and returns at most `top` phases by wall_ns
  // descending (ties by name). Call after the breakdown's Finish (its last sweep). Call once.
  std::vector<Phase> Finish(int64_t end_ns, size_t top);

  // Ranges not counted because their path had no row (the cap on distinct paths).
  uint64_t over_cap() const { return over_cap_; }
  const Counters& counters() const { return counters_; }
  size_t RetainedItemsForTest() const;

 private:
  struct Span {
    int64_t lo, hi;
  };
  struct Path {
    std::string name;
    uint32_t parent = 0;
    uint64_t stamp = 0;         // last credit pass that reached it (dedupes a path reached twice)
    bool dirty = false;         // in dirty_: has intervals waiting for the breakdown
    std::vector<Span> pending;  // its closed ranges' intervals not yet finalized
    Phase figures;
  };
  struct Frame {
    uint32_t path;       // 0: over the cap on paths
    uint32_t effective;  // `path`, or the innermost enclosing path with a row
    uint64_t domain;     // hash of the domain, for the mismatch count
    int64_t start;
  };
  struct Thread {
    std::vector<Frame> stack;
    uint64_t over_depth = 0;  // pushes beyond max_depth not yet popped
  };
  struct OpenRange {
    uint32_t path;
    int64_t start;
  };
  // The main thread's innermost range from `time` on (0: none), after one of its pushes or pops.
  struct MainTop {
    int64_t time;
    uint32_t path;
  };
  static constexpr size_t kMainHistory = 4096;  // the main thread's latest pushes and pops
  struct IdlePiece {
    int64_t lo, hi;
    int64_t before[3];  // idle of each kind in this device's pieces before this one
    IdleKind kind;
  };

  // The row for `name` (creating it under `parent`), or 0 over the cap.
  uint32_t PathFor(const std::string& name, uint32_t parent);
  void Label(const NvtxEvent& e);  // the event's label into label_
  void Push(const NvtxEvent& e);
  void Pop(const NvtxEvent& e);
  void Start(const NvtxEvent& e);
  void End(const NvtxEvent& e);
  // A range of `path` open on [start, end): wall time and the idle interval still to attribute.
  void Close(uint32_t path, int64_t start, int64_t end);
  void RefreshContext();  // current_context_ from open_ranges_
  void NoteMainTop(int64_t time, const Thread& thread);
  // The main thread's innermost range at `time`, as far as its history reaches (0: none).
  uint32_t MainPathAt(int64_t time) const;
  template <typename F>
  void Credit(uint32_t tag, F&& f);
  // Queues [lo, hi) of `path` for the next sweep.
  void AddPending(uint32_t path, int64_t lo, int64_t hi);
  // Adds to `sums` the idle of each kind the buffered pieces of every device have inside the
  // sorted, disjoint `spans`.
  void IdleInside(const std::vector<Span>& spans, int64_t sums[3]) const;

  Options options_;
  bool active_ = false;
  std::vector<Path> paths_;  // [0] is "no path"
  absl::flat_hash_map<std::string, uint32_t> path_ids_;
  absl::flat_hash_map<uint32_t, Thread> threads_;  // only threads with open ranges
  uint32_t cached_tid_ = 0;
  Thread* cached_thread_ = nullptr;
  uint32_t main_tid_ = 0;
  std::deque<MainTop> main_history_;                      // time order, at most kMainHistory
  absl::flat_hash_map<uint64_t, OpenRange> open_ranges_;  // by range id
  std::vector<std::vector<uint32_t>> contexts_;           // [0] is "none"
  absl::flat_hash_map<std::string, uint32_t> context_ids_;
  uint32_t current_context_ = 0;
  std::vector<uint32_t> context_scratch_;
  std::string context_key_;
  uint64_t stamp_ = 0;
  uint64_t over_cap_ = 0;
  // Idle attribution: intervals of closed ranges not yet finalized, idle pieces of the sweep in
  // progress, and the time before which everything is final.
  std::vector<uint32_t> dirty_;  // paths with pending intervals
  size_t pending_total_ = 0;
  std::vector<std::pair<uint32_t, std::vector<IdlePiece>>> idle_;  // by device (few)
  size_t last_device_ = 0;                                         // index in idle_
  int64_t swept_to_;
  std::vector<Span> merged_;
  std::string label_;
  std::string name_;
  Counters counters_;
  bool finished_ = false;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_PHASE_STATS_H_
