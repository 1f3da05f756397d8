// The exported hook definitions, one per hooks.def line. Each hook: find the real function; if the
// capture gate is open (capture_gate.h: one relaxed load) and this thread may record (not
// re-entered, shim ready, ring claimed), take a timestamp, call the
// real function, take a timestamp, fill one HostRecord (with the correlation id of the driver call
// that brrr's CUPTI callback saw inside it, if any) and commit it (not when a pause turned CUPTI
// off during the call: capture_gate.h); else just forward the call.
//
// Must never (hot path): allocate, lock, block, make a syscall, format text, throw, or return
// anything but the real function's result. If the real function cannot be found it returns
// cudaErrorInitializationError, what an app without a usable runtime gets, instead of crashing.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "shim/capture_gate.h"
#include "shim/clock.h"
#include "shim/hook_extract.h"
#include "shim/hook_table.h"
#include "shim/real_functions.h"
#include "shim/shim_runtime.h"

#define BRRR_EXPORT __attribute__((visibility("default")))

// Declarations with the real prototypes; for the plain names they must agree with
// cuda_runtime_api.h (the compiler checks), the _ptds/_ptsz names are not declared there without
// CUDA_API_PER_THREAD_DEFAULT_STREAM, nor __cudaLaunchKernel outside nvcc.
extern "C" {
#define BRRR_HOOK(name, api, per_thread, params, args, extract) BRRR_EXPORT cudaError_t name params;
#include "shim/hooks.def"
#undef BRRR_HOOK
}

namespace brrr::shim {
PinnedRanges g_pinned_ranges;

namespace {

// cudaProfilerStart/Stop in a capture mode: they move the capture gate and are not recorded.
// cudaProfilerApi: Start opens the gate after the real call, Stop closes it before (the calls'
// CUPTI records are the filter's markers). nvtx: NVTX ranges decide; the app's own calls are not
// passed on, so that the only markers are the gate's. Other hooks: nothing (kNone).
enum class CaptureToggleKind { kNone, kStart, kStop };

template <CaptureToggleKind kToggle, class Fn>
inline bool CaptureToggle(Fn real, cudaError_t* rc) {
  if constexpr (kToggle == CaptureToggleKind::kNone) {
    return false;
  } else {
    const ::brrr::ring::CaptureMode mode = CaptureModeNow();
    if (mode == ::brrr::ring::CaptureMode::kAll) return false;
    if (mode == ::brrr::ring::CaptureMode::kNvtx) {
      *rc = cudaSuccess;
      return true;
    }
    if constexpr (kToggle == CaptureToggleKind::kStart) {
      // A process whose first recorded call comes only after this start (no device code in the
      // executable, e.g. Python) sets up its segment and CUPTI now: the start's CUPTI record is
      // the filter's marker and the range counts in the header.
      ThreadState& ts = t_thread;
      if (ts.in_hook == 0) ThreadMayRecord(ts);
    }
    if constexpr (kToggle == CaptureToggleKind::kStop) CaptureCloseFromProfilerApi();
    *rc = real();
    if constexpr (kToggle == CaptureToggleKind::kStart) {
      if (*rc == cudaSuccess) CaptureOpenFromProfilerApi();
    }
    return true;
  }
}

constexpr CaptureToggleKind CaptureToggleOf(::brrr::ring::Api api) {
  return api == ::brrr::ring::Api::kCudaProfilerStart  ? CaptureToggleKind::kStart
         : api == ::brrr::ring::Api::kCudaProfilerStop ? CaptureToggleKind::kStop
                                                       : CaptureToggleKind::kNone;
}

}  // namespace
}  // namespace brrr::shim

// -fno-omit-frame-pointer (CMake) makes __builtin_frame_address(0) the start of the app's chain:
// the walk's first pc is the hook's return address, in the caller.
#define BRRR_HOOK(name_, api_, per_thread_, params_, args_, extract_)                   \
  extern "C" BRRR_EXPORT cudaError_t name_ params_ {                                    \
    namespace s = ::brrr::shim;                                                         \
    using Fn = cudaError_t(*) params_;                                                  \
    const Fn real = reinterpret_cast<Fn>(s::RealFunction(s::HookId::k_##name_));        \
    if (__builtin_expect(real == nullptr, 0)) return cudaErrorInitializationError;      \
    {                                                                                   \
      constexpr auto kToggle = s::CaptureToggleOf(::brrr::ring::Api::api_);             \
      cudaError_t toggled;                                                              \
      if (s::CaptureToggle<kToggle>(real, &toggled)) return toggled;                    \
    }                                                                                   \
    if (__builtin_expect(!s::CaptureMayRecord(), 0)) return real args_;                 \
    s::ThreadState& ts = s::t_thread;                                                   \
    if (ts.in_hook != 0) return real args_;                                             \
    ts.in_hook = 1; /* the driver calls inside are this call's (api_callback.h) */      \
    if (__builtin_expect(!s::ThreadMayRecord(ts), 0)) {                                 \
      const cudaError_t passed = real args_;                                            \
      ts.in_hook = 0;                                                                   \
      return passed;                                                                    \
    }                                                                                   \
    ts.hook_correlation = 0;                                                            \
    const uint64_t enter = s::HostNow();                                                \
    const cudaError_t rc = real args_;                                                  \
    if (__builtin_expect(s::PausedDuringCall(), 0)) {                                   \
      ts.in_hook = 0;                                                                   \
      return rc;                                                                        \
    }                                                                                   \
    const uint64_t exit_time = s::HostNow();                                            \
    ::brrr::ring::HostRecord r{};                                                       \
    r.enter = enter;                                                                    \
    r.exit = exit_time;                                                                 \
    r.result = static_cast<int32_t>(rc);                                                \
    r.api = static_cast<uint16_t>(::brrr::ring::Api::api_);                             \
    {                                                                                   \
      constexpr bool kPerThread = (per_thread_) != 0;                                   \
      (void)kPerThread;                                                                 \
      using namespace ::brrr::shim;                                                     \
      extract_;                                                                         \
    }                                                                                   \
    if (ts.hook_correlation != 0) {                                                     \
      r.correlation_id = ts.hook_correlation;                                           \
      r.flags |= ::brrr::ring::kRecordCorrelationFromDriver;                            \
    }                                                                                   \
    constexpr s::PythonCapture kCapture = s::PythonCaptureFor(::brrr::ring::Api::api_); \
    s::CommitHostRecord(ts, r, __builtin_frame_address(0), kCapture);                   \
    ts.in_hook = 0;                                                                     \
    return rc;                                                                          \
  }
#include "shim/hooks.def"
#undef BRRR_HOOK
