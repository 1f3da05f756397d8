// Which ring::Api numbers this build knows. See known_api.h.
//
// Must never: fall out of step with ring_format.h's enum (the switch lists every enumerator; the
// unit test checks the count).
#include "collector/ingest/known_api.h"

namespace brrr::ingest {

using ring::Api;

bool IsKnownApi(uint16_t value) {
  switch (static_cast<Api>(value)) {
    case Api::kCudaLaunchKernelInternal:
    case Api::kCudaLaunchKernelInternalPtsz:
    case Api::kCudaLaunchKernel:
    case Api::kCudaLaunchKernelPtsz:
    case Api::kCudaLaunchKernelExC:
    case Api::kCudaLaunchKernelExCPtsz:
    case Api::kCudaLaunchCooperativeKernel:
    case Api::kCudaLaunchCooperativeKernelPtsz:
    case Api::kCudaGraphLaunch:
    case Api::kCudaGraphLaunchPtsz:
    case Api::kCudaMemcpy:
    case Api::kCudaMemcpyPtds:
    case Api::kCudaMemcpyAsync:
    case Api::kCudaMemcpyAsyncPtsz:
    case Api::kCudaMemcpy2D:
    case Api::kCudaMemcpy2DPtds:
    case Api::kCudaMemcpy2DAsync:
    case Api::kCudaMemcpy2DAsyncPtsz:
    case Api::kCudaMemcpy3D:
    case Api::kCudaMemcpy3DPtds:
    case Api::kCudaMemcpy3DAsync:
    case Api::kCudaMemcpy3DAsyncPtsz:
    case Api::kCudaMemcpyPeer:
    case Api::kCudaMemcpyPeerAsync:
    case Api::kCudaMemcpyToSymbol:
    case Api::kCudaMemcpyToSymbolPtds:
    case Api::kCudaMemcpyFromSymbol:
    case Api::kCudaMemcpyFromSymbolPtds:
    case Api::kCudaMemcpyToSymbolAsync:
    case Api::kCudaMemcpyToSymbolAsyncPtsz:
    case Api::kCudaMemcpyFromSymbolAsync:
    case Api::kCudaMemcpyFromSymbolAsyncPtsz:
    case Api::kCudaMemset:
    case Api::kCudaMemsetPtds:
    case Api::kCudaMemsetAsync:
    case Api::kCudaMemsetAsyncPtsz:
    case Api::kCudaMemset2D:
    case Api::kCudaMemset2DAsync:
    case Api::kCudaMemset3D:
    case Api::kCudaMemset3DAsync:
    case Api::kCudaMalloc:
    case Api::kCudaMallocHost:
    case Api::kCudaHostAlloc:
    case Api::kCudaMallocManaged:
    case Api::kCudaMallocPitch:
    case Api::kCudaMallocAsync:
    case Api::kCudaMallocAsyncPtsz:
    case Api::kCudaHostRegister:
    case Api::kCudaFree:
    case Api::kCudaFreeHost:
    case Api::kCudaFreeAsync:
    case Api::kCudaFreeAsyncPtsz:
    case Api::kCudaHostUnregister:
    case Api::kCudaStreamSynchronize:
    case Api::kCudaStreamSynchronizePtsz:
    case Api::kCudaDeviceSynchronize:
    case Api::kCudaEventSynchronize:
    case Api::kCudaStreamWaitEvent:
    case Api::kCudaStreamWaitEventPtsz:
    case Api::kCudaStreamQuery:
    case Api::kCudaStreamQueryPtsz:
    case Api::kCudaEventQuery:
    case Api::kCudaEventRecord:
    case Api::kCudaEventRecordPtsz:
    case Api::kCudaEventRecordWithFlags:
    case Api::kCudaEventRecordWithFlagsPtsz:
    case Api::kCudaProfilerStart:
    case Api::kCudaProfilerStop:
      return true;
    default:
      return false;
  }
}

int KnownApiCount() {
  int count = 0;
  for (uint32_t v = 0; v < static_cast<uint32_t>(Api::kApiCount); ++v) count += IsKnownApi(v);
  return count;
}

}  // namespace brrr::ingest
