// Sampled device tracing (BRRR_SAMPLE_DEVICE below 100%, `brrr run --sample-device=PCT`): CUPTI
// activity is on only in windows that cover that share of the run's time, so that what CUPTI
// costs per launch is paid for that share of the launches only. The host hooks are never
// sampled. Time is cut into periods of window / share; each period holds one window at an offset
// drawn uniformly over the period, so a loop whose period is near the window's length is not
// aliased: over the run every phase of it is traced equally often.
//
// The one switch of device activity: on when not paused (`brrr ctl pause`, BRRR_START=paused) and,
// under sampling, inside a window. Each span of activity under sampling goes into the device ring
// (ring::DeviceKind::kTracingWindow, as it opens and as it closes) and the header
// (SegmentHeader.device_*) for the collector, which scales device figures from the spans.
//
// Under an overhead budget (BRRR_OVERHEAD_BUDGET) the collector steers the share during the run
// (SegmentHeader.device_sample_wanted_permille): a new share starts a new schedule from then on.
//
// Runs on the control thread, and at start-up and exit (a spin lock between them). Must never:
// run on a hook's path, or leave CUPTI activity on outside a window under sampling.
#ifndef BRRR_SHIM_TRACING_WINDOWS_H_
#define BRRR_SHIM_TRACING_WINDOWS_H_

#include <cstdint>

#include "shim/ring_format.h"
#include "shim/window_schedule.h"

namespace brrr::shim {

// Start-up, before CUPTI is set up: the share (permille, 1000 = no sampling), window length,
// overhead budget (permille of wall, 0 = none) and whether the wait before a detach adapts
// (detach_grace.h; else it is one window length).
void ConfigureDeviceTracing(uint32_t permille, uint32_t window_ms, uint32_t budget_permille,
                            bool adaptive_detach_wait = true);
// Once the segment exists: writes its device_* header fields and starts the schedule at now_ns.
void StartTracingWindows(ring::SegmentHeader* header, uint64_t now_ns);
// Turns CUPTI activity on or off as `paused` and the schedule want it at now_ns, writing the
// window records; first applies a share the collector asked for. Returns when the next window opens or closes (UINT64_MAX: no schedule).
uint64_t UpdateDeviceTracing(bool paused, uint64_t now_ns);
// The flush before a detach handed back `untimed` records of work still queued (the control thread,
// after CuptiPrepareDetach flushed): the wait before the next detach adapts (detach_grace.h).
void NoteDetachFlush(uint64_t untimed);
// The last detach's cuptiFinalize took `ns` (the control thread): one that waited long for queued
// device work keeps CUPTI attached from then on (detach_grace.h).
void NoteDetachTook(uint64_t ns);
// The process is finishing: closes the window open now (its record and the header) before the
// last flush; nothing opens after it.
void CloseTracingWindowAtExit();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_TRACING_WINDOWS_H_
