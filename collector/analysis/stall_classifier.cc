// Stall reasons by API (hooked calls) or by CUPTI name (calls seen only through CUPTI).
//
// Must never: classify a call that cannot wait for the device as a stall (a free of NULL frees
// nothing and waits for nothing).
#include "collector/analysis/stall_classifier.h"

#include "collector/analysis/api_catalog.h"

namespace brrr {
namespace {

StallReason ClassifyHooked(const BlockingCallFacts& f) {
  if (IsSynchronousCopy(f.api)) {
    return f.copy_kind == CopyKind::kDtoH ? StallReason::kD2hCopy : StallReason::kSyncCopy;
  }
  if (IsAsyncCopy(f.api)) {
    return (f.host_memory == HostMemory::kPageable || f.pageable_evidence)
               ? StallReason::kPageableAsyncCopy
               : StallReason::kAsyncCopyBlocked;
  }
  switch (f.api) {
    case Api::kCudaMemset:
    case Api::kCudaMemsetPtds:
    case Api::kCudaMemset2D:
    case Api::kCudaMemset3D:
      return StallReason::kSyncMemset;
    case Api::kCudaFree:
    case Api::kCudaFreeHost:
      return f.frees_nothing ? StallReason::kNone : StallReason::kFreeSyncsDevice;
    case Api::kCudaHostUnregister:
      return StallReason::kFreeSyncsDevice;
    case Api::kCudaStreamSynchronize:
    case Api::kCudaStreamSynchronizePtsz:
      return StallReason::kStreamSync;
    case Api::kCudaDeviceSynchronize:
      return StallReason::kDeviceSync;
    case Api::kCudaEventSynchronize:
      return StallReason::kEventSync;
    default:
      return StallReason::kNone;
  }
}

// Runtime ("cudaMemcpy2DFromArray", "cudaThreadSynchronize") and driver ("cuMemcpyDtoH_v2",
// "cuCtxSynchronize", "cuMemFree_v2") names share enough structure to classify by substrings.
StallReason ClassifyByName(const BlockingCallFacts& f) {
  std::string_view n = f.cupti_name;
  auto has = [&](std::string_view part) { return n.find(part) != std::string_view::npos; };
  if (has("Memcpy")) {
    if (has("Async")) {
      return f.pageable_evidence ? StallReason::kPageableAsyncCopy : StallReason::kAsyncCopyBlocked;
    }
    return (has("DtoH") || has("FromSymbol") || f.copy_kind == CopyKind::kDtoH)
               ? StallReason::kD2hCopy
               : StallReason::kSyncCopy;
  }
  if (has("Synchronize")) {
    if (has("Stream")) return StallReason::kStreamSync;
    if (has("Event")) return StallReason::kEventSync;
    return StallReason::kDeviceSync;  // cudaDeviceSynchronize, cudaThreadSynchronize, cuCtx...
  }
  if (has("Memset") && !has("Async")) return StallReason::kSyncMemset;
  if (has("Free") && !has("Async") && !has("FreeHost") && !has("Pool")) {
    return StallReason::kFreeSyncsDevice;
  }
  if (has("FreeHost") || has("HostUnregister")) return StallReason::kFreeSyncsDevice;
  return StallReason::kNone;
}

}  // namespace

StallReason StallReasonFromName(std::string_view name) {
  for (int i = 1; i < static_cast<int>(StallReason::kCount); ++i) {
    if (StallReasonName(static_cast<StallReason>(i)) == name) return static_cast<StallReason>(i);
  }
  return StallReason::kNone;
}

std::string_view StallReasonName(StallReason reason) {
  switch (reason) {
    case StallReason::kNone:
      return "none";
    case StallReason::kD2hCopy:
      return "d2h_copy";
    case StallReason::kSyncCopy:
      return "sync_copy";
    case StallReason::kPageableAsyncCopy:
      return "pageable_async_copy";
    case StallReason::kAsyncCopyBlocked:
      return "async_copy_blocked";
    case StallReason::kSyncMemset:
      return "sync_memset";
    case StallReason::kFreeSyncsDevice:
      return "free_syncs_device";
    case StallReason::kStreamSync:
      return "stream_sync";
    case StallReason::kDeviceSync:
      return "device_sync";
    case StallReason::kEventSync:
      return "event_sync";
    case StallReason::kQueryPoll:
      return "query_poll";
    case StallReason::kCount:
      break;
  }
  return "none";
}

StallReason ClassifyBlockingCall(const BlockingCallFacts& facts) {
  if (facts.api != Api::kUnknown) return ClassifyHooked(facts);
  if (facts.cupti_name.empty()) return StallReason::kNone;
  return ClassifyByName(facts);
}

StallReason ClassifySyncingCall(const BlockingCallFacts& facts) {
  const StallReason reason = ClassifyBlockingCall(facts);
  return reason == StallReason::kAsyncCopyBlocked ? StallReason::kNone : reason;
}

}  // namespace brrr
