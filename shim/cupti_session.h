// The shim's CUPTI session: load libcupti (an already loaded copy first: dlopen RTLD_NOLOAD of
// libcupti.so.13, then .12; else load it RTLD_LOCAL), claim the subscriber slot, put device
// timestamps on CLOCK_MONOTONIC, enable the activity kinds (no latency timestamps), and turn the
// completed activity buffers into DeviceRecords in the segment's device ring and kernel names in
// its name table. Any failure leaves the run host-only with the reason recorded.
//
// Thread-safety: CuptiSetupOnce runs once (first caller wins). Buffer callbacks run on CUPTI's
// thread or inside a flush; writers of the device ring serialize on a spinlock (never on the
// app's hot path).
// Must never: call CUPTI on the app's hot path, crash when CUPTI or the driver is missing, or
// write device records before a segment is attached.
#ifndef BRRR_SHIM_CUPTI_SESSION_H_
#define BRRR_SHIM_CUPTI_SESSION_H_

#include <cstdint>

#include "shim/ring_format.h"
#include "shim/segment.h"

namespace brrr::shim {

struct CuptiStatus {
  bool active = false;
  ring::HostOnlyReason reason = ring::HostOnlyReason::kCuptiNotFound;
  int32_t detail = 0;  // the failing CUptiResult for kCuptiError / kCuptiBusy
};

// Which CUPTI API callbacks record host calls (api_callback.h).
enum class ApiCallbacks : uint8_t {
  kNone = 0,             // BRRR_CALLBACKS=0 or BRRR_STACKS=0
  kDriver = 1,           // driver API only (a dynamic libcudart: its calls are hooked)
  kDriverAndRuntime = 2  // also runtime calls (no dynamic libcudart: a static one is likely)
};

// How brrr sets up CUPTI (from ShimConfig, shim_runtime.cc).
struct CuptiOptions {
  bool enabled = true;  // false = BRRR_CUPTI=0: no CUPTI at all
  ApiCallbacks callbacks = ApiCallbacks::kNone;
  // BRRR_CUPTI_DETACH: while activity is off, detach CUPTI from the process (see
  // CuptiSetActivity).
  bool detach_when_off = false;
  // BRRR_LAUNCH_RECORDS=0 (false): with kDriver callbacks, CUPTI writes no RUNTIME record for
  // hooked kernel launches, whose host records carry their correlation id.
  bool launch_records = true;
  // BRRR_DRIVER_RECORDS=0 (false): CUPTI's DRIVER activity kind stays off; the driver calls with
  // API callbacks (api_callback.h) are still recorded.
  bool driver_records = true;
};

// Sets up CUPTI as `options` say (or records why not). Idempotent.
void CuptiSetupOnce(const CuptiOptions& options);

CuptiStatus CuptiCurrentStatus();

// From now on, completed buffers go to this segment (records completed earlier are counted in
// cupti_dropped).
void CuptiAttachSegment(const SegmentView* segment);

// Records of the shim's own threads, not CUPTI's: the PM sampler's counter samples
// (DeviceKind::kCounterSample) and the control thread's tracing windows (kTracingWindow). Appends
// one to the device ring under the device-ring lock (waiting only for that lock, never for room),
// or returns false (no segment yet, or the ring is full: never counts the ring's `dropped`).
bool AppendOwnDeviceRecord(const ring::DeviceRecord& record);

// Flushes every buffer (forced) so that the device ring holds everything before `finished`.
void CuptiFlushAtExit();

// The control thread's periodic flush: a default (0) flush, which returns every buffer whose
// records are complete, full or not (a periodic flush of CUPTI's own, cuptiActivityFlushPeriod,
// returns full buffers only). True when a flush was done: false when CUPTI is not active or is
// detached (BRRR_CUPTI_DETACH), which leaves it no buffer to flush.
bool CuptiFlushPeriodic();

// A tool of the app's own (torch.profiler's kineto, Nsight's injection, ...) asks for CUPTI: its
// cuptiSubscribe or cuptiActivityRegisterCallbacks is about to run (cupti_coexistence.cc). CUPTI
// takes one subscriber and one set of buffer callbacks per process, so brrr steps aside for good:
// it flushes its buffers (they still reach the ring), disables its activity kinds,
// unregisters its timestamp callback and unsubscribes; the run is host-only from then
// on (HostOnlyReason::kHandedOver, SegmentHeader.cupti_handed_over_ns). Called before brrr's own
// setup, it makes that setup stand aside (host-only, kCuptiBusy). Any thread; never on a hook.
void CuptiYieldToAppTool();

// Pause / resume, and sampled tracing's windows: disables / re-enables the activity kinds (nothing
// is recorded on the device side while off). Control thread, or initialization.
//
// Off, with detaching allowed (BRRR_CUPTI_DETACH, cuptiFinalize present, driver callbacks on and a
// dynamic libcudart, whose calls the hooks see) and `detach_not_before_ns` not 0 (0: stay attached
// this time), also asks for a detach: from `detach_not_before_ns` on the control thread flushes
// (CuptiPrepareDetach) and the next API callback's exit calls cuptiFinalize (CuptiDetachIfPending;
// work still queued then loses its records), so that CUDA calls pay nothing for CUPTI until it is
// on again (measured on an H100: about 490 ns more per empty launch with the kinds off but CUPTI
// attached, 75 ns after cuptiFinalize). Its API callbacks are off meanwhile: driver-API calls go
// unrecorded (SegmentHeader.cupti_detaches says it happened). On again attaches CUPTI anew (a
// failure leaves the run host-only from then on, with the reason).
void CuptiSetActivity(bool on, uint64_t detach_not_before_ns = 0);

// The control thread, each round: once an asked-for detach's grace has passed, flushes CUPTI's
// buffers and lets the next callback detach. Returns when to call again (UINT64_MAX: not needed).
// When it flushed, says so in `*flush` with the records of queued work that came back without
// timestamps (the detach drops that work: shim/detach_grace.h).
struct DetachFlush {
  bool done = false;
  uint64_t untimed = 0;
};
uint64_t CuptiPrepareDetach(uint64_t now_ns, DetachFlush* flush = nullptr);

// How long the last detach's cuptiFinalize took, once (0: no detach since the last call). On the
// real driver it waits for the device's queued work (tools/gpu/workloads/attach_probe.cu): the
// control thread hands it to the detach wait (detach_grace.h).
uint64_t CuptiTakeLastDetachNs();

// Whether turning activity off asks for a detach (BRRR_CUPTI_DETACH allowed it and it has not
// failed): CuptiSetActivity(false, ...) then detaches once its grace has passed.
bool CuptiDetachesWhenOff();

// At every CUPTI API callback's exit (api_callback.cc): detaches CUPTI (cuptiFinalize only: the
// control thread flushed) if a detach is ready and the lock is free (else a later callback does).
// Never waits, never flushes.
void CuptiDetachIfPending();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CUPTI_SESSION_H_
