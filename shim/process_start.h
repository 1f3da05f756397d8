// When this process started (its exec, or its fork for a child that did not exec), on
// CLOCK_MONOTONIC: where a report's wall time begins, so that an interpreter's start-up and imports
// (`import torch`: about 1 s) count as start-up, not as time before the run. Read once at the
// shim's load from /proc/self/stat's starttime (clock ticks since boot, so within one tick, 10 ms
// at the usual 100 Hz, and never later than the real start) and CLOCK_BOOTTIME.
//
// Must never: allocate, or trust /proc's text (a command name may hold spaces and parentheses;
// the file may be short or garbled): a value it cannot read is "unknown" (0).
#ifndef BRRR_SHIM_PROCESS_START_H_
#define BRRR_SHIM_PROCESS_START_H_

#include <cstddef>
#include <cstdint>

namespace brrr::shim {

// Field 22 (starttime) of a /proc/PID/stat line, counted after the last ')' (the end of the
// command name); false when the text has no such field or it is not a decimal number.
bool ParseStatStartTicks(const char* text, size_t length, uint64_t* ticks);

// The CLOCK_MONOTONIC time of the process's start given its start ticks, the clock tick rate and
// two readings taken together: CLOCK_BOOTTIME and CLOCK_MONOTONIC now. 0 when the inputs do not
// fit together (a start after now, a tick rate of 0, a start before the monotonic clock's zero).
uint64_t StartMonotonicNs(uint64_t start_ticks, uint64_t ticks_per_second, uint64_t boot_now_ns,
                          uint64_t mono_now_ns);

// This process's start on CLOCK_MONOTONIC from /proc/self/stat; 0 when unknown. A few syscalls:
// call it once, off the hot path.
uint64_t ReadProcessStartMonotonicNs();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PROCESS_START_H_
