// See capture_gate.h. Range boundaries are rare: plain atomics, no lock. Two threads opening and
// closing ranges of the capture name at the same moment may count one range twice or leave a
// short gap; a single thread's ranges are exact.
#include "shim/capture_gate.h"

#include <cuda_runtime_api.h>

#include "shim/capture_filter.h"
#include "shim/clock.h"
#include "shim/hook_table.h"
#include "shim/real_functions.h"
#include "shim/shim_runtime.h"

namespace brrr::shim {

std::atomic<uint32_t> g_capture_gate{kGateOpen};

namespace {

ring::CaptureMode g_mode = ring::CaptureMode::kAll;
CaptureRange g_range;
ring::SegmentHeader* g_header = nullptr;
uint32_t g_name_id = 0;  // the capture name's NameSlot id (nvtx mode)
std::atomic<uint64_t> g_opened_at_ns{0};
std::atomic<int32_t> g_nvtx_open{0};  // open ranges of the capture name, all threads
CaptureFilter g_filter;               // CUPTI buffer thread only (device-ring lock)

// This thread's push/pop ranges of the capture name: bit L set when the push at level L matched.
constinit thread_local uint64_t t_matching_levels __attribute__((tls_model("initial-exec"))) = 0;

// Start/end ranges of the capture name still open (ids; 0 = free slot).
constexpr int kOpenStartRanges = 64;
std::atomic<uint64_t> g_open_start_ranges[kOpenStartRanges];

// Replaces the capture state (the low bits), keeping kGatePaused; returns the previous state.
uint32_t SetCaptureState(uint32_t to) {
  uint32_t v = g_capture_gate.load(std::memory_order_relaxed);
  while (!g_capture_gate.compare_exchange_weak(v, (v & kGatePaused) | to,
                                               std::memory_order_relaxed)) {
  }
  return v & ~uint32_t{kGatePaused};
}

// Replaces the capture state `from` by `to` (keeping kGatePaused); false when it was not `from`.
bool ReplaceCaptureState(uint32_t from, uint32_t to) {
  uint32_t v = g_capture_gate.load(std::memory_order_relaxed);
  do {
    if ((v & ~uint32_t{kGatePaused}) != from) return false;
  } while (!g_capture_gate.compare_exchange_weak(v, (v & kGatePaused) | to,
                                                 std::memory_order_relaxed));
  return true;
}

void Open() {
  g_opened_at_ns.store(MonotonicNs(), std::memory_order_relaxed);
  if (g_header != nullptr) g_header->capture_ranges.fetch_add(1, std::memory_order_relaxed);
}

void AddOpenTime() {
  const uint64_t opened = g_opened_at_ns.exchange(0, std::memory_order_relaxed);
  if (opened != 0 && g_header != nullptr) {
    g_header->capture_ns.fetch_add(MonotonicNs() - opened, std::memory_order_relaxed);
  }
}

// Calls the real cudaProfilerStart/Stop so that CUPTI's record stream carries the boundary.
// False when the runtime is not loaded (yet).
bool IssueMarker(bool start) {
  using Fn = cudaError_t (*)();
  const Fn real = reinterpret_cast<Fn>(
      RealFunction(start ? HookId::k_cudaProfilerStart : HookId::k_cudaProfilerStop));
  if (real == nullptr) return false;
  ThreadState& ts = t_thread;
  const uint8_t saved = ts.in_hook;
  ts.in_hook = 1;  // the marker call itself is not recorded
  real();
  ts.in_hook = saved;
  return true;
}

void NvtxOpened() {
  if (g_nvtx_open.fetch_add(1, std::memory_order_acq_rel) != 0) return;
  Open();
  SetCaptureState(IssueMarker(true) ? kGateOpen : kGateMarkerPending);
}

void NvtxClosed() {
  if (g_nvtx_open.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const bool marker_pending = SetCaptureState(kGateClosed) == kGateMarkerPending;
  AddOpenTime();
  if (!marker_pending) IssueMarker(false);
}

}  // namespace

bool CaptureGateSlow() {
  if (g_capture_gate.load(std::memory_order_relaxed) != kGateMarkerPending) return false;
  if (!IssueMarker(true)) return false;
  ReplaceCaptureState(kGateMarkerPending, kGateOpen);
  return true;
}

void CaptureConfigure(const ShimConfig& config) {
  g_range = config.capture;
  g_mode = config.capture.mode;
  if (g_mode != ring::CaptureMode::kAll) SetCaptureState(kGateClosed);
}

void GatePause() { g_capture_gate.fetch_or(kGatePaused, std::memory_order_relaxed); }
void GateResume() { g_capture_gate.fetch_and(~uint32_t{kGatePaused}, std::memory_order_relaxed); }
bool GatePaused() {
  return (g_capture_gate.load(std::memory_order_relaxed) & kGatePaused) != 0;
}

void CaptureAttach(ring::SegmentHeader* header, uint32_t name_id) {
  g_header = header;
  g_name_id = name_id;
  header->capture_mode = static_cast<uint32_t>(g_mode);
  uint32_t n = 0;
  if (g_range.nvtx_name != nullptr) {
    n = g_range.nvtx_name_length < sizeof(header->capture_name) ? g_range.nvtx_name_length
                                                                : sizeof(header->capture_name);
    for (uint32_t i = 0; i < n; ++i) header->capture_name[i] = g_range.nvtx_name[i];
  }
  header->capture_name_length = n;
}

void CaptureFinish() {
  if (g_mode != ring::CaptureMode::kAll) AddOpenTime();
}

ring::CaptureMode CaptureModeNow() { return g_mode; }
uint32_t CaptureNameId() { return g_name_id; }

void CaptureOpenFromProfilerApi() {
  if (ReplaceCaptureState(kGateClosed, kGateOpen)) Open();
}

void CaptureCloseFromProfilerApi() {
  if (ReplaceCaptureState(kGateOpen, kGateClosed)) AddOpenTime();
}

void CaptureNvtxPush(int level, uint32_t name_id) {
  if (g_mode != ring::CaptureMode::kNvtx || level < 0 || level >= 64) return;
  const uint64_t bit = uint64_t{1} << level;
  if (name_id == 0 || name_id != g_name_id) {
    t_matching_levels &= ~bit;
    return;
  }
  t_matching_levels |= bit;
  NvtxOpened();
}

void CaptureNvtxPop(int level) {
  if (g_mode != ring::CaptureMode::kNvtx || level < 0 || level >= 64) return;
  const uint64_t bit = uint64_t{1} << level;
  if ((t_matching_levels & bit) == 0) return;
  t_matching_levels &= ~bit;
  NvtxClosed();
}

void CaptureNvtxStart(uint64_t range_id, uint32_t name_id) {
  if (g_mode != ring::CaptureMode::kNvtx || name_id == 0 || name_id != g_name_id) return;
  for (auto& slot : g_open_start_ranges) {
    uint64_t expected = 0;
    if (slot.compare_exchange_strong(expected, range_id, std::memory_order_acq_rel)) {
      NvtxOpened();
      return;
    }
  }
  // More than kOpenStartRanges open at once: this one is not tracked (it neither opens nor closes).
}

void CaptureNvtxEnd(uint64_t range_id) {
  if (g_mode != ring::CaptureMode::kNvtx || range_id == 0) return;
  for (auto& slot : g_open_start_ranges) {
    uint64_t expected = range_id;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
      NvtxClosed();
      return;
    }
  }
}

bool CaptureKeepsDeviceRecord(const ring::DeviceRecord& r) {
  if (g_mode == ring::CaptureMode::kAll) return true;
  if (g_filter.Keep(r)) return true;
  if (g_header != nullptr && !CaptureFilter::IsStartMarker(r) && !CaptureFilter::IsStopMarker(r)) {
    g_header->capture_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  return false;
}

}  // namespace brrr::shim
