// Joins the three views of one CUDA call: the shim's HostCall, CUPTI's API record (ApiActivity)
// and the device work it caused (DeviceOp, by correlation id). It decides which calls were seen
// ONLY by CUPTI (static cudart, libraries calling the driver) so that every call is counted once,
// and measures launch-to-execution latency (kernel device start minus host entry of its call).
//
// A hooked launch that carries its work's correlation id (the shim took it from the driver call
// inside it: kRecordCorrelationFromDriver) waits for its kernels at once: CUPTI may write no
// RUNTIME record for it (BRRR_LAUNCH_RECORDS=0). Its span is kept to own the driver records
// inside it and its RUNTIME record, and waits for that record as any span waits for its own (it is
// never counted unmatched); on a thread whose launches have had no RUNTIME record and that had no
// API record for the decide lag of event time, such spans older than that are dropped (a thread
// that only launches may have no record at all to trim them).
//
// Join rule: an ApiActivity belongs to the HostCall on the same thread (CUPTI threadId equals
// HostCall.tid or the low 32 bits of pthread_id) whose [enter, exit] contains its [start, end],
// +-slack_ns, and that can own it: a hooked call owns RUNTIME records of functions brrr hooks (an
// unhooked call such as cudaGetLastError that ends within the slack of a launch is its own call)
// and DRIVER records (its own work); a call the shim saw through a CUPTI callback owns the record
// with its correlation id and, for a runtime function, the DRIVER records inside it. A DRIVER
// record nested in a RUNTIME record of its thread is the runtime call's own work: never counted.
// Events arrive in any order across sources; CUPTI arrives late. So:
//  - host spans wait (per thread, in time order) for their API records; a thread's matched spans
//    that ended trim_margin_ns before its newest matched API record started are dropped (CUPTI
//    writes a thread's API records in end order), unmatched ones only decide_lag_ns before it
//    (buffers can be delivered out of order), and none is kept longer than window_ns of event time
//    (9/8 of it at most: expiry is checked every window_ns / 8);
//  - an API record with no host span waits until it is decidable: the thread's host calls moved
//    past it (a later host call entered after it started), or decide_lag_ns of newer event time
//    passed, or Finish; driver records also wait for a later runtime record on the thread;
//  - launch records wait for their kernel and kernels for their launch record (by correlation id),
//    and are dropped when joined, so only in-flight work is retained; stale entries expire after
//    window_ns (checked every window_ns / 8). Every map is capped at max_pending; what a cap or
//    expiry drops is counted.
//
// Not thread-safe. Must never: count one call twice, or keep memory that grows with run length.
#ifndef BRRR_COLLECTOR_ANALYSIS_CALL_JOINER_H_
#define BRRR_COLLECTOR_ANALYSIS_CALL_JOINER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/correlation_map.h"
#include "collector/analysis/fifo.h"
#include "collector/events.h"

namespace brrr {

// What CUPTI said about a call besides its API record.
struct CorrelationFlags {
  bool sync_record = false;    // a SYNCHRONIZATION record: the call blocked on the device
  int64_t sync_ns = 0;         // its duration
  bool pageable_copy = false;  // a memcpy record with a PAGEABLE side
  bool d2h_copy = false;       // a memcpy record device -> host
};

// Opaque tags a host call hands to the device work it launches (0 = none): the listener gets
// them back with that work's device time.
struct LaunchTags {
  uint32_t phase = 0;  // for OnPhaseWork
  uint32_t site = 0;   // for OnSiteKernel
  bool any() const { return (phase | site) != 0; }
};

class CallJoiner {
 public:
  // OnSiteKernel's name id for work of several kernel names that came before their launch record.
  static constexpr uint32_t kSeveralKernelNames = UINT32_MAX;
  struct Options {
    int64_t slack_ns = 1'000;
    int64_t decide_lag_ns = 1'000'000'000;
    int64_t trim_margin_ns = 50'000'000;
    int64_t window_ns = 30'000'000'000;
    size_t max_pending = size_t{1} << 20;
  };
  class Listener {
   public:
    virtual ~Listener() = default;
    // A call seen only by CUPTI; called once per such call, in per-thread time order.
    virtual void OnCuptiOnlyCall(const ApiActivity& call, const CorrelationFlags& flags) = 0;
    // Launch-to-execution latency of the first kernel of one launch call.
    virtual void OnLaunchLatency(int64_t latency_ns) = 0;
    // Device time of kernels run by a launch whose host call was added with a nonzero phase tag
    // (one call per kernel, or one for the kernels that came before their launch's record).
    virtual void OnPhaseWork(uint32_t /*phase_tag*/, int64_t /*device_ns*/) {}
    // Kernels joined to their launch call (entered at launcher_enter_ns): one call per kernel, or
    // one for those that came before the launch's record; `first` once per launch call, with the
    // start of the launch's first kernel (`start_ns`; else that kernel's own start).
    virtual void OnLaunchedKernel(int64_t /*launcher_enter_ns*/, int64_t /*device_ns*/,
                                  bool /*first*/, int64_t /*start_ns*/) {}
    // Kernels of a launch whose host call was added with a nonzero site tag: their name id
    // (DeviceOp.name_id, or kSeveralKernelNames), device and summed device time; one call per
    // kernel, or one for the `kernels` that came before the launch's record.
    virtual void OnSiteKernel(uint32_t /*site_tag*/, uint32_t /*name_id*/, uint32_t /*device_id*/,
                              int64_t /*device_ns*/, uint32_t /*kernels*/) {}
  };
  struct Counters {
    uint64_t api_records = 0;
    uint64_t joined_to_host = 0;        // API records matched to a hooked host call
    uint64_t launches_by_id = 0;        // hooked launches that carried their correlation id
    uint64_t cupti_only = 0;            // API records counted as calls seen only by CUPTI
    uint64_t nested_driver = 0;         // driver records inside a runtime call: not counted
    uint64_t latencies = 0;             // kernels joined to their launch call
    uint64_t kernels_unjoined = 0;      // kernels whose launch call never showed up
    uint64_t host_calls_unmatched = 0;  // host calls with no API record although CUPTI was on
    uint64_t dropped_over_cap = 0;      // items not kept because a map was at max_pending
    // Records and host calls that came after the joiner had stopped waiting for each other: a
    // CUPTI-only decision on a record of a thread whose span that may have owned it was dropped
    // unmatched (a CUPTI buffer delivered very late), or a host call containing a record already
    // decided CUPTI-only by time (a host record delivered very late). Such a call counts twice.
    uint64_t api_records_late = 0;
  };

  CallJoiner(Options options, Listener* listener);
  // A snapshot's copy of the analysis sends the joins to its own listener.
  void SetListener(Listener* listener) { listener_ = listener; }

  // False in host-only runs: host spans are then not kept at all (until an API record shows up).
  void SetCuptiExpected(bool expected) { cupti_expected_ = expected; }

  // `tags`: what the listener gets back with the device time of the kernels this call launched.
  void AddHostCall(const HostCall& call, LaunchTags tags = {});
  void AddApiActivity(const ApiActivity& api);
  void AddDeviceOp(const DeviceOp& op);
  void AddSyncActivity(const SyncActivity& sync);
  // Resolves everything still pending (CUPTI-only calls are reported to the listener).
  void Finish();

  const Counters& counters() const { return counters_; }
  size_t RetainedItemsForTest() const;

 private:
  // A thread's spans are read back long after they were written (when CUPTI delivers the
  // records), in order, from two places: the span after the last match, and the front (trimming).
  // Asking for the span this far ahead of each (two cache lines) hides the misses: +6 % records/s
  // in brrr_drain_benchmark, measured against the same build without.
  static constexpr size_t kPrefetchSpans = 4;
  struct HostSpan {
    int64_t enter;
    int64_t exit;
    bool matched;
    bool driver;              // a callback span of a driver function
    bool launch_known;        // a hooked launch that carried its id: already waits for kernels
    uint32_t correlation_id;  // a callback span's own record; 0 for a hooked call
    LaunchTags tags;
  };
  struct HostThread {
    Fifo<HostSpan> spans;
    int64_t newest_enter;
    uint64_t pthread_id = 0;
    size_t next_hint = 0;  // index of the span after the last one a runtime record matched
    int64_t gave_up_until;  // the latest exit of a span dropped still waiting for its record
    // The last record decided CUPTI-only because its host call had not come within the decide
    // lag: a host call that then comes and contains it came too late.
    int64_t decided_start;  // kNever: none
    int64_t decided_end = 0;
    int64_t newest_api_start;     // the latest start of an API record of this thread (kNever: none)
    bool launch_records = false;  // a RUNTIME record joined a launch that carried its id
  };
  struct PendingApi {
    ApiActivity api;
    bool nested = false;      // a driver record inside a runtime record of its thread
    int64_t outer_start = 0;  // that runtime record's start
  };
  struct CuptiThread {
    Fifo<PendingApi> pending;
    int64_t newest_runtime_start;
  };
  struct LaunchEntry {
    int64_t enter;    // host entry of the launch call
    int64_t seen_at;  // event time when inserted (for expiry)
    bool multi;       // may launch several kernels (graphs): kept until expiry
    bool latency_done;
    LaunchTags tags;
  };
  struct PendingKernel {
    int64_t start;  // earliest kernel start seen for the correlation id
    int64_t seen_at;
    int64_t device_ns;  // summed durations of its kernels
    uint32_t name_id;   // its kernels' name id, or kSeveralKernelNames
    uint32_t device_id;
    uint32_t kernels;
  };
  struct TimedFlags {
    CorrelationFlags flags;
    int64_t seen_at;
  };

  void Observe(int64_t t) {
    if (t > newest_) newest_ = t;
  }
  // Every ~1/8 of the decide lag of event time: expire and decide what time alone decides.
  void MaybeMaintain() {
    if (newest_ >= next_maintenance_) {
      next_maintenance_ = newest_ + std::max<int64_t>(options_.decide_lag_ns / 8, 1'000'000);
      Maintain();
    }
  }
  void Maintain();
  // The thread's slot; the last one asked for is cached (a thread ring is drained in one go).
  HostThread& SlotForHost(uint32_t tid, uint64_t pthread_id) {
    if (cached_host_slot_ >= 0 && tid == cached_tid_ && pthread_id == cached_pthread_) {
      return threads_[static_cast<size_t>(cached_host_slot_)];
    }
    return LookUpHostSlot(tid, pthread_id);
  }
  HostThread& LookUpHostSlot(uint32_t tid, uint64_t pthread_id);
  // The host thread a CUPTI thread id names, or nullptr; through a small cache (see cupti_cache_).
  HostThread* FindSlot(uint32_t cupti_thread_id) {
    const CuptiCacheEntry& cached = cupti_cache_[cupti_thread_id % kCuptiCacheSize];
    if (cached.slot >= 0 && cupti_thread_id == cached.key) {
      return &threads_[static_cast<size_t>(cached.slot)];
    }
    return LookUpCuptiSlot(cupti_thread_id);
  }
  HostThread* LookUpCuptiSlot(uint32_t cupti_thread_id);
  // Index of the span containing the record (ending at end_ns, its end clamped to its start), or
  // -1. Inline: the usual answer is the span at the hint (CUPTI delivers a thread's records in
  // order), the one SearchContaining would find first when the next span entered after the record
  // started.
  int64_t FindContaining(const HostThread& thread, const ApiActivity& api, int64_t end_ns) const {
    const Fifo<HostSpan>& spans = thread.spans;
    const size_t hint = thread.next_hint;
    if (hint < spans.size() && spans[hint].enter <= api.start_ns &&
        (hint + 1 == spans.size() || spans[hint + 1].enter > api.start_ns) &&
        SpanOwns(spans[hint], api, end_ns, TraitsOf(api).hookable)) {
      return static_cast<int64_t>(hint);
    }
    return SearchContaining(thread, api, end_ns);
  }
  // FindContaining's search from the hint (see the .cc).
  int64_t SearchContaining(const HostThread& thread, const ApiActivity& api, int64_t end_ns) const;
  // The span contains the record, give or take the slack, and may own it (the join rule above).
  bool SpanOwns(const HostSpan& span, const ApiActivity& api, int64_t end_ns, bool hookable) const {
    if (span.enter > api.start_ns + options_.slack_ns || span.exit + options_.slack_ns < end_ns) {
      return false;
    }
    if (span.correlation_id == 0) return hookable;
    return api.correlation_id == span.correlation_id || (api.driver && !span.driver);
  }
  // Drops the thread's leading spans that ended before `before` (matched ones) or before
  // `unmatched_before` (those still waiting for their record). Inline: every joined record.
  void TrimSpans(HostThread& thread, int64_t before, int64_t unmatched_before) {
    while (!thread.spans.empty() && thread.spans.front().exit < before &&
           (thread.spans.front().matched || thread.spans.front().exit < unmatched_before)) {
      const HostSpan& front = thread.spans.front();
      // A launch that carried its id needs no record (there may be none: BRRR_LAUNCH_RECORDS=0).
      if (!front.matched && !front.launch_known && cupti_seen_) ++counters_.host_calls_unmatched;
      DropFrontSpan(thread);
    }
    thread.spans.Prefetch(kPrefetchSpans);
  }
  // Marks the thread's span at `index` matched by `api`; a runtime record moves the hint past it
  // and, on a launch that carried its id, says the thread's launches get RUNTIME records.
  const HostSpan& MarkMatched(HostThread& thread, size_t index, const ApiActivity& api) {
    HostSpan& span = thread.spans[index];
    span.matched = true;
    if (!api.driver) {
      thread.next_hint = index + 1;
      if (span.launch_known) thread.launch_records = true;
    }
    return span;
  }
  // Pops the thread's oldest span (noting it as given up on when it was still unmatched).
  void DropFrontSpan(HostThread& thread) {
    const HostSpan& front = thread.spans.front();
    if (!front.matched) thread.gave_up_until = std::max(thread.gave_up_until, front.exit);
    thread.spans.pop_front();
    --span_total_;
    if (thread.next_hint > 0) --thread.next_hint;
  }
  void Resolve(uint32_t cupti_thread_id, CuptiThread& thread);
  // `launch_known`: the host call already waits for its kernels (WaitForKernels).
  void Joined(const ApiActivity& api, int64_t launcher_enter, LaunchTags tags,
              bool launch_known = false);
  void RecordLauncher(const ApiActivity& api, int64_t enter, LaunchTags tags = {});
  // The launch call with this correlation id (entered at `enter`) waits for its kernels, or joins
  // those that came first.
  void WaitForKernels(uint32_t correlation_id, int64_t enter, bool multi, LaunchTags tags);
  void SetLaunch(uint32_t correlation_id, int64_t enter, bool multi, bool latency_done,
                 LaunchTags tags);
  // The listener's calls for device work joined to a launch that carries `tags`.
  void TaggedWork(LaunchTags tags, uint32_t name_id, uint32_t device_id, int64_t device_ns,
                  uint32_t kernels);
  // Flags matter only for CUPTI-only calls: skip them when the call's API record was (very
  // probably) already seen and decided, so hooked runs keep this map empty.
  TimedFlags* FlagsEntry(uint32_t correlation_id);

  Options options_;
  Listener* listener_;
  bool cupti_expected_ = true;
  bool cupti_seen_ = false;
  bool finishing_ = false;
  uint32_t max_api_correlation_ = 0;
  int64_t newest_;
  int64_t next_maintenance_;
  int64_t next_expiry_;  // when Maintain next expires stale entries (every window_ns / 8)
  std::vector<HostThread> threads_;
  absl::flat_hash_map<uint32_t, uint32_t> thread_keys_;  // tid and low32(pthread) -> threads_
  uint32_t cached_tid_ = 0;
  uint64_t cached_pthread_ = 0;
  int64_t cached_host_slot_ = -1;
  // FindSlot's direct-mapped cache (CUPTI thread id modulo its size): records of a few threads
  // interleave, so one entry would keep missing. A slot of -1 is empty.
  static constexpr size_t kCuptiCacheSize = 16;
  struct CuptiCacheEntry {
    uint32_t key = 0;
    int32_t slot = -1;
  };
  CuptiCacheEntry cupti_cache_[kCuptiCacheSize];
  // What the join needs to know of a CUPTI function, looked up once per run of equal
  // (driver, cbid): loops repeat one call.
  struct CallTraits {
    bool hookable = false;  // a hooked call may own its record (see the join rule)
    bool launch = false;    // starts device work (waits for its kernels)
    bool multi = false;     // may start several kernels (graphs)
  };
  const CallTraits& TraitsOf(const ApiActivity& api) const {
    const uint64_t key = (uint64_t{api.driver} << 32) | api.cbid;
    if (key != traits_key_) LookUpTraits(api, key);
    return traits_;
  }
  void LookUpTraits(const ApiActivity& api, uint64_t key) const;
  mutable uint64_t traits_key_ = ~uint64_t{0};  // (driver << 32 | cbid) of traits_
  mutable CallTraits traits_;
  absl::flat_hash_map<uint32_t, CuptiThread> cupti_threads_;
  size_t pending_api_total_ = 0;
  size_t span_total_ = 0;
  CorrelationMap<LaunchEntry> launches_;             // by correlation id
  CorrelationMap<PendingKernel> kernels_;            // by correlation id
  absl::flat_hash_map<uint32_t, TimedFlags> flags_;  // by correlation id
  Counters counters_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_CALL_JOINER_H_
