// Record builders: turn one engine event (tools/simcuda/include/simcuda/activity_sink.h) into the
// real CUPTI activity struct, timestamps mapped onto the client clock. Pure functions: they never
// touch buffers, clocks or the engine, so each field can be checked in isolation.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_BUILDERS_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_BUILDERS_H_

#include <cupti_activity.h>

#include <cstdint>

#include "client_clock.h"
#include "simcuda/activity_sink.h"

namespace simcuda::cupti {

// kind is CUPTI_ACTIVITY_KIND_KERNEL or _CONCURRENT_KERNEL. Without latency timestamps,
// queued and submitted are CUPTI_TIMESTAMP_UNKNOWN. grid_id is the record's unique grid id.
CUpti_ActivityKernel10 MakeKernelRecord(const KernelEvent& e, CUpti_ActivityKind kind,
                                        const ClockOffset& clock, bool latency_timestamps,
                                        int64_t grid_id);

CUpti_ActivityMemcpy6 MakeMemcpyRecord(const MemcpyEvent& e, const ClockOffset& clock);

CUpti_ActivityMemset4 MakeMemsetRecord(const MemsetEvent& e, const ClockOffset& clock);

CUpti_ActivitySynchronization2 MakeSynchronizationRecord(const SynchronizationEvent& e,
                                                         const ClockOffset& clock);

// Kind RUNTIME or DRIVER, from e.domain.
CUpti_ActivityAPI MakeApiRecord(const ApiEvent& e, const ClockOffset& clock);

CUpti_ActivityExternalCorrelation MakeExternalCorrelationRecord(
    CUpti_ExternalCorrelationKind external_kind, uint64_t external_id, uint32_t correlation_id);

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_RECORD_BUILDERS_H_
