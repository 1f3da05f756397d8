// Starting the collector in plain `LD_PRELOAD=libbrrr.so ./app` mode, and the bounded wait for it
// at exit. The collector is `<dir of libbrrr.so>/brrr attach --shm NAME --pid PID`, started through
// `/bin/sh -c '... &'` so that it is not the app's child (an app that waits for all its children
// must never wait for brrr), in its own process group (the terminal's Ctrl-C reaches the app, and
// the collector sees the app die), with stdin closed and LD_PRELOAD/BRRR_SHM removed from its
// environment.
//
// Must never: run on the hot path, block without a bound, or fail loudly more than once. When the
// collector cannot be started the app keeps running and recording; the warning names the segment
// so that `brrr attach --shm NAME` can still read it (or `rm /dev/shm/NAME` removes it).
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

// Waits until the collector release-stores collector_done (R6), the collector process is gone, or
// `timeout_ms` passed, whichever comes first.
void WaitForCollector(ring::SegmentHeader* header, int collector_pid, uint32_t timeout_ms);

// `brrr run` mode (the collector is the app's parent): waits up to `timeout_ms` for R7, the
// collector having read the app's memory map after `finished`. Returns early once it has.
void WaitForMapsCaptured(ring::SegmentHeader* header, uint32_t timeout_ms);
inline constexpr uint32_t kMapsCaptureWaitMs = 300;

}  // namespace brrr::shim

#endif  // BRRR_SHIM_COLLECTOR_LAUNCHER_H_
