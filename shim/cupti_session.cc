// CUPTI loading, setup and activity-buffer handling for the shim (see cupti_session.h).
//
// Must never: run on the app's hot path, assume a CUPTI call succeeds, or link libcupti (it is
// dlopen'ed so that libbrrr.so's NEEDED list stays libc).
#include "shim/cupti_session.h"

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>

#include "shim/activity_convert.h"
#include "shim/api_callback.h"
#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/control_thread.h"
#include "shim/log.h"
#include "shim/ring_backpressure.h"
#include "shim/slot_tables.h"
#include "shim/thread_ring.h"
#include "shim/unwinder.h"

namespace brrr::shim {
namespace {

struct CuptiFunctions {
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
  CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**);
  CUptiResult (*dropped)(CUcontext, uint32_t, size_t*);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                 CUpti_CallbackId);
  CUptiResult (*finalize)();  // optional: without it CUPTI is never detached
  CUptiResult (*enable_runtime_api)(CUpti_CallbackId, uint8_t);  // optional (CUDA 12.6+)
};

constexpr size_t kBufferBytes = 4u << 20;  // 4 MiB per CUPTI buffer

CuptiFunctions g_fn;
std::atomic<uint32_t> g_setup_state{0};  // 0 = not started, 1 = running, 2 = done
std::atomic<bool> g_app_tool{false};      // the app's own tool asked for CUPTI (never reset)
std::atomic_flag g_yield_lock = ATOMIC_FLAG_INIT;
CUpti_SubscriberHandle g_subscriber = nullptr;  // brrr's, while it holds CUPTI
CuptiStatus g_status;                    // written by the setup, read after g_setup_state == 2
std::atomic<const SegmentView*> g_segment{nullptr};
std::atomic<uint64_t> g_lost_before_segment{0};
// Records of device work that came without timestamps (DetachGrace: work still queued at a forced
// flush), counted as BufferCompleted converts them.
std::atomic<uint64_t> g_untimed_records{0};
// How long the last detach's cuptiFinalize took (0: none since the control thread last took it).
std::atomic<uint64_t> g_last_detach_ns{0};
std::atomic_flag g_device_lock = ATOMIC_FLAG_INIT;
DeviceRingCursor g_device_cursor;  // guarded by g_device_lock
bool g_device_cursor_ready = false;
BackpressureState g_backpressure;  // guarded by g_device_lock
CuptiOptions g_options;            // as set up; kept for attaching again
// BRRR_LAUNCH_RECORDS=0 with driver callbacks inside hooked launches: CUPTI writes no RUNTIME
// record for the kernel launch functions brrr hooks (their host records carry the id).
bool g_drop_launch_records = false;
// The runtime launch functions whose records that leaves out: the hooked ones, whose nested
// cuLaunchKernel* callback gives their id (tools/gpu/join_ids_probe.sh, on an H100). Not graph
// launches: one graph's kernels are many, and their records stay.
constexpr CUpti_CallbackId kHookedLaunchRuntimeIds[] = {
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
};

// Detaching while device tracing is off (BRRR_CUPTI_DETACH): kinds off makes it kDetachPending;
// once the grace has passed the control thread flushes (kDetachReady); the next API callback's
// exit (on an app thread, where NVIDIA's CUPTI documentation recommends calling cuptiFinalize)
// detaches CUPTI: kDetached, and no CUPTI function may be called then, since any call attaches
// CUPTI again. Activity on attaches again (kAttached), or just cancels a detach not yet done.
// Changed under g_yield_lock only.
enum class Attachment : uint32_t { kAttached, kDetachPending, kDetachReady, kDetached };
std::atomic<Attachment> g_attachment{Attachment::kAttached};
bool g_detach_allowed = false;  // BRRR_CUPTI_DETACH, cuptiFinalize found, callbacks give exits
// A pending detach waits until then (CLOCK_MONOTONIC ns), so that work queued inside the window
// can finish and deliver its records first: cuptiFinalize drops what has not.
std::atomic<uint64_t> g_detach_not_before{0};

constexpr CUpti_ActivityKind kRequired[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME};
constexpr CUpti_ActivityKind kOptional[] = {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                            CUPTI_ACTIVITY_KIND_DRIVER};

// The optional kinds brrr wants (BRRR_DRIVER_RECORDS=0 leaves DRIVER off); a failure is not fatal.
void EnableOptionalKinds() {
  for (CUpti_ActivityKind kind : kOptional) {
    if (kind != CUPTI_ACTIVITY_KIND_DRIVER || g_options.driver_records) g_fn.enable(kind);
  }
}

template <typename Fn>
bool Resolve(void* lib, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  return *out != nullptr;
}

void* LoadCupti() {
  static const char* const kSonames[] = {"libcupti.so.13", "libcupti.so.12"};
  for (const char* soname : kSonames) {
    if (void* h = dlopen(soname, RTLD_NOLOAD | RTLD_NOW | RTLD_LOCAL)) return h;
  }
  for (const char* soname : kSonames) {
    if (void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return h;
  }
  return nullptr;
}

uint64_t CUPTIAPI MonotonicTimestamp() { return MonotonicNs(); }

// CUPTI's record of a runtime or driver call (not device work).
bool IsCallRecord(const ring::DeviceRecord& r) {
  return r.kind == static_cast<uint8_t>(ring::DeviceKind::kRuntimeApi) ||
         r.kind == static_cast<uint8_t>(ring::DeviceKind::kDriverApi);
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void WriteDeviceRecord(const SegmentView* seg, ring::DeviceRecord& record, const char* name) {
  if (name != nullptr) {
    record.name_id = InternName(ring::NameSlotsAt(seg->base, seg->layout), seg->geometry.name_slots,
                                name, strnlen(name, ring::kMaxNameLength));
  }
  AppendRecord(g_device_cursor, record);
}

// The device ring's writers (CUPTI's buffer threads and the PM sampler thread, never an app
// thread in a hook) take turns: spins for the lock (the holder is copying a buffer and may be
// waiting for the collector) and puts the cursor on `seg`'s ring the first time there is one.
void LockDeviceRing(const SegmentView* seg) {
  while (g_device_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  if (seg != nullptr && !g_device_cursor_ready) {
    g_device_cursor = DeviceRingOf(*seg);
    g_device_cursor_ready = true;
  }
}

void UnlockDeviceRing() { g_device_lock.clear(std::memory_order_release); }

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                              size_t valid_size) {
  const SegmentView* seg = g_segment.load(std::memory_order_acquire);
  LockDeviceRing(seg);
  CUpti_Activity* record = nullptr;
  uint64_t lost = 0;
  // One buffer may hold more records than the ring: wait (bounded) for the collector to make room.
  const int64_t deadline = static_cast<int64_t>(MonotonicNs()) + BackpressurePolicy{}.max_wait_ns;
  while (buffer != nullptr && g_fn.next_record(buffer, valid_size, &record) == CUPTI_SUCCESS &&
         record != nullptr) {
    ring::DeviceRecord out;
    const char* name = nullptr;
    if (!ConvertActivity(record, &out, &name)) continue;
    if (ring::IsUntimedWork(out)) g_untimed_records.fetch_add(1, std::memory_order_relaxed);
    if (!CaptureKeepsDeviceRecord(out)) continue;  // outside every capture range
    if (IsCallRecord(out) && CallBeganWhilePaused(out.start)) continue;
    if (seg == nullptr) {
      ++lost;
      continue;
    }
    WaitForRoom(g_device_cursor, g_backpressure, BackpressurePolicy{}, deadline);
    WriteDeviceRecord(seg, out, name);
  }
  UnlockDeviceRing();
  size_t dropped = 0;
  if (g_fn.dropped(context, stream_id, &dropped) == CUPTI_SUCCESS) lost += dropped;
  if (lost != 0) {
    if (seg != nullptr) {
      seg->header->cupti_dropped.fetch_add(lost, std::memory_order_relaxed);
    } else {
      g_lost_before_segment.fetch_add(lost, std::memory_order_relaxed);
    }
  }
  free(buffer);
}

void Fail(ring::HostOnlyReason reason, CUptiResult detail, const char* what) {
  g_status.active = false;
  g_status.reason = reason;
  g_status.detail = static_cast<int32_t>(detail);
  char code[24];
  FormatI64(detail, code, sizeof(code));
  if (reason == ring::HostOnlyReason::kCuptiBusy) {
    Warn("CUPTI is in use by another tool (", what,
         " -> CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); host-only timing");
  } else {
    Warn("CUPTI ", what, " failed (CUptiResult ", code, "); host-only timing");
  }
}

// CUPTI writes no RUNTIME record for the hooked launch functions (g_drop_launch_records). Again
// after every enabling of the RUNTIME kind, which undoes it (cupti_activity.h). A function CUPTI
// does not know keeps its records: the collector joins them as before.
void LeaveOutHookedLaunchRecords() {
  if (!g_drop_launch_records) return;
  for (CUpti_CallbackId id : kHookedLaunchRuntimeIds) g_fn.enable_runtime_api(id, 0);
}

// Subscribes brrr, puts CUPTI's timestamps on brrr's clock, registers the buffers, enables the
// activity kinds and the API callbacks (g_options.callbacks). On failure undoes what it did, names
// the failing call in *failed and returns its result. Setup, and attaching again after a detach.
// Returns whether API callbacks were enabled in *with_callbacks.
CUptiResult Attach(const char** failed, bool* with_callbacks = nullptr) {
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = g_fn.subscribe(&subscriber, &OnApiCallback, nullptr);
  if (r != CUPTI_SUCCESS) {
    *failed = "cuptiSubscribe";
    return r;
  }
  // The timestamp callback must be registered before any kind is enabled.
  if ((r = g_fn.register_timestamp(&MonotonicTimestamp)) != CUPTI_SUCCESS) {
    g_fn.unsubscribe(subscriber);
    *failed = "cuptiActivityRegisterTimestampCallback";
    return r;
  }
  // No latency timestamps (cuptiActivityEnableLatencyTimestamps): the report does not use a
  // kernel's queued/submitted times (launch latency is from the host call). What they cost a
  // launch is within the noise: +240 ns on an H200, +722 and +11 ns in two runs on an H100
  // (tools/gpu/workloads/cupti_cost.cu, brrr-set-lat against brrr-set, medians of 6 and 8 rounds).
  if ((r = g_fn.register_callbacks(&BufferRequested, &BufferCompleted)) != CUPTI_SUCCESS) {
    g_fn.unsubscribe(subscriber);
    *failed = "cuptiActivityRegisterCallbacks";
    return r;
  }
  for (CUpti_ActivityKind kind : kRequired) {
    if ((r = g_fn.enable(kind)) != CUPTI_SUCCESS) {
      for (CUpti_ActivityKind k : kRequired) g_fn.disable(k);
      g_fn.unsubscribe(subscriber);
      *failed = "cuptiActivityEnable";
      return r;
    }
  }
  EnableOptionalKinds();
  // Host records with stacks for calls the hooks cannot see. Without libunwind the callbacks
  // would give stacks that stop inside libcuda: then CUPTI's records alone count those calls.
  bool callbacks = false;
  if (g_options.callbacks != ApiCallbacks::kNone && LoadUnwinder()) {
    callbacks = EnableApiCallbacks(g_fn.enable_callback, subscriber,
                                   g_options.callbacks == ApiCallbacks::kDriverAndRuntime) > 0;
  }
  if (with_callbacks != nullptr) *with_callbacks = callbacks;
  // A hooked launch's id comes from the driver callback inside it: only with driver callbacks
  // and the hooks (a dynamic libcudart).
  g_drop_launch_records = !g_options.launch_records && callbacks &&
                          g_options.callbacks == ApiCallbacks::kDriver &&
                          g_fn.enable_runtime_api != nullptr;
  LeaveOutHookedLaunchRecords();
  g_subscriber = subscriber;
  return CUPTI_SUCCESS;
}

// Why the run is host-only after CUPTI refused brrr with `r`: another subscriber holds it, or an
// error.
ring::HostOnlyReason HostOnlyReasonFor(CUptiResult r) {
  return r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? ring::HostOnlyReason::kCuptiBusy
                                                             : ring::HostOnlyReason::kCuptiError;
}

void SetUp(const CuptiOptions& options) {
  void* lib = LoadCupti();
  if (lib == nullptr) {
    g_status.reason = ring::HostOnlyReason::kCuptiNotFound;
    Warn("libcupti not found (libcupti.so.13/.12); host-only timing");
    return;
  }
  const bool resolved =
      Resolve(lib, "cuptiSubscribe", &g_fn.subscribe) &&
      Resolve(lib, "cuptiUnsubscribe", &g_fn.unsubscribe) &&
      Resolve(lib, "cuptiActivityRegisterTimestampCallback", &g_fn.register_timestamp) &&
      Resolve(lib, "cuptiActivityRegisterCallbacks", &g_fn.register_callbacks) &&
      Resolve(lib, "cuptiActivityEnable", &g_fn.enable) &&
      Resolve(lib, "cuptiActivityDisable", &g_fn.disable) &&
      Resolve(lib, "cuptiActivityGetNextRecord", &g_fn.next_record) &&
      Resolve(lib, "cuptiActivityGetNumDroppedRecords", &g_fn.dropped) &&
      Resolve(lib, "cuptiActivityFlushAll", &g_fn.flush_all) &&
      Resolve(lib, "cuptiEnableCallback", &g_fn.enable_callback);
  if (!Resolve(lib, "cuptiFinalize", &g_fn.finalize)) g_fn.finalize = nullptr;
  if (!Resolve(lib, "cuptiActivityEnableRuntimeApi", &g_fn.enable_runtime_api)) {
    g_fn.enable_runtime_api = nullptr;
  }
  if (!resolved) {
    g_status.reason = ring::HostOnlyReason::kCuptiNotFound;
    Warn("libcupti lacks a needed function (too old?); host-only timing");
    return;
  }
  if (g_app_tool.load(std::memory_order_acquire)) {  // it asked first: leave CUPTI to it
    Fail(ring::HostOnlyReason::kCuptiBusy, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
         "a tool of the app's own");
    return;
  }
  g_options = options;
  const char* failed = "";
  bool with_callbacks = false;
  const CUptiResult r = Attach(&failed, &with_callbacks);
  if (r != CUPTI_SUCCESS) {
    Fail(HostOnlyReasonFor(r), r, failed);
    return;
  }
  // Detaching needs an API callback's exit to detach from, and must not cost the host view: with
  // runtime callbacks (no dynamic libcudart) every call comes through CUPTI, so it stays attached.
  g_detach_allowed = options.detach_when_off && g_fn.finalize != nullptr && with_callbacks &&
                     options.callbacks == ApiCallbacks::kDriver;
  g_status.active = true;
  g_status.reason = ring::HostOnlyReason::kNone;
  g_status.detail = 0;
}

void SetKinds(bool on) {
  for (CUpti_ActivityKind kind : kRequired) on ? g_fn.enable(kind) : g_fn.disable(kind);
  if (!on) {
    for (CUpti_ActivityKind kind : kOptional) g_fn.disable(kind);
    return;
  }
  EnableOptionalKinds();
  LeaveOutHookedLaunchRecords();
}

// The run is host-only from now on (brrr no longer holds CUPTI): the header says so and when.
void MarkHostOnlyFromNow(ring::HostOnlyReason reason) {
  g_status.active = false;
  g_status.reason = reason;
  g_status.detail = 0;
  if (const SegmentView* seg = g_segment.load(std::memory_order_acquire)) {
    ring::SegmentHeader* h = seg->header;
    h->cupti_handed_over_ns.store(MonotonicNs(), std::memory_order_relaxed);
    h->host_only_reason = static_cast<uint32_t>(reason);
    std::atomic_ref<uint32_t>(h->flags).fetch_or(ring::kFlagHostOnly, std::memory_order_release);
  }
}

}  // namespace

void CuptiSetupOnce(const CuptiOptions& options) {
  uint32_t expected = 0;
  if (!g_setup_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
  if (!options.enabled) {
    g_status.reason = ring::HostOnlyReason::kDisabledByUser;
  } else {
    SetUp(options);
  }
  g_setup_state.store(2, std::memory_order_release);
}

// After setup g_status, g_subscriber and g_attachment change only under g_yield_lock (a hand-over,
// a failed attach, a detach): their other readers (the control thread, the exit path) take it too.
namespace {
struct YieldLock {
  YieldLock() {
    while (g_yield_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~YieldLock() { g_yield_lock.clear(std::memory_order_release); }
};
}  // namespace

CuptiStatus CuptiCurrentStatus() {
  if (g_setup_state.load(std::memory_order_acquire) != 2) return CuptiStatus{};
  YieldLock lock;
  return g_status;
}

void CuptiAttachSegment(const SegmentView* segment) {
  g_segment.store(segment, std::memory_order_release);
  const uint64_t lost = g_lost_before_segment.exchange(0, std::memory_order_relaxed);
  if (lost != 0) segment->header->cupti_dropped.fetch_add(lost, std::memory_order_relaxed);
}

bool AppendOwnDeviceRecord(const ring::DeviceRecord& record) {
  const SegmentView* seg = g_segment.load(std::memory_order_acquire);
  if (seg == nullptr) return false;
  LockDeviceRing(seg);
  // Checked first so that a full ring counts the sample as the counters' loss, not as a lost
  // CUPTI record (the ring's own `dropped`).
  const bool stored = HasRoom(g_device_cursor) && AppendRecord(g_device_cursor, record);
  UnlockDeviceRing();
  return stored;
}

void CuptiYieldToAppTool() {
  g_app_tool.store(true, std::memory_order_release);
  // Wait for a setup in progress (it sees g_app_tool, or finishes and is yielded below).
  while (g_setup_state.load(std::memory_order_acquire) == 1) sched_yield();
  YieldLock lock;
  if (g_setup_state.load(std::memory_order_acquire) == 2 && g_status.active) {
    // Detached, brrr holds nothing in CUPTI (and must not call it): the tool finds it free.
    if (g_attachment.load(std::memory_order_acquire) != Attachment::kDetached) {
      g_fn.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // brrr's buffers reach brrr's callback
      SetKinds(false);
      g_fn.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      g_fn.register_timestamp(nullptr);  // CUPTI's own clock again for the tool (may be refused)
      g_fn.unsubscribe(g_subscriber);
      g_subscriber = nullptr;
    }
    g_attachment.store(Attachment::kAttached, std::memory_order_release);  // nothing pending
    MarkHostOnlyFromNow(ring::HostOnlyReason::kHandedOver);
    Warn("the app's own profiler asked for CUPTI: brrr handed it over and records host calls only "
         "from now on");
  }
}

void CuptiFlushAtExit() {
  if (g_setup_state.load(std::memory_order_acquire) != 2) return;
  YieldLock lock;
  if (!g_status.active || g_attachment.load(std::memory_order_acquire) == Attachment::kDetached) {
    return;
  }
  g_fn.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

bool CuptiFlushPeriodic() {
  if (g_setup_state.load(std::memory_order_acquire) != 2) return false;
  YieldLock lock;
  if (!g_status.active) return false;
  // Detached, CUPTI holds no buffer: there is nothing to flush, and no flush is counted.
  if (g_attachment.load(std::memory_order_acquire) == Attachment::kDetached) return false;
  return g_fn.flush_all(0) == CUPTI_SUCCESS;
}

void CuptiSetActivity(bool on, uint64_t detach_not_before_ns) {
  if (g_setup_state.load(std::memory_order_acquire) != 2) return;
  YieldLock lock;
  if (!g_status.active) return;
  const Attachment now = g_attachment.load(std::memory_order_acquire);
  if (!on) {
    if (now != Attachment::kAttached) return;
    SetKinds(false);
    if (g_detach_allowed && detach_not_before_ns != 0) {
      g_detach_not_before.store(detach_not_before_ns, std::memory_order_relaxed);
      g_attachment.store(Attachment::kDetachPending, std::memory_order_release);
    }
    return;
  }
  if (now == Attachment::kDetached) {
    if (g_app_tool.load(std::memory_order_acquire)) return;  // handed over meanwhile
    const char* failed = "";
    const uint64_t t0 = MonotonicNs();
    const CUptiResult r = Attach(&failed);
    if (const SegmentView* seg = g_segment.load(std::memory_order_acquire)) {
      seg->header->cupti_attach_ns.fetch_add(MonotonicNs() - t0, std::memory_order_relaxed);
    }
    if (r != CUPTI_SUCCESS) {
      char code[24];
      FormatI64(r, code, sizeof(code));
      Warn("CUPTI ", failed, " failed when attaching it again (CUptiResult ", code,
           "); host-only timing from now on");
      MarkHostOnlyFromNow(HostOnlyReasonFor(r));
      return;
    }
  } else {
    SetKinds(true);
  }
  g_attachment.store(Attachment::kAttached, std::memory_order_release);
}

uint64_t CuptiPrepareDetach(uint64_t now_ns, DetachFlush* flush) {
  if (g_attachment.load(std::memory_order_acquire) != Attachment::kDetachPending) return UINT64_MAX;
  YieldLock lock;
  if (g_attachment.load(std::memory_order_acquire) != Attachment::kDetachPending) return UINT64_MAX;
  const uint64_t at = g_detach_not_before.load(std::memory_order_relaxed);
  if (now_ns < at) return at;
  // What the window's work recorded reaches the ring now, on this thread, before the detach drops
  // CUPTI's buffers (NVIDIA's detach sample flushes first too). Work still queued comes back
  // without timestamps: counted for the caller.
  if (g_status.active) {
    const uint64_t untimed_before = g_untimed_records.load(std::memory_order_relaxed);
    g_fn.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (flush != nullptr) {
      flush->done = true;
      flush->untimed = g_untimed_records.load(std::memory_order_relaxed) - untimed_before;
    }
  }
  g_attachment.store(Attachment::kDetachReady, std::memory_order_release);
  return UINT64_MAX;
}

uint64_t CuptiTakeLastDetachNs() { return g_last_detach_ns.exchange(0, std::memory_order_relaxed); }

bool CuptiDetachesWhenOff() {
  if (g_setup_state.load(std::memory_order_acquire) != 2) return false;
  YieldLock lock;
  return g_status.active && g_detach_allowed;
}

void CuptiDetachIfPending() {
  if (g_attachment.load(std::memory_order_relaxed) != Attachment::kDetachReady) return;
  // Never wait on an app thread: if the control thread holds the lock, a later callback detaches.
  if (g_yield_lock.test_and_set(std::memory_order_acquire)) return;
  if (g_attachment.load(std::memory_order_acquire) == Attachment::kDetachReady && g_status.active) {
    const uint64_t t0 = MonotonicNs();
    const CUptiResult r = g_fn.finalize();
    const uint64_t took = MonotonicNs() - t0;
    const SegmentView* seg = g_segment.load(std::memory_order_acquire);
    if (seg != nullptr) seg->header->cupti_detach_ns.fetch_add(took, std::memory_order_relaxed);
    if (r == CUPTI_SUCCESS) {
      g_last_detach_ns.store(took > 0 ? took : 1, std::memory_order_relaxed);
      g_subscriber = nullptr;
      g_attachment.store(Attachment::kDetached, std::memory_order_release);
      if (seg != nullptr) seg->header->cupti_detaches.fetch_add(1, std::memory_order_relaxed);
    } else {  // stays attached with its kinds off, and is not asked again
      g_detach_allowed = false;
      g_attachment.store(Attachment::kAttached, std::memory_order_release);
    }
  }
  g_yield_lock.clear(std::memory_order_release);
}

}  // namespace brrr::shim
