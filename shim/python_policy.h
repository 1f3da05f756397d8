// Which recorded calls carry the calling thread's Python frames (and, with DWARF stacks, their
// whole native stack): every syncing call (a synchronous copy, an async copy of pageable memory, a
// free, a synchronization, a synchronous memset: whatever it took, so that its site, which
// `brrr diff` gates on, does not depend on timing), other copies, memsets and event calls that
// took longer than the stall threshold, every query (polling loops are made of short queries),
// and 1 in N launches (the sampled launch sites). The category of a hooked call is fixed by its
// ring::Api (an async copy's by its host memory too), of a CUPTI-callback call by its callback id.
//
// Must never: read the clock, call into Python, or cost more than a compare and a branch for a
// call that is not captured (it runs on every recorded call).
#ifndef BRRR_SHIM_PYTHON_POLICY_H_
#define BRRR_SHIM_PYTHON_POLICY_H_

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::shim {

enum class PythonCapture : uint8_t {
  kNever = 0,         // allocations, and everything not listed
  kIfSlow = 1,        // copies, memsets, frees, synchronizations: host duration >= threshold
  kAlways = 2,        // queries
  kLaunchSample = 3,  // launches: 1 in launch_sample_period per thread
  kSyncing = 4,       // hooked syncing calls: always (collector/analysis/stall_classifier.h)
  kAsyncCopy = 5,     // hooked async copies: kSyncing from pageable memory, else kIfSlow
};

constexpr PythonCapture PythonCaptureFor(ring::Api api) {
  const uint16_t a = static_cast<uint16_t>(api);
  if (api == ring::Api::kCudaStreamQuery || api == ring::Api::kCudaStreamQueryPtsz ||
      api == ring::Api::kCudaEventQuery) {
    return PythonCapture::kAlways;
  }
  if (a >= 1 && a <= 10) return PythonCapture::kLaunchSample;
  switch (api) {
    case ring::Api::kCudaMemcpy:
    case ring::Api::kCudaMemcpyPtds:
    case ring::Api::kCudaMemcpy2D:
    case ring::Api::kCudaMemcpy2DPtds:
    case ring::Api::kCudaMemcpy3D:
    case ring::Api::kCudaMemcpy3DPtds:
    case ring::Api::kCudaMemcpyPeer:
    case ring::Api::kCudaMemcpyToSymbol:
    case ring::Api::kCudaMemcpyToSymbolPtds:
    case ring::Api::kCudaMemcpyFromSymbol:
    case ring::Api::kCudaMemcpyFromSymbolPtds:
    case ring::Api::kCudaMemset:
    case ring::Api::kCudaMemsetPtds:
    case ring::Api::kCudaMemset2D:
    case ring::Api::kCudaMemset3D:
    case ring::Api::kCudaFree:
    case ring::Api::kCudaFreeHost:
    case ring::Api::kCudaHostUnregister:
    case ring::Api::kCudaStreamSynchronize:
    case ring::Api::kCudaStreamSynchronizePtsz:
    case ring::Api::kCudaDeviceSynchronize:
    case ring::Api::kCudaEventSynchronize:
      return PythonCapture::kSyncing;
    case ring::Api::kCudaMemcpyAsync:
    case ring::Api::kCudaMemcpyAsyncPtsz:
    case ring::Api::kCudaMemcpy2DAsync:
    case ring::Api::kCudaMemcpy2DAsyncPtsz:
    case ring::Api::kCudaMemcpy3DAsync:
    case ring::Api::kCudaMemcpy3DAsyncPtsz:
    case ring::Api::kCudaMemcpyPeerAsync:
    case ring::Api::kCudaMemcpyToSymbolAsync:
    case ring::Api::kCudaMemcpyToSymbolAsyncPtsz:
    case ring::Api::kCudaMemcpyFromSymbolAsync:
    case ring::Api::kCudaMemcpyFromSymbolAsyncPtsz:
      return PythonCapture::kAsyncCopy;
    default:
      break;
  }
  if (a >= 20 && a <= 57) return PythonCapture::kIfSlow;  // copies, memsets
  if (a >= 80 && a <= 84) return PythonCapture::kIfSlow;  // frees
  if (a >= 100 && a <= 112) return PythonCapture::kIfSlow;  // synchronization, event record
  return PythonCapture::kNever;
}

// The same for a call seen through a CUPTI API callback.
constexpr PythonCapture PythonCaptureForCallback(bool driver, uint32_t cbid) {
  if (driver) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
        return PythonCapture::kLaunchSample;
      case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
      case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
        return PythonCapture::kAlways;
      default:
        return PythonCapture::kIfSlow;  // the other enabled ids: copies, frees, syncs
    }
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
      return PythonCapture::kLaunchSample;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      return PythonCapture::kAlways;
    default:
      return PythonCapture::kIfSlow;
  }
}

// A hooked call's category once its record is filled: an async copy of pageable host memory is
// a syncing call (the host waits for the staging), other async copies are not.
constexpr PythonCapture PythonCaptureOfRecord(PythonCapture capture, ring::HostMemory host_memory) {
  if (capture != PythonCapture::kAsyncCopy) return capture;
  return host_memory == ring::HostMemory::kPageable ? PythonCapture::kSyncing
                                                    : PythonCapture::kIfSlow;
}

// Per-call decision. `launch_count` is the thread's launch counter (kept between calls).
struct PythonCaptureDecision {
  bool python = false;         // append the thread's Python frames to the stack
  bool launch_sample = false;  // set ring::kRecordLaunchSample
};

inline PythonCaptureDecision DecidePythonCapture(PythonCapture capture, uint64_t duration_ticks,
                                                 uint64_t stall_ticks, uint32_t sample_period,
                                                 uint32_t* launch_count) {
  PythonCaptureDecision d;
  switch (capture) {
    case PythonCapture::kNever:
      break;
    case PythonCapture::kIfSlow:
    case PythonCapture::kAsyncCopy:
      d.python = duration_ticks >= stall_ticks;
      break;
    case PythonCapture::kAlways:
    case PythonCapture::kSyncing:
      d.python = true;
      break;
    case PythonCapture::kLaunchSample:
      if (sample_period != 0 && ++*launch_count >= sample_period) {
        *launch_count = 0;
        d.python = true;
        d.launch_sample = true;
      }
      break;
  }
  return d;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_PYTHON_POLICY_H_
