// External correlation ids: per calling thread, one stack per CUpti_ExternalCorrelationKind, behind
// cuptiActivityPush/PopExternalCorrelationId. ActivityRecorder reads the tops on the thread that
// made an API call (OnApiExit runs there). Must never call into the engine or a client callback.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_EXTERNAL_CORRELATION_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_EXTERNAL_CORRELATION_H_

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>

namespace simcuda::cupti {

// CUPTI_ERROR_INVALID_PARAMETER for an invalid kind (INVALID, SIZE or beyond).
CUptiResult PushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id);

// Pops the calling thread's top id of `kind` into *last_id (may be null).
// CUPTI_ERROR_INVALID_PARAMETER for an invalid kind, CUPTI_ERROR_QUEUE_EMPTY if none is pushed.
CUptiResult PopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t* last_id);

// The calling thread's top id of every kind that has one, in increasing kind order.
struct ExternalCorrelationTops {
  struct Entry {
    CUpti_ExternalCorrelationKind kind;
    uint64_t id;
  };
  size_t count = 0;
  Entry entries[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];
};
ExternalCorrelationTops CurrentExternalCorrelationTops();

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_EXTERNAL_CORRELATION_H_
