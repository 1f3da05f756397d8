// The capture gate: whether hooks record now (BRRR_CAPTURE_RANGE). Without a capture range it is
// always open. In cudaProfilerApi mode the cudaProfilerStart/Stop hooks open and close it; in nvtx
// mode the NVTX hooks do, for ranges whose message is the configured name (nesting and several
// threads counted: open while any such range is open). Outside, hooks only forward the call. The
// CUPTI side (device records of calls made outside) is decided by CaptureFilter from the
// cudaProfilerStart/Stop API records: in nvtx mode the gate calls the real cudaProfilerStart/Stop
// itself at each opening and closing (at the next hooked call when the runtime was not loaded yet).
//
// Hot path: CaptureGateOpen() is one relaxed load and compare. Must never (hot path): allocate,
// lock, block or make a syscall; everything else here runs once per range boundary.
#ifndef BRRR_SHIM_CAPTURE_GATE_H_
#define BRRR_SHIM_CAPTURE_GATE_H_

#include <atomic>
#include <cstdint>

#include "shim/capture_range.h"
#include "shim/ring_format.h"
#include "shim/shim_config.h"

namespace brrr::shim {

// The low bits hold the capture state; kGatePaused is or'ed in while the run is paused
// (`brrr ctl PID pause`, BRRR_START=paused): then the gate is not open whatever the range.
enum : uint32_t { kGateOpen = 0, kGateClosed = 1, kGateMarkerPending = 2, kGatePaused = 4 };
extern std::atomic<uint32_t> g_capture_gate;

inline bool CaptureGateOpen() {
  return g_capture_gate.load(std::memory_order_relaxed) == kGateOpen;
}
// The gate is not simply open: true when this call may record after all (a pending NVTX-mode
// marker was issued now).
bool CaptureGateSlow();

// One load: closed and paused calls (the common case outside a range) never leave the hook.
inline bool CaptureMayRecord() {
  const uint32_t gate = g_capture_gate.load(std::memory_order_relaxed);
  return gate == kGateOpen || (gate == kGateMarkerPending && CaptureGateSlow());
}

// After the real call of a hook that found the gate open: true when a pause came meanwhile (a
// pause turns CUPTI off right after setting kGatePaused; a resume turns it on before clearing it).
// The call is then not recorded: its device work may have reached the driver after CUPTI went
// off, and a recorded call must never lack its device record. One load.
inline bool PausedDuringCall() {
  return (g_capture_gate.load(std::memory_order_acquire) & kGatePaused) != 0;
}

// From the configuration, before any hook can record (closes the gate in a capture mode).
void CaptureConfigure(const ShimConfig& config);
// Once the segment exists: mode and name into the header, the name's id for NVTX matching.
void CaptureAttach(ring::SegmentHeader* header, uint32_t name_id);
// At exit: the open range's time counts up to now.
void CaptureFinish();

// Pause / resume (control thread; BRRR_START=paused at configuration): sets or clears
// kGatePaused, keeping the capture state.
void GatePause();
void GateResume();
bool GatePaused();

ring::CaptureMode CaptureModeNow();
uint32_t CaptureNameId();

// cudaProfilerApi mode: the hooks of cudaProfilerStart/Stop (after / before the real call).
void CaptureOpenFromProfilerApi();
void CaptureCloseFromProfilerApi();

// nvtx mode: the NVTX hooks, with the message's name id (0 = none) and the nesting level the push
// returned / the pop returned.
void CaptureNvtxPush(int level, uint32_t name_id);
void CaptureNvtxPop(int level);
void CaptureNvtxStart(uint64_t range_id, uint32_t name_id);
void CaptureNvtxEnd(uint64_t range_id);

// Device records (CUPTI buffer thread, under the device-ring lock): false when `r` is outside
// every range (counted in capture_dropped) or is a marker.
bool CaptureKeepsDeviceRecord(const ring::DeviceRecord& r);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CAPTURE_GATE_H_
