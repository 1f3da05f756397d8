// The shim's process-wide and per-thread state, and the two hot-path steps every hook shares:
// "may this thread record?" and "commit this record" (stack capture + ring append). Everything
// rare (initialization, ring claim, thread exit, fork) is out of line in shim_runtime.cc.
//
// Thread-safety: g_runtime's fields are written once during initialization, before `state` is
// release-stored kReady, and only read afterwards. ThreadState is thread-local (initial-exec TLS,
// trivially destructible) and touched only by its thread.
// Must never (hot path): allocate, lock, block, make a syscall, format text or throw.
#ifndef BRRR_SHIM_SHIM_RUNTIME_H_
#define BRRR_SHIM_SHIM_RUNTIME_H_

#include <atomic>
#include <cstdint>

#include "shim/clock.h"
#include "shim/python_frames.h"
#include "shim/python_policy.h"
#include "shim/ring_format.h"
#include "shim/segment.h"
#include "shim/shim_config.h"
#include "shim/slot_tables.h"
#include "shim/stack_walk.h"
#include "shim/thread_ring.h"
#include "shim/unwinder.h"

namespace brrr::shim {

enum class ShimState : uint32_t {
  kUninitialized = 0,
  kInitializing = 1,
  kReady = 2,     // recording
  kDisabled = 3,  // never records (fork child, no segment, segment owned by another process)
};

enum class ThreadStatus : uint8_t {
  kNew = 0,        // has not tried to claim a ring yet
  kRecording = 1,  // owns `cursor`
  kOverflow = 2,   // all rings taken: calls are counted in threads_overflow_dropped
  kExited = 3,     // past its thread-exit destructor: never records again
};

struct ThreadState {
  HostRingCursor cursor;  // cursor.ring != null <=> recording
  uintptr_t stack_lo = 0;
  uintptr_t stack_hi = 0;
  uint32_t overflow_calls = 0;  // calls since the last claim retry (overflow threads)
  uint32_t launch_count = 0;    // launches since the last sampled one (launch sites)
  uint8_t in_hook = 0;          // re-entry guard
  uint8_t callback_depth = 0;   // 1 while a CUPTI-callback call is being recorded (api_callback)
  // The correlation id of the last driver call seen by brrr's driver API callback inside the
  // current hooked call (0: none): the id of the hooked call's device work.
  uint32_t hook_correlation = 0;
  ThreadStatus status = ThreadStatus::kNew;
};

struct Runtime {
  std::atomic<uint32_t> state{0};  // ShimState
  bool stacks = false;
  bool created_segment = false;  // plain LD_PRELOAD mode (we made it) vs `brrr run`
  uint32_t owner_pid = 0;
  SegmentView segment;
  ring::StackSlot* stack_slots = nullptr;
  uint32_t stack_slot_count = 0;
  ShimConfig config;
  uint32_t launch_sample_period = 0;  // 1 in N launches sampled (0: off, or stacks off)
  uint64_t python_stall_ticks = 0;    // BRRR_PY_STALL_US in host clock ticks: a stall from here
  bool dwarf_stacks = false;          // stalls and sampled launches unwind with libunwind
  char shm_name[128] = {};
};

extern Runtime g_runtime;
// constinit: no TLS init function or guard, so every access is one %fs-relative load.
extern constinit thread_local ThreadState t_thread __attribute__((tls_model("initial-exec")));

// Slow path of "may this thread record?": initializes the shim, claims a ring. Returns false when
// the call must pass through unrecorded.
bool PrepareThreadSlow(ThreadState& ts);

inline bool ThreadMayRecord(ThreadState& ts) {
  return ts.cursor.ring != nullptr || PrepareThreadSlow(ts);
}

// Called once after the first recorded real call returned: registers the exit handler then, so
// that it runs before the CUDA runtime's own atexit teardown (handlers run in reverse order).
void OnFirstCallReturned();
extern std::atomic<bool> g_exit_handler_registered;

// What a call's stack gets beyond the frame-pointer walk (python_policy.h): a stall or a sampled
// launch gets its whole native stack (libunwind, when loaded) and the thread's Python frames.
// Sets kRecordLaunchSample on a sampled launch.
struct StackExtras {
  bool whole = false;   // a stall or a sampled launch
  bool python = false;  // ... in a thread running Python
};
inline StackExtras DecideStackExtras(ThreadState& ts, ring::HostRecord& r, PythonCapture capture) {
  const PythonCaptureDecision d =
      DecidePythonCapture(PythonCaptureOfRecord(capture, static_cast<ring::HostMemory>(r.host_memory)),
                          r.exit - r.enter, g_runtime.python_stall_ticks,
                          g_runtime.launch_sample_period, &ts.launch_count);
  if (d.launch_sample) r.flags |= ring::kRecordLaunchSample;
  return StackExtras{d.python, d.python && PythonFramesActive()};
}

inline bool WantPythonFrames(ThreadState& ts, ring::HostRecord& r, PythonCapture capture) {
  return DecideStackExtras(ts, r, capture).python;
}

// `capture`: the call's category for Python frames (a compile-time constant in every hook).
inline void CommitHostRecord(ThreadState& ts, ring::HostRecord& r, const void* frame,
                             PythonCapture capture = PythonCapture::kNever) {
  if (g_runtime.stacks && ts.stack_hi != 0) {
    uint64_t pcs[ring::kMaxStackEntries];
    uint32_t depth =
        WalkFramePointers(frame, StackBounds{ts.stack_lo, ts.stack_hi}, pcs, ring::kMaxStackDepth);
    const StackExtras extras = DecideStackExtras(ts, r, capture);
    const bool unwind = extras.whole && g_runtime.dwarf_stacks && depth < ring::kMaxStackDepth;
    if (unwind) depth = UnwindPastFramePointers(pcs, depth, ring::kMaxStackDepth);
    if (extras.python) depth += CapturePythonFrames(pcs + depth, ring::kMaxStackEntries - depth);
    if (depth != 0) {
      r.stack_id = InternStack(g_runtime.stack_slots, g_runtime.stack_slot_count, pcs, depth,
                               &g_runtime.segment.header->stacks_overflow);
    }
    // Only the costly captures are timed (a stall's or a sampled launch's): one more clock read
    // for them, none on the common path.
    if (unwind || extras.python) r.capture_ticks = CaptureTicksSince(r.exit);
  }
  AppendRecord(ts.cursor, r);
  if (!g_exit_handler_registered.load(std::memory_order_relaxed)) OnFirstCallReturned();
}

// Initializes what does not need the segment (config, clock, CUPTI when libcudart is loaded,
// fork handler); for a program that carries device code also the segment (EnsureInitialized).
// Idempotent; run by the library constructor.
void EarlyInit();

// Full initialization (segment, collector). Idempotent; false when the shim is disabled.
bool EnsureInitialized();

// The exit path: flush CUPTI, publish exit code / end time / finished, wait (bounded) for the
// collector. Idempotent; does nothing in a fork child or before initialization.
void FinishProcess();

// Delivers CUPTI's buffered records while the CUDA runtime still lives: called when main returns
// and in exit(), before the runtime's own teardown handlers run. Does nothing unless initialized
// in this process.
void FlushBeforeTeardown();

// True once FinishProcess ran (nothing may be recorded after it).
bool ProcessFinished();

// Records the status the app passed to exit() or returned from main.
void NoteExitCode(int code);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SHIM_RUNTIME_H_
