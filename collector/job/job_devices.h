// A job's device view: one row per device, a device being (host, device id). A device one process
// used keeps that process's breakdown. A device several processes shared (ranks oversubscribing a
// GPU, the simulated device's one device) gets its wall once, on the job's clock: from the first
// of them to start to the last to end, placed by their start times on the wall clock
// (Timeline.origin_unix_ns; a process without one counts as starting with the earliest). Its
// start-up runs to the first CUDA work of any of them and its teardown from the last; busy is
// their busy time summed (processes time-slice a GPU without MPS), at most the steady state; the
// rest of the steady state is idle, split as their idle parts summed split it (time no process
// accounts for, e.g. between one's end and another's start, counts as host outside CUDA).
// busy + idle parts + start-up + teardown == wall, exactly, as in a process's own view.
//
// Must never: add walls up across processes, overflow (inputs may hold any values), or drop a
// device.
#ifndef BRRR_COLLECTOR_JOB_JOB_DEVICES_H_
#define BRRR_COLLECTOR_JOB_JOB_DEVICES_H_

#include <string>
#include <vector>

#include "viewer/format/report.h"

namespace brrr::job {

// The devices of `processes` (single-process reports), `hosts[i]` the host of processes[i] (""
// when unknown: all such count as one host), in order of host then id.
std::vector<DeviceBreakdown> MergeDevices(const std::vector<Report>& processes,
                                          const std::vector<std::string>& hosts);

}  // namespace brrr::job

#endif  // BRRR_COLLECTOR_JOB_JOB_DEVICES_H_
