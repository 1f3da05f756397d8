// Which recorded calls carry the calling thread's Python frames: copies, memsets, frees and
// synchronizations that took longer than the stall threshold, every query (polling loops are made
// of short queries), and 1 in N launches (the sampled launch sites). The category of a hooked call
// is fixed by its ring::Api, of a CUPTI-callback call by its callback id.
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
};

constexpr PythonCapture PythonCaptureFor(ring::Api api) {
  const uint16_t a = static_cast<uint16_t>(api);
  if (api == ring::Api::kCudaStreamQuery || api == ring::Api::kCudaStreamQueryPtsz ||
      api == ring::Api::kCudaEventQuery) {
    return PythonCapture::kAlways;
  }
  if (a >= 1 && a <= 10) return PythonCapture::kLaunchSample;
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
      d.python = duration_ticks >= stall_ticks;
      break;
    case PythonCapture::kAlways:
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
