// Initialization, per-thread ring claim, thread exit, fork and process exit for the shim (see
// shim_runtime.h). Everything here is rare: once per process, once per thread, or at exit.
//
// Must never: call CUDA, block without a bound, or run twice (every step is guarded).
#include "shim/shim_runtime.h"

#include "shim/unwinder.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/collector_launcher.h"
#include "shim/control_thread.h"
#include "shim/pm_sampler.h"
#include "shim/cupti_session.h"
#include "shim/device_code_probe.h"
#include "shim/job_id.h"
#include "shim/log.h"
#include "shim/low_fd_guard.h"
#include "shim/resource_headroom.h"
#include "shim/unprofiled_note.h"
#include "shim/process_start.h"
#include "shim/secure_execution.h"
#include "shim/setting_names.h"
#include "shim/self_cost.h"
#include "shim/tracing_windows.h"

namespace brrr::shim {

Runtime g_runtime;
constinit thread_local ThreadState t_thread __attribute__((tls_model("initial-exec")));
std::atomic<bool> g_exit_handler_registered{false};

namespace {

enum class EarlyState : uint32_t { kNotStarted, kRunning, kDone };
std::atomic<EarlyState> g_early_state{EarlyState::kNotStarted};
pthread_key_t g_thread_exit_key;
bool g_thread_exit_key_ok = false;
std::atomic<int> g_exit_code{0};
std::atomic<bool> g_exit_code_valid{false};
std::atomic<bool> g_finished{false};
std::atomic<bool> g_warned_overflow{false};

ring::SegmentHeader* Header() { return g_runtime.segment.header; }

void OnThreadExit(void*) {
  ThreadState& ts = t_thread;
  RetireThreadRing(ts.cursor.ring);
  ts.cursor.ring = nullptr;
  ts.status = ThreadStatus::kExited;
}

// The fork child shares the parent's segment mapping: it must never write into it. The child is
// not profiled (documented).
void ChildAfterFork() {
  g_runtime.state.store(static_cast<uint32_t>(ShimState::kDisabled), std::memory_order_relaxed);
  t_thread.cursor.ring = nullptr;
  t_thread.status = ThreadStatus::kExited;
  DisablePythonFrames();
}

void FinishAtExit() { FinishProcess(); }

__attribute__((destructor)) void FinishInDestructor() { FinishProcess(); }

const char* GetEnv(const char* name) { return getenv(name); }

void* LookUpProcessSymbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

ClockPair g_load_clock;  // taken by EarlyInit: the TSC rate is measured from it
// The process's start (its exec; process_start.h), else the shim's load: where the report's wall
// begins (an interpreter's start-up and imports are start-up). Set by EarlyInit.
uint64_t g_process_start_ns = 0;

// Host clock ticks in `us` microseconds (TSC: its rate measured against CLOCK_MONOTONIC since the
// library was loaded, at least over 2 ms — usually seconds have passed, so nothing waits).
uint64_t HostTicksIn(uint32_t us) {
  const uint64_t ns = uint64_t{us} * 1000;
  if (HostClockKind() != ring::ClockKind::kTsc) return ns;
  const ClockPair a = g_load_clock.mono_ns != 0 ? g_load_clock : SampleClockPair();
  while (MonotonicNs() - a.mono_ns < 2'000'000) {
  }
  const ClockPair b = SampleClockPair();
  if (b.mono_ns <= a.mono_ns || b.tsc <= a.tsc) return ns;
  return static_cast<uint64_t>(static_cast<double>(ns) * static_cast<double>(b.tsc - a.tsc) /
                               static_cast<double>(b.mono_ns - a.mono_ns));
}

// Python frames and launch sampling: status, version and sample period go to the header before
// the first record.
void SetUpPythonFrames() {
  Runtime& rt = g_runtime;
  ring::SegmentHeader* h = rt.segment.header;
  PythonFramesSetup setup;
  setup.enabled = rt.config.python && rt.stacks;
  setup.header = h;
  setup.code_slots = ring::CodeSlotsAt(rt.segment.base, rt.segment.layout);
  setup.code_slot_count = rt.segment.geometry.code_slots;
  InitPythonFrames(setup, &LookUpProcessSymbol);
  rt.launch_sample_period = rt.stacks ? rt.config.launch_sample_period : 0;
  h->launch_sample_period = rt.launch_sample_period;
  rt.python_stall_ticks = HostTicksIn(rt.config.python_stall_us);  // stalls get whole stacks
  // libunwind for the whole stacks of stalls and sampled launches (release builds have no frame
  // pointers); loaded here, once, never on a hook's fast path.
  rt.dwarf_stacks = rt.stacks && rt.config.dwarf_stacks && LoadUnwinder();
}

// Capture ranges: mode and name into the header, the name's id for NVTX matching.
void SetUpCapture() {
  Runtime& rt = g_runtime;
  const CaptureRange& range = rt.config.capture;
  uint32_t name_id = 0;
  if (range.mode == ring::CaptureMode::kNvtx) {
    name_id = InternName(ring::NameSlotsAt(rt.segment.base, rt.segment.layout),
                         rt.segment.geometry.name_slots, range.nvtx_name, range.nvtx_name_length);
  }
  CaptureAttach(rt.segment.header, name_id);
}

bool CudartLoaded() {
  for (const char* soname : {"libcudart.so.13", "libcudart.so.12"}) {
    void* h = dlopen(soname, RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
    if (h != nullptr) {
      dlclose(h);
      return true;
    }
  }
  return false;
}

ApiCallbacks CallbackMode() {
  const ShimConfig& c = g_runtime.config;
  if (!c.callbacks || !c.stacks) return ApiCallbacks::kNone;
  return CudartLoaded() ? ApiCallbacks::kDriver : ApiCallbacks::kDriverAndRuntime;
}

// CUPTI's setup as the settings ask. Hardware counters (PM sampling) need CUPTI attached
// throughout: no detaching with them.
CuptiOptions CuptiOptionsFromConfig() {
  const ShimConfig& c = g_runtime.config;
  CuptiOptions options;
  options.enabled = c.cupti;
  options.callbacks = CallbackMode();
  options.detach_when_off = c.cupti_detach && !c.counters;
  options.launch_records = c.launch_records;
  options.driver_records = c.driver_records;
  return options;
}

void ApplyCuptiStatus(ring::SegmentHeader* h) {
  const CuptiStatus s = CuptiCurrentStatus();
  std::atomic_ref<uint32_t> flags(h->flags);
  if (s.active) {
    flags.fetch_or(ring::kFlagCuptiActive, std::memory_order_relaxed);
    flags.fetch_and(~uint32_t{ring::kFlagHostOnly}, std::memory_order_relaxed);
  } else {
    flags.fetch_or(ring::kFlagHostOnly, std::memory_order_relaxed);
  }
  h->host_only_reason = static_cast<uint32_t>(s.reason);
  h->host_only_detail = s.detail;
}

// `brrr run` of a process tree sets BRRR_JOB_DIR: a process that finds BRRR_SHM taken by another
// (a rank of a launcher, a second child of a shell) records into a segment of its own, drained by
// its own collector into that directory, exactly as under a plain LD_PRELOAD.
bool InJob() { return g_runtime.config.job_dir != nullptr; }

// PID 1 of a pid namespace (a container's entrypoint) and subreapers adopt every orphan below
// them, a collector started from the app included, and such apps typically wait for all their
// children: brrr would stand between the app and its exit. They are profiled only under `brrr run`
// (which collects from outside the app's tree).
bool AdoptsOrphans() {
  int subreaper = 0;
  return getpid() == 1 || (prctl(PR_GET_CHILD_SUBREAPER, &subreaper) == 0 && subreaper != 0);
}

bool SharedSegmentExists(const char* name) {
  const int fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return errno != ENOENT;
  close(fd);
  return true;
}

bool SetUpSegment() {
  Runtime& rt = g_runtime;
  const uint32_t pid = static_cast<uint32_t>(getpid());
  bool own_segment = rt.config.shm_name == nullptr;
  // A process of a job on another host (mpirun -H ...) inherits BRRR_SHM, but the segment lives
  // on `brrr run`'s host: it records into its own, as under a plain LD_PRELOAD.
  if (!own_segment && InJob() && !SharedSegmentExists(rt.config.shm_name)) own_segment = true;
  if (!own_segment) {
    if (!OpenSharedSegment(rt.config.shm_name, &rt.segment)) return false;
    uint32_t owner = 0;
    if (!ClaimSegmentForProcess(rt.segment.header, pid, &owner) && InJob()) {
      munmap(rt.segment.base, rt.segment.mapped_bytes);
      rt.segment = SegmentView{};
      own_segment = true;
    } else if (owner == pid && rt.segment.header->command[0] != '\0') {
      // Claimed by this pid, and a shim started in it already (it wrote the command line; brrr
      // run writes only the pid): a program it exec'd from (BRRR_SHM survives an exec).
      rt.segment.header->execs.fetch_add(1, std::memory_order_relaxed);
    } else if (owner != 0 && owner != pid) {
      char a[24], b[24];
      FormatU64(owner, a, sizeof(a));
      FormatU64(pid, b, sizeof(b));
      Warn("BRRR_SHM is already recorded by process ", a, "; process ", b,
           " (a child or sibling) is not profiled");
      return false;
    }
    size_t n = 0;
    while (rt.config.shm_name[n] != '\0' && n + 1 < sizeof(rt.shm_name)) {
      rt.shm_name[n] = rt.config.shm_name[n];
      ++n;
    }
    rt.shm_name[n] = '\0';
  }
  if (own_segment && AdoptsOrphans()) {
    Warn(getpid() == 1 ? "the app is PID 1 of its namespace" : "the app is a child subreaper",
         ": a collector started from it would be among the children it waits for; not profiled",
         InJob() ? " (put `brrr run` inside the namespace: `unshare ... brrr run -- APP`, or "
                   "make it the container's entrypoint)"
                 : " (profile it under `brrr run -- APP`, e.g. as the container's entrypoint)");
    return false;
  }
  if (own_segment) {
    if (!CreateSharedSegment(rt.config.geometry, rt.shm_name, sizeof(rt.shm_name), &rt.segment)) {
      return false;
    }
    rt.segment.header->pid = pid;
    rt.created_segment = true;
  }
  ring::SegmentHeader* h = rt.segment.header;
  FillProcessInfo(h, g_process_start_ns);
  uint32_t flags = 0;
  if (rt.config.stacks) flags |= ring::kFlagStacks;
  std::atomic_ref<uint32_t>(h->flags).fetch_or(flags, std::memory_order_relaxed);
  rt.stacks = rt.config.stacks;
  rt.stack_slots = ring::StackSlotsAt(rt.segment.base, rt.segment.layout);
  rt.stack_slot_count = rt.segment.geometry.stack_slots;
  ring::DeviceRingAt(rt.segment.base, rt.segment.layout)
      ->state.store(static_cast<uint32_t>(ring::RingState::kActive), std::memory_order_release);
  rt.owner_pid = pid;
  return true;
}

}  // namespace

namespace {

// Misspelled BRRR_* names (setting_names.h), each said once. Under `brrr run` (which sets
// BRRR_SHM or BRRR_JOB_DIR) brrr run has said them, once for the whole tree.
void WarnUnknownSettings() {
  if (g_runtime.config.shm_name != nullptr || g_runtime.config.job_dir != nullptr) return;
  int said = 0;
  for (char** e = environ; e != nullptr && *e != nullptr && said < 8; ++e) {
    char name[80];
    if (!settings::UnknownSettingEntry(*e, name, sizeof(name))) continue;
    const char* near = settings::NearestSettingName(name);
    Warn(name, " is not a brrr setting: ignored", near != nullptr ? " (did you mean " : "",
         near != nullptr ? near : "", near != nullptr ? "?)" : "");
    ++said;
  }
}

}  // namespace

void EarlyInit() {
  EarlyState expected = EarlyState::kNotStarted;
  if (!g_early_state.compare_exchange_strong(expected, EarlyState::kRunning,
                                             std::memory_order_acq_rel)) {
    return;
  }
  if (SecureExecution()) {  // setuid & co: forward every call, touch nothing (secure_execution.h)
    g_runtime.state.store(static_cast<uint32_t>(ShimState::kDisabled), std::memory_order_release);
    g_early_state.store(EarlyState::kDone, std::memory_order_release);
    return;
  }
  uint64_t stderr_dev = 0, stderr_ino = 0;
  (void)StartupStderr(&stderr_dev, &stderr_ino);  // fd 2 as the process started, before any Warn
  const LowFdGuard low_fds;  // what init opens lands above fds 0-2, even where the app closed them
  g_runtime.config = ReadShimConfig(&GetEnv);
  WarnUnknownSettings();
  if (char why[320]; !EnoughHeadroom(ReadHeadroomFacts(),
                                     ring::ComputeLayout(g_runtime.config.geometry).segment_size,
                                     why, sizeof(why))) {
    // A limit leaves too little for brrr's share: the app runs as without brrr (forwarding only).
    Warn(why);
    NoteUnprofiled(g_runtime.config.job_dir);
    g_runtime.state.store(static_cast<uint32_t>(ShimState::kDisabled), std::memory_order_release);
    g_early_state.store(EarlyState::kDone, std::memory_order_release);
    return;
  }
  CaptureConfigure(g_runtime.config);
  if (g_runtime.config.start_paused) GatePause();  // before any hook can record
  InitClock(g_runtime.config.allow_tsc);
  g_process_start_ns = ReadProcessStartMonotonicNs();
  if (g_process_start_ns == 0) g_process_start_ns = MonotonicNs();
  if (HostClockKind() == ring::ClockKind::kTsc) g_load_clock = SampleClockPair();
  g_thread_exit_key_ok = pthread_key_create(&g_thread_exit_key, &OnThreadExit) == 0;
  pthread_atfork(nullptr, nullptr, &ChildAfterFork);
  // A program that carries device code (nvcc-built, cudart static or dynamic) is profiled from
  // the start: with a static cudart no hooked call would ever start the shim.
  const bool device_code = FileCarriesDeviceCode("/proc/self/exe");
  // CUPTI is subscribed before CUDA initializes where it can be: now when the
  // runtime is already loaded (a dynamically linked app) or the program has device code; else at
  // the first hooked call.
  ConfigureDeviceTracing(g_runtime.config.sample_device_permille, g_runtime.config.sample_window_ms,
                         g_runtime.config.overhead_budget_permille,
                         g_runtime.config.detach_wait_adaptive);
  if (g_runtime.config.cupti && (device_code || CudartLoaded())) {
    CuptiSetupOnce(CuptiOptionsFromConfig());
    UpdateDeviceTracing(GatePaused(), MonotonicNs());  // off while paused or before a window
  }
  g_early_state.store(EarlyState::kDone, std::memory_order_release);
  if (device_code) {
    t_thread.in_hook = 1;  // libraries loaded now may call CUDA from their constructors
    EnsureInitialized();
    t_thread.in_hook = 0;
  }
}

bool EnsureInitialized() {
  Runtime& rt = g_runtime;
  const uint32_t state = rt.state.load(std::memory_order_acquire);
  if (state == static_cast<uint32_t>(ShimState::kReady)) return true;
  if (state != static_cast<uint32_t>(ShimState::kUninitialized)) return false;
  if (g_early_state.load(std::memory_order_acquire) == EarlyState::kNotStarted) EarlyInit();
  if (g_early_state.load(std::memory_order_acquire) != EarlyState::kDone) {
    return false;  // another thread's init
  }
  uint32_t expected = static_cast<uint32_t>(ShimState::kUninitialized);
  if (!rt.state.compare_exchange_strong(expected, static_cast<uint32_t>(ShimState::kInitializing),
                                        std::memory_order_acq_rel)) {
    // Another thread is initializing: let this call through unrecorded rather than wait.
    return expected == static_cast<uint32_t>(ShimState::kReady);
  }
  const LowFdGuard low_fds;  // CUPTI, the segment, the collector's start: never on fds 0-2
  CuptiSetupOnce(CuptiOptionsFromConfig());
  UpdateDeviceTracing(GatePaused(), MonotonicNs());
  if (!SetUpSegment()) {
    rt.state.store(static_cast<uint32_t>(ShimState::kDisabled), std::memory_order_release);
    NoteUnprofiled(rt.config.job_dir);  // under brrr run: its report says so, and why
    return false;
  }
  ApplyCuptiStatus(rt.segment.header);
  if (InJob()) rt.segment.header->job_id = JobIdOf(rt.config.job_dir);  // for `brrr ctl`
  rt.segment.header->hook_record_ns = MeasureRecordCostNs();  // before the first record
  SetUpPythonFrames();
  SetUpCapture();
  CuptiAttachSegment(&rt.segment);
  StartTracingWindows(rt.segment.header, MonotonicNs());
  rt.state.store(static_cast<uint32_t>(ShimState::kReady), std::memory_order_release);
  StartControlThread(rt.segment.header, CuptiCurrentStatus().active ? rt.config.flush_ms : 0);
  if (rt.config.counters) StartPmSampler(rt.segment.header, rt.config.pm_sampling_library);
  if (rt.created_segment) {
    const int collector = LaunchCollector(rt.shm_name, rt.owner_pid, rt.config.job_dir);
    if (collector > 0) {  // R10: its reader from now on, before a hand-run attach could claim it
      uint32_t none = 0;
      rt.segment.header->reader_pid.compare_exchange_strong(none, static_cast<uint32_t>(collector),
                                                           std::memory_order_acq_rel);
    }
    WatchCollector(collector, rt.shm_name, rt.owner_pid);
  }
  return true;
}

bool PrepareThreadSlow(ThreadState& ts) {
  if (ts.status == ThreadStatus::kExited) return false;
  // Initialization may load libraries (CUPTI) whose constructors call CUDA: pass those through.
  // (A hook calls this with in_hook already set: kept so.)
  const uint8_t in_hook = ts.in_hook;
  ts.in_hook = 1;
  const bool ready = EnsureInitialized();
  ts.in_hook = in_hook;
  if (!ready) return false;
  Runtime& rt = g_runtime;
  if (ts.status == ThreadStatus::kOverflow) {
    // Retry the claim now and then: the collector recycles rings of exited threads.
    if ((++ts.overflow_calls & 1023u) != 0) {
      Header()->threads_overflow_dropped.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  if (!ClaimThreadRing(rt.segment, static_cast<uint32_t>(gettid()),
                       static_cast<uint64_t>(pthread_self()), &ts.cursor)) {
    ts.status = ThreadStatus::kOverflow;
    Header()->threads_overflow_dropped.fetch_add(1, std::memory_order_relaxed);
    WarnOnce(g_warned_overflow,
             "more threads than BRRR_MAX_THREADS call CUDA; the extra threads' calls are counted "
             "as lost");
    return false;
  }
  if (rt.stacks) {
    const StackBounds b = CurrentThreadStackBounds();
    ts.stack_lo = b.lo;
    ts.stack_hi = b.hi;
  }
  if (g_thread_exit_key_ok) pthread_setspecific(g_thread_exit_key, &ts);
  ts.status = ThreadStatus::kRecording;
  return true;
}

void OnFirstCallReturned() {
  if (g_exit_handler_registered.exchange(true, std::memory_order_acq_rel)) return;
  atexit(&FinishAtExit);
  PmSamplerContextReady();  // a context exists now: the counter sampler may start
}

void NoteExitCode(int code) {
  g_exit_code.store(code, std::memory_order_relaxed);
  g_exit_code_valid.store(true, std::memory_order_release);
}

bool ProcessFinished() { return g_finished.load(std::memory_order_acquire); }

void FlushBeforeTeardown() {
  Runtime& rt = g_runtime;
  if (rt.state.load(std::memory_order_acquire) != static_cast<uint32_t>(ShimState::kReady)) return;
  if (static_cast<uint32_t>(getpid()) != rt.owner_pid) return;
  if (g_finished.load(std::memory_order_acquire)) return;
  StopControlThread();
  StopPmSampler();
  CuptiFlushAtExit();
}

void FinishProcess() {
  Runtime& rt = g_runtime;
  if (rt.state.load(std::memory_order_acquire) != static_cast<uint32_t>(ShimState::kReady)) return;
  if (static_cast<uint32_t>(getpid()) != rt.owner_pid) return;
  if (g_finished.exchange(true, std::memory_order_acq_rel)) return;
  StopControlThread();
  StopPmSampler();
  CloseTracingWindowAtExit();
  CuptiFlushAtExit();
  ring::SegmentHeader* h = Header();
  if (g_exit_code_valid.load(std::memory_order_acquire)) {
    h->exit_code.store(g_exit_code.load(std::memory_order_relaxed), std::memory_order_relaxed);
    h->exit_code_valid.store(1, std::memory_order_relaxed);
  }
  CaptureFinish();
  h->end_mono_ns.store(MonotonicNs(), std::memory_order_relaxed);
  h->finished.store(1, std::memory_order_release);  // R5
  if (const int collector = WatchedCollector(); rt.created_segment && collector > 0) {
    if (!WaitForCollector(h, collector, rt.config.report_wait_ms)) {
      switch (PollCollector(collector)) {
        case CollectorState::kGone:
          WarnCollectorGone(rt.shm_name, rt.owner_pid);
          break;
        case CollectorState::kStopped:
          Warn("the collector is stopped; the app does not wait for it (it writes the report "
               "once it is continued)");
          break;
        case CollectorState::kRunning:
          break;  // still busy after BRRR_REPORT_WAIT_MS: it finishes on its own
      }
    }
  } else if (!rt.created_segment && rt.stacks) {
    WaitForMapsCaptured(h, kMapsCaptureWaitMs);  // `brrr run`: R7
  }
}

// Cheap start-up work only: no segment, no CUDA (see EarlyInit).
__attribute__((constructor)) static void ShimConstructor() { EarlyInit(); }

}  // namespace brrr::shim
