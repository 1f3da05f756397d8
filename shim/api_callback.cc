// CUPTI API callbacks -> host records (see api_callback.h). Enter stamps the time in the call's
// correlationData; exit writes the record. A thread inside a recorded call (callback_depth) or
// inside a hooked call (in_hook) records nothing more; inside a hooked call a driver call's
// correlation id is kept for the hooked call's record (ThreadState.hook_correlation).
//
// Must never: block, allocate, or touch the segment when the shim is not recording.
#include "shim/api_callback.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/cupti_session.h"
#include "shim/shim_runtime.h"
#include "shim/unwinder.h"

namespace brrr::shim {
namespace {

// Calls whose host stack matters: launches, copies, memsets, frees, synchronizations, queries.
// Their Python-frame category: PythonCaptureForCallback (python_policy.h).
constexpr CUpti_CallbackId kDriverIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
    CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
    CUPTI_DRIVER_TRACE_CBID_cuProfilerStart,  // capture-range markers (not recorded in a
    CUPTI_DRIVER_TRACE_CBID_cuProfilerStop,   // capture mode; see ProfilerToggle)
};

constexpr CUpti_CallbackId kRuntimeIds[] = {
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
};

// 1 for a profiler start, 2 for a stop, else 0.
int ProfilerToggleOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) return 1;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) return 2;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart) return 1;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) return 2;
  }
  return 0;
}

// In a capture mode a profiler start/stop seen here (static cudart, the driver API) is a range
// marker, never a recorded call: in cudaProfilerApi mode a stop closes the gate at its entry and
// a successful start opens it at its exit, as the hooks do for a dynamic libcudart. True when the
// call was handled so.
bool ProfilerToggle(int toggle, const CUpti_CallbackData& d) {
  const ring::CaptureMode mode = CaptureModeNow();
  if (toggle == 0 || mode == ring::CaptureMode::kAll) return false;
  if (d.callbackSite == CUPTI_API_ENTER) *d.correlationData = 0;
  if (mode != ring::CaptureMode::kProfilerApi || t_thread.in_hook != 0) return true;
  if (toggle == 2 && d.callbackSite == CUPTI_API_ENTER) CaptureCloseFromProfilerApi();
  if (toggle == 1 && d.callbackSite == CUPTI_API_EXIT && d.functionReturnValue != nullptr &&
      *static_cast<const int*>(d.functionReturnValue) == 0) {
    CaptureOpenFromProfilerApi();
  }
  return true;
}

void RecordCall(ThreadState& ts, bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData& d,
                uint64_t enter) {
  ring::HostRecord r{};
  r.enter = enter;
  r.exit = HostNow();
  r.api = static_cast<uint16_t>(ring::Api::kUnknown);
  r.flags = ring::kRecordFromCallback | (driver ? ring::kRecordDriverApi : 0u);
  r.target = cbid;
  r.correlation_id = d.correlationId;
  if (d.functionReturnValue != nullptr)
    r.result = *static_cast<const int32_t*>(d.functionReturnValue);
  if (g_runtime.stacks) {
    uint64_t pcs[ring::kMaxStackEntries];
    uint32_t depth = UnwindCallerStack(pcs, ring::kMaxStackDepth);
    if (WantPythonFrames(ts, r, PythonCaptureForCallback(driver, cbid))) {
      depth += CapturePythonFrames(pcs + depth, ring::kMaxStackEntries - depth);
    }
    if (depth != 0) {
      r.stack_id = InternStack(g_runtime.stack_slots, g_runtime.stack_slot_count, pcs, depth,
                               &g_runtime.segment.header->stacks_overflow);
    }
    // Unwound without frame pointers (DWARF) every time: timed every time.
    r.capture_ticks = CaptureTicksSince(r.exit);
  }
  AppendRecord(ts.cursor, r);
}

}  // namespace

void CUPTIAPI OnApiCallback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void* data) {
  if (data == nullptr) return;
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto& d = *static_cast<const CUpti_CallbackData*>(data);
  if (d.correlationData == nullptr) return;
  if (d.callbackSite == CUPTI_API_EXIT && !ProcessFinished()) CuptiDetachIfPending();
  if (ProfilerToggle(ProfilerToggleOf(domain, cbid), d)) return;
  ThreadState& ts = t_thread;
  if (d.callbackSite == CUPTI_API_ENTER) {
    *d.correlationData = 0;
    if (ts.in_hook != 0) {
      // A driver call inside a hooked call: not recorded, but its id is the hooked call's device
      // work's (verified on an H100: tools/gpu/join_ids_probe.sh).
      if (domain == CUPTI_CB_DOMAIN_DRIVER_API) ts.hook_correlation = d.correlationId;
      return;
    }
    if (ts.callback_depth != 0 || ProcessFinished()) return;
    if (!CaptureMayRecord()) return;  // outside every capture range
    if (!ThreadMayRecord(ts)) return;
    ts.callback_depth = 1;
    const uint64_t enter = HostNow();
    *d.correlationData = enter != 0 ? enter : 1;  // nonzero: this call is being recorded
    return;
  }
  const uint64_t enter = *d.correlationData;
  if (enter == 0) return;  // not recorded at enter (nested, hooked, or not recording)
  ts.callback_depth = 0;
  if (ts.cursor.ring == nullptr || ProcessFinished()) return;
  if (PausedDuringCall()) return;  // a pause switched CUPTI off meanwhile (capture_gate.h)
  RecordCall(ts, domain == CUPTI_CB_DOMAIN_DRIVER_API, cbid, d, enter);
}

int EnableApiCallbacks(EnableCallbackFn enable, CUpti_SubscriberHandle subscriber,
                       bool runtime_domain) {
  int enabled = 0;
  for (CUpti_CallbackId id : kDriverIds) {
    enabled += enable(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS ? 1 : 0;
  }
  if (runtime_domain) {
    for (CUpti_CallbackId id : kRuntimeIds) {
      enabled += enable(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) == CUPTI_SUCCESS ? 1 : 0;
    }
  }
  return enabled;
}

}  // namespace brrr::shim
