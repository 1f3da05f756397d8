// ActivityRecorder: the simulated CUPTI activity layer. It is the engine's ActivitySink: it turns
// engine events of enabled kinds into real CUPTI records (timestamps on the client clock) and
// writes them into client buffers. It keeps which kinds are enabled, the latency-timestamp switch
// and the client clock. It never calls back into the engine and never registers itself: the
// exported C API (cupti_instance) does that. Plain C++ so tests can drive it without the engine.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_RECORDER_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_RECORDER_H_

#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "activity_buffers.h"
#include "client_clock.h"
#include "in_flight_work.h"
#include "simcuda/activity_sink.h"

namespace simcuda::cupti {

// Thread-safe: sink methods run concurrently on device and host threads, configuration calls on
// any thread.
class ActivityRecorder final : public ActivitySink {
 public:
  ActivityRecorder() = default;
  ActivityRecorder(const ActivityRecorder&) = delete;
  ActivityRecorder& operator=(const ActivityRecorder&) = delete;
  ~ActivityRecorder() = default;

  // True for the kinds this simulation produces: KERNEL, CONCURRENT_KERNEL, MEMCPY, MEMSET,
  // SYNCHRONIZATION, RUNTIME, DRIVER, EXTERNAL_CORRELATION.
  static bool IsSimulatedKind(CUpti_ActivityKind kind);

  // CUPTI_ERROR_INVALID_KIND for a value that is no activity kind, CUPTI_ERROR_NOT_COMPATIBLE for
  // a real kind the simulation does not produce.
  CUptiResult Enable(CUpti_ActivityKind kind);
  // CUPTI_ERROR_INVALID_KIND for a value that is no activity kind; otherwise success.
  CUptiResult Disable(CUpti_ActivityKind kind);
  void DisableAll();
  bool IsEnabled(CUpti_ActivityKind kind) const;
  bool AnyEnabled() const;
  // Device work (kernels, copies, memsets) is traced when its kind was on when the host enqueued
  // it, not when it runs: real CUPTI decides at launch, and a kernel still running when its kind
  // goes off is still delivered (pytorch/pytorch#195844 describes a forced flush handing one back
  // unfinished). The latest kOnPeriods on-periods of each kind are remembered (a device far
  // behind its host runs kernels queued several windows of sampled tracing ago), but not across a
  // cuptiFinalize (ForgetInFlight); queued_ns 0 (unknown): on now.
  bool WasEnabledAt(CUpti_ActivityKind kind, uint64_t queued_ns) const;

  // cuptiActivityEnableRuntimeApi / cuptiActivityEnableDriverApi: records of one function on or
  // off whatever its kind says, until the kind is next enabled or disabled (which, as in real
  // CUPTI, overrides these). CUPTI_ERROR_INVALID_PARAMETER for a cbid out of the simulated range.
  CUptiResult EnableApi(bool runtime, uint32_t cbid, bool enable);
  // Whether a call of this domain and cbid gets an API record now.
  bool ApiRecorded(bool runtime, uint32_t cbid) const;

  // Kernel queued/submitted are recorded only while on (default off).
  void EnableLatencyTimestamps(bool on) {
    latency_timestamps_.store(on, std::memory_order_relaxed);
  }

  // Only while no kind is enabled: CUPTI_ERROR_NOT_COMPATIBLE otherwise,
  // CUPTI_ERROR_INVALID_PARAMETER for null.
  CUptiResult RegisterTimestampCallback(ClientClock::Callback callback);
  void ResetTimestampCallback() { clock_.SetCallback(nullptr); }

  const ClientClock& clock() const { return clock_; }
  ActivityBuffers& buffers() { return buffers_; }

  // A forced flush (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)): the records of work
  // queued while its kind was on and not completed yet are written now, with no timestamps, and
  // not again when it completes (in_flight_work.h says why). Then the buffers are flushed.
  void HandBackInFlight();
  // cuptiFinalize: work queued before it never has a record, even if CUPTI is attached again by the
  // time it completes (cuptiFinalize drops what was not delivered).
  void ForgetInFlight();
  size_t InFlightForTest() const { return in_flight_.SizeForTest(); }

  // ActivitySink.
  void OnApiExit(const ApiEvent& e) override;
  void OnKernel(const KernelEvent& e) override;
  void OnMemcpy(const MemcpyEvent& e) override;
  void OnMemset(const MemsetEvent& e) override;
  void OnSynchronization(const SynchronizationEvent& e) override;
  void OnKernelQueued(const KernelEvent& e) override;
  void OnMemcpyQueued(const MemcpyEvent& e) override;
  void OnMemsetQueued(const MemsetEvent& e) override;

 private:
  static uint64_t Bit(CUpti_ActivityKind kind) { return uint64_t{1} << kind; }

  template <typename Record>
  void Write(const Record& record) {
    buffers_.Append(&record, sizeof(record));
  }

  std::atomic<uint64_t> enabled_mask_{0};  // bit per simulated kind (all < 64)
  // The kernel kind went on: the next API call pays SIMCUDA_CUPTI_KERNEL_ENABLE_NS once.
  std::atomic<bool> kernel_enable_cost_due_{false};
  // Per kind, CLOCK_MONOTONIC ns of the latest enable (0: never) and of the disable after it.
  static constexpr uint32_t kOnPeriods = 256;
  struct OnPeriods {
    uint64_t on[kOnPeriods] = {};
    uint64_t off[kOnPeriods] = {};  // 0: still on
    uint32_t next = 0;
    uint32_t count = 0;
  };
  void NoteOn(int kind, uint64_t now);
  void NoteOff(int kind, uint64_t now);
  mutable std::mutex periods_mu_;  // the engine's thread reads what Enable/Disable write
  OnPeriods periods_[64];
  // Per-function overrides of the RUNTIME and DRIVER kinds: 0 none, 1 on, 2 off.
  static constexpr uint32_t kApiOverrides = 1024;
  enum : uint8_t { kNoOverride = 0, kOverrideOn = 1, kOverrideOff = 2 };
  void ClearApiOverrides(CUpti_ActivityKind kind);
  std::atomic<uint8_t> api_override_[2][kApiOverrides] = {};  // [runtime ? 0 : 1][cbid]
  std::atomic<bool> latency_timestamps_{false};
  std::atomic<uint64_t> forgotten_before_ns_{0};  // the last ForgetInFlight (engine time)
  std::atomic<int64_t> next_grid_id_{1};
  ClientClock clock_;
  ActivityBuffers buffers_;
  InFlightWork in_flight_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_RECORDER_H_
