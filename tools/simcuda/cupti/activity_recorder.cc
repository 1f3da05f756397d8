// ActivityRecorder: enable state, and the sink methods that build records and append them.
// Never calls into the engine; never blocks on a client's bufferCompleted.
#include "activity_recorder.h"

#include <time.h>

#include "cost_from_env.h"
#include "external_correlation.h"
#include "record_builders.h"

namespace simcuda::cupti {

static_assert(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION < 64, "enabled_mask_ holds one bit a kind");

bool ActivityRecorder::IsSimulatedKind(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return true;
    default:
      return false;
  }
}

namespace {

bool IsActivityKind(CUpti_ActivityKind kind) {
  return kind > CUPTI_ACTIVITY_KIND_INVALID && kind < CUPTI_ACTIVITY_KIND_COUNT;
}

}  // namespace

CUptiResult ActivityRecorder::Enable(CUpti_ActivityKind kind) {
  if (!IsActivityKind(kind)) return CUPTI_ERROR_INVALID_KIND;
  if (!IsSimulatedKind(kind)) return CUPTI_ERROR_NOT_COMPATIBLE;
  ClearApiOverrides(kind);
  if (!IsEnabled(kind)) {
    NoteOn(kind, MonotonicNowNs());
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      kernel_enable_cost_due_.store(true, std::memory_order_relaxed);
    }
  }
  enabled_mask_.fetch_or(Bit(kind), std::memory_order_acq_rel);
  return CUPTI_SUCCESS;
}

CUptiResult ActivityRecorder::Disable(CUpti_ActivityKind kind) {
  if (!IsActivityKind(kind)) return CUPTI_ERROR_INVALID_KIND;
  ClearApiOverrides(kind);
  if (IsSimulatedKind(kind) && IsEnabled(kind)) {
    NoteOff(kind, MonotonicNowNs());
    enabled_mask_.fetch_and(~Bit(kind), std::memory_order_acq_rel);
  }
  return CUPTI_SUCCESS;
}

void ActivityRecorder::DisableAll() {
  const uint64_t was = enabled_mask_.exchange(0, std::memory_order_acq_rel);
  const uint64_t now = MonotonicNowNs();
  for (int kind = 0; kind < 64; ++kind) {
    if ((was & (uint64_t{1} << kind)) != 0) {
      NoteOff(kind, now);
    }
  }
}

void ActivityRecorder::ClearApiOverrides(CUpti_ActivityKind kind) {
  if (kind != CUPTI_ACTIVITY_KIND_RUNTIME && kind != CUPTI_ACTIVITY_KIND_DRIVER) return;
  for (auto& o : api_override_[kind == CUPTI_ACTIVITY_KIND_RUNTIME ? 0 : 1]) {
    o.store(kNoOverride, std::memory_order_relaxed);
  }
}

CUptiResult ActivityRecorder::EnableApi(bool runtime, uint32_t cbid, bool enable) {
  if (cbid >= kApiOverrides) return CUPTI_ERROR_INVALID_PARAMETER;
  api_override_[runtime ? 0 : 1][cbid].store(enable ? kOverrideOn : kOverrideOff,
                                             std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

bool ActivityRecorder::ApiRecorded(bool runtime, uint32_t cbid) const {
  const uint8_t o = cbid < kApiOverrides
                        ? api_override_[runtime ? 0 : 1][cbid].load(std::memory_order_relaxed)
                        : kNoOverride;
  if (o != kNoOverride) return o == kOverrideOn;
  return IsEnabled(runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER);
}

bool ActivityRecorder::IsEnabled(CUpti_ActivityKind kind) const {
  return IsSimulatedKind(kind) && (enabled_mask_.load(std::memory_order_acquire) & Bit(kind)) != 0;
}

void ActivityRecorder::NoteOn(int kind, uint64_t now) {
  std::lock_guard<std::mutex> lock(periods_mu_);
  OnPeriods& p = periods_[kind];
  p.on[p.next] = now;
  p.off[p.next] = 0;
  p.next = (p.next + 1) % kOnPeriods;
  if (p.count < kOnPeriods) ++p.count;
}

void ActivityRecorder::NoteOff(int kind, uint64_t now) {
  std::lock_guard<std::mutex> lock(periods_mu_);
  OnPeriods& p = periods_[kind];
  if (p.count == 0) return;
  const uint32_t last = (p.next + kOnPeriods - 1) % kOnPeriods;
  if (p.off[last] == 0) p.off[last] = now;
}

void ActivityRecorder::ForgetInFlight() {
  forgotten_before_ns_.store(MonotonicNowNs(), std::memory_order_relaxed);
  in_flight_.Clear();
}

bool ActivityRecorder::WasEnabledAt(CUpti_ActivityKind kind, uint64_t queued_ns) const {
  if (queued_ns == 0) return IsEnabled(kind);
  if (queued_ns < forgotten_before_ns_.load(std::memory_order_relaxed)) return false;
  if (!IsSimulatedKind(kind)) return false;
  std::lock_guard<std::mutex> lock(periods_mu_);
  const OnPeriods& p = periods_[kind];
  for (uint32_t i = 1; i <= p.count; ++i) {
    const uint32_t k = (p.next + kOnPeriods - i) % kOnPeriods;
    if (queued_ns >= p.on[k] && (p.off[k] == 0 || queued_ns < p.off[k])) return true;
    if (queued_ns >= p.on[k]) return false;  // after this period's end, before the next's start
  }
  return false;
}

bool ActivityRecorder::AnyEnabled() const {
  return enabled_mask_.load(std::memory_order_acquire) != 0;
}

CUptiResult ActivityRecorder::RegisterTimestampCallback(ClientClock::Callback callback) {
  if (callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (AnyEnabled()) return CUPTI_ERROR_NOT_COMPATIBLE;
  clock_.SetCallback(callback);
  return CUPTI_SUCCESS;
}

namespace {

// SIMCUDA_CUPTI_CALL_NS=N: every API call made while kernel activity is on burns N ns more of its
// caller's CPU, as real CUPTI adds its per-call cost while tracing (DESIGN.md fact 18): the cost
// that sampled tracing and an overhead budget save. Read once; 0 when unset.
uint64_t TracingCallCostNs() {
  static const uint64_t ns = CostNsFromEnv("SIMCUDA_CUPTI_CALL_NS");
  return ns;
}

// SIMCUDA_CUPTI_ATTACHED_NS=N: every API call made while CUPTI is attached (from the first enabled
// activity kind until cuptiFinalize), kinds on or off, burns N ns more: real CUPTI's floor, which
// only a detach removes (measured on an H100, tools/gpu/sampling_diag.sh: about 450 ns per empty
// launch with brrr's kinds off but attached, under 80 ns after cuptiFinalize). 0 when unset.
uint64_t AttachedCallCostNs() {
  static const uint64_t ns = CostNsFromEnv("SIMCUDA_CUPTI_ATTACHED_NS");
  return ns;
}

// SIMCUDA_CUPTI_KERNEL_ENABLE_NS=N: the first API call after kernel activity went on burns N ns
// once, as on an H200 the first launch after cuptiActivityEnable(CONCURRENT_KERNEL) took 5.6-5.9 ms
// (tools/gpu/workloads/attach_probe.cu; the other kinds cost it nothing). 0 when unset.
uint64_t KernelEnableCostNs() {
  static const uint64_t ns = CostNsFromEnv("SIMCUDA_CUPTI_KERNEL_ENABLE_NS");
  return ns;
}

void BurnCpu(uint64_t ns) {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  const uint64_t deadline = static_cast<uint64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec + ns;
  do {
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (static_cast<uint64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec < deadline);
}

}  // namespace

void ActivityRecorder::OnApiExit(const ApiEvent& e) {
  // Called only while the recorder is the engine's activity sink: while CUPTI is attached.
  if (const uint64_t floor = AttachedCallCostNs(); floor > 0) BurnCpu(floor);
  if (const uint64_t once = KernelEnableCostNs();
      once > 0 && kernel_enable_cost_due_.load(std::memory_order_relaxed) &&
      kernel_enable_cost_due_.exchange(false, std::memory_order_relaxed)) {
    BurnCpu(once);
  }
  if (const uint64_t cost = TracingCallCostNs();
      cost > 0 && (IsEnabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ||
                   IsEnabled(CUPTI_ACTIVITY_KIND_KERNEL))) {
    BurnCpu(cost);
  }
  const CUpti_ActivityKind api_kind =
      e.domain == ApiDomain::kRuntime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  // Like real CUPTI, external correlation records precede the API record they annotate.
  if (IsEnabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
    const ExternalCorrelationTops tops = CurrentExternalCorrelationTops();
    for (size_t i = 0; i < tops.count; ++i) {
      Write(MakeExternalCorrelationRecord(tops.entries[i].kind, tops.entries[i].id,
                                          e.correlation_id));
    }
  }
  if (ApiRecorded(api_kind == CUPTI_ACTIVITY_KIND_RUNTIME, e.cbid)) {
    Write(MakeApiRecord(e, clock_.OffsetFromEngine()));
  }
}

void ActivityRecorder::OnKernel(const KernelEvent& e) {
  if (!in_flight_.Completed(e.work_id)) return;  // handed back by a forced flush already
  // One record a kernel; CONCURRENT_KERNEL wins when both kernel kinds are enabled.
  CUpti_ActivityKind kind;
  if (WasEnabledAt(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, e.queued_ns)) {
    kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  } else if (WasEnabledAt(CUPTI_ACTIVITY_KIND_KERNEL, e.queued_ns)) {
    kind = CUPTI_ACTIVITY_KIND_KERNEL;
  } else {
    return;
  }
  const int64_t grid_id = next_grid_id_.fetch_add(1, std::memory_order_relaxed);
  Write(MakeKernelRecord(e, kind, clock_.OffsetFromEngine(),
                         latency_timestamps_.load(std::memory_order_relaxed), grid_id));
}

void ActivityRecorder::OnMemcpy(const MemcpyEvent& e) {
  if (!in_flight_.Completed(e.work_id)) return;
  if (!WasEnabledAt(CUPTI_ACTIVITY_KIND_MEMCPY, e.queued_ns)) return;
  Write(MakeMemcpyRecord(e, clock_.OffsetFromEngine()));
}

void ActivityRecorder::OnMemset(const MemsetEvent& e) {
  if (!in_flight_.Completed(e.work_id)) return;
  if (!WasEnabledAt(CUPTI_ACTIVITY_KIND_MEMSET, e.queued_ns)) return;
  Write(MakeMemsetRecord(e, clock_.OffsetFromEngine()));
}

void ActivityRecorder::OnSynchronization(const SynchronizationEvent& e) {
  if (!IsEnabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) return;
  Write(MakeSynchronizationRecord(e, clock_.OffsetFromEngine()));
}

void ActivityRecorder::OnKernelQueued(const KernelEvent& e) {
  InFlightWork::Work work;
  if (IsEnabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    work.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;  // as OnKernel chooses
  } else if (IsEnabled(CUPTI_ACTIVITY_KIND_KERNEL)) {
    work.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  } else {
    return;
  }
  work.kernel = e;
  in_flight_.Queued(e.work_id, work);
}

void ActivityRecorder::OnMemcpyQueued(const MemcpyEvent& e) {
  if (!IsEnabled(CUPTI_ACTIVITY_KIND_MEMCPY)) return;
  InFlightWork::Work work;
  work.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  work.memcpy = e;
  in_flight_.Queued(e.work_id, work);
}

void ActivityRecorder::OnMemsetQueued(const MemsetEvent& e) {
  if (!IsEnabled(CUPTI_ACTIVITY_KIND_MEMSET)) return;
  InFlightWork::Work work;
  work.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  work.memset = e;
  in_flight_.Queued(e.work_id, work);
}

void ActivityRecorder::HandBackInFlight() {
  const ClockOffset clock = clock_.OffsetFromEngine();  // maps the zero times to zero
  for (const InFlightWork::Work& w : in_flight_.HandBack()) {
    switch (w.kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        Write(MakeKernelRecord(w.kernel, w.kind, clock, /*latency_timestamps=*/false,
                               next_grid_id_.fetch_add(1, std::memory_order_relaxed)));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        Write(MakeMemcpyRecord(w.memcpy, clock));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        Write(MakeMemsetRecord(w.memset, clock));
        break;
      default:
        break;
    }
  }
}

}  // namespace simcuda::cupti
