// Reports a host thread's synchronizing call (ActivitySink::OnSynchronization). Called on the host
// thread as the call returns; must never block beyond the sink's own lock.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_SYNC_REPORT_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_SYNC_REPORT_H_

#include <cstdint>

#include "sink_dispatch.h"

namespace simcuda {

inline constexpr uint32_t kSyncInvalid = 0xffffffffu;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE

// type: CUpti_ActivitySynchronizationType.
inline void ReportSync(uint8_t type, uint32_t correlation_id, uint32_t stream_id, uint32_t event_id,
                       uint64_t start_ns, uint64_t end_ns) {
  SynchronizationEvent e{};
  e.type = type;
  e.correlation_id = correlation_id;
  e.context_id = 1;
  e.stream_id = stream_id;
  e.cuda_event_id = event_id;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  Sinks().Deliver([&e](ActivitySink& sink) { sink.OnSynchronization(e); });
}

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_SYNC_REPORT_H_
