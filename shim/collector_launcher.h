// Starting the collector in plain `LD_PRELOAD=libbrrr.so ./app` mode, watching it, and the bounded
// wait for it at exit. The collector is `<dir of libbrrr.so>/brrr attach --shm NAME --pid PID
// --stderr DEV:INO`. It is never the app's child: a short-lived intermediate, cloned with no exit
// signal (the app's waitpid(-1) and wait() never see it, its end sends the app no SIGCHLD), starts
// it and ends once it has exec'd, which hands it to init (or to a subreaper above the app); the
// shim reaps the intermediate with __WALL before returning. So a SIGCHLD reaper, or an app that
// waits for all its children until ECHILD, behaves as without brrr. (An app that is PID 1 or a
// subreaper would adopt the collector: the shim does not profile it, shim_runtime.cc.)
// The collector runs in its own process group (the terminal's Ctrl-C reaches the app, and the
// collector sees the app die), with fds 0-2 on /dev/null (it holds none of the app's stdio: it
// reopens the app's stderr only to print, and only while it is still the file the app started
// with) and LD_PRELOAD/BRRR_SHM removed from its environment. The shim watches it with a pidfd
// (its /proc state where there is none).
//
// Must never: run on the hot path, block without a bound, leave a zombie of ours behind, or fail
// loudly more than once. When the collector cannot be started or dies, the app keeps running and
// recording; the warning names the segment and the `brrr attach` command that reads it.
#ifndef BRRR_SHIM_COLLECTOR_LAUNCHER_H_
#define BRRR_SHIM_COLLECTOR_LAUNCHER_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::shim {

// In a `brrr run` job (BRRR_JOB_DIR set) the collector also inherits, as this fd, the flock'ed
// "<BRRR_JOB_DIR>/<pid>.lock" that tells `brrr run` it has not finished yet.
inline constexpr int kJobLockFd = 5;

// `job_dir` is BRRR_JOB_DIR (null outside a job). Returns the collector's pid, or 0 when it could
// not be started (warned).
int LaunchCollector(const char* shm_name, uint32_t app_pid, const char* job_dir);

enum class CollectorState { kRunning, kStopped, kGone };

// Watches `collector_pid` from now on (LaunchCollector does it).
void WatchCollectorProcess(int collector_pid);

// True when the collector process has ended (or never existed).
bool CollectorGone(int collector_pid);

// The collector's state now (CollectorGone, then its /proc state).
CollectorState PollCollector(int collector_pid);

// "the collector died; its report can be recovered with: brrr attach --shm NAME --pid PID".
void WarnCollectorGone(const char* shm_name, uint32_t app_pid);

// How long the exiting app waits on a collector that stays stopped (SIGSTOP, a debugger).
inline constexpr uint32_t kStoppedCollectorWaitMs = 200;

// Waits until the collector release-stores collector_done (R6), the collector process is gone
// (never waited on), it has been stopped for kStoppedCollectorWaitMs, or
// `timeout_ms` passed, whichever comes first. True when the collector said it was done.
bool WaitForCollector(ring::SegmentHeader* header, int collector_pid, uint32_t timeout_ms);

// `brrr run` mode (the collector is the app's parent): waits up to `timeout_ms` for R7, the
// collector having read the app's memory map after `finished`. Returns early once it has.
void WaitForMapsCaptured(ring::SegmentHeader* header, uint32_t timeout_ms);
inline constexpr uint32_t kMapsCaptureWaitMs = 300;

}  // namespace brrr::shim

#endif  // BRRR_SHIM_COLLECTOR_LAUNCHER_H_
