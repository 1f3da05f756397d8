// Decides why a CUDA call that blocked the host is a stall: the report's stall "reason". A call
// becomes a stall when it took at least Options.stall_threshold_ns on the host (or CUPTI recorded
// a SYNCHRONIZATION for it) AND its kind can wait for the device; this file names that kind.
// Query polling (query_poll) is detected over sequences of calls by poll_detector.h, not here.
//
// Must never: look at more than one call (no state), or allocate.
#ifndef BRRR_COLLECTOR_ANALYSIS_STALL_CLASSIFIER_H_
#define BRRR_COLLECTOR_ANALYSIS_STALL_CLASSIFIER_H_

#include <cstdint>
#include <string_view>

#include "collector/events.h"

namespace brrr {

enum class StallReason : uint8_t {
  kNone = 0,
  kD2hCopy,            // synchronous copy to the host: waits for all earlier work (`.item()`)
  kSyncCopy,           // other synchronous copy (H2D, D2D, peer, symbol) that waited
  kPageableAsyncCopy,  // "async" copy from/to pageable memory: the host waits for the staging
  kAsyncCopyBlocked,   // async copy that blocked although its host memory is not known pageable
  kSyncMemset,         // synchronous cudaMemset that waited
  kFreeSyncsDevice,    // cudaFree/cudaFreeHost/cudaHostUnregister synchronize the device
  kStreamSync,         // explicit cudaStreamSynchronize
  kDeviceSync,         // explicit cudaDeviceSynchronize
  kEventSync,          // explicit cudaEventSynchronize
  kQueryPoll,          // cudaStreamQuery/cudaEventQuery polled until the device finished
  kCount,
};

std::string_view StallReasonName(StallReason reason);

// The reason named `name` (a report's Stall.reason); kNone for a name it does not know.
StallReason StallReasonFromName(std::string_view name);

// What is known about one call when deciding its reason.
struct BlockingCallFacts {
  Api api = Api::kUnknown;      // hooked API, or kUnknown for a call seen only by CUPTI ...
  std::string_view cupti_name;  // ... then its CUPTI name ("cudaMemcpy2DFromArray", "cuMemFree_v2")
  CopyKind copy_kind = CopyKind::kNone;
  HostMemory host_memory = HostMemory::kNone;
  bool pageable_evidence = false;  // a CUPTI memcpy record for this call had a PAGEABLE side
  // A hooked cudaFree/cudaFreeHost of NULL: "no operation is performed" (CUDA Runtime API,
  // cudaFree), so it waits for nothing. It is the idiom that makes CUDA initialize: on an H100 the
  // process's first call, cudaFree(NULL), took 200 ms creating the context (issue 26).
  bool frees_nothing = false;
};

// The reason this call is a stall if it blocked, or kNone for calls whose blocking is not a
// device wait (launches, allocations, queries, event records, async memsets, stream waits).
StallReason ClassifyBlockingCall(const BlockingCallFacts& facts);

// The reason this call would be a stall if it waited, for a *syncing call* (one that can block the
// host on the device whatever the timing: DESIGN.md); kNone for every other call. It is
// ClassifyBlockingCall but for async copies whose host memory is not known pageable
// (async_copy_blocked): whether those wait depends on more than the call.
StallReason ClassifySyncingCall(const BlockingCallFacts& facts);

// cudaErrorNotReady / CUDA_ERROR_NOT_READY: a query found the device still busy.
inline constexpr int32_t kResultNotReady = 600;

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_STALL_CLASSIFIER_H_
