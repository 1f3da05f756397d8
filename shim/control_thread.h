// The shim's control thread: one background thread per profiled process that, every
// kControlPollMs, applies a pause or resume asked for in the segment (`brrr ctl PID
// pause|resume`) and, every BRRR_FLUSH_MS, flushes CUPTI's buffers so that device records reach
// the collector within about a second whatever the launch rate: an app killed by SIGKILL then
// loses at most that much of its device view. No signal handler is installed; the thread blocks
// every signal so that the app's threads receive them as before.
//
// Must never: run on the app's hot path, call CUPTI after the process began to finish, or keep
// the process alive (it is never joined; it stops at exit).
#ifndef BRRR_SHIM_CONTROL_THREAD_H_
#define BRRR_SHIM_CONTROL_THREAD_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::shim {

// Publishes the flush period and the initial pause state in the header and starts the thread
// (once; a fork child never has it). `flush_ms` 0: control only.
void StartControlThread(ring::SegmentHeader* header, uint32_t flush_ms);

// From now on the thread also watches the collector `pid` (plain preload mode): when it ends
// before the app, it is reaped and WarnCollectorGone says how to recover the report, once.
void WatchCollector(int pid, const char* shm_name, uint32_t app_pid);

// The watched collector's pid, 0 once it was found gone (or none was watched).
int WatchedCollector();

// Stops the periodic work (exit path, before CUPTI's teardown); the thread ends at its next tick.
void StopControlThread();

// Applies control_pause (called by the thread each poll): pause = gate closed for recording,
// then CUPTI activity off; resume = CUPTI on, then the gate open (control_thread.cc says why).
// Publishes `paused` and paused_ns.
void ApplyPauseRequest(ring::SegmentHeader* header);

// CUPTI's buffer thread: true when a call whose CUPTI API record starts at `start_ns` (MonotonicNs)
// began during the latest pause (not yet resumed, or before its resume). Its record is dropped:
// the hooks did not count the call, and its device work may have been enqueued before CUPTI came
// back on.
bool CallBeganWhilePaused(uint64_t start_ns);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CONTROL_THREAD_H_
