// The exported hook definitions, one per hooks.def line. Each hook: find the real function; if
// this thread may record (not re-entered, shim ready, ring claimed), take a timestamp, call the
// real function, take a timestamp, fill one HostRecord and commit it; else just forward the call.
//
// Must never (hot path): allocate, lock, block, make a syscall, format text, throw, or return
// anything but the real function's result. If the real function cannot be found it returns
// cudaErrorInitializationError, what an app without a usable runtime gets, instead of crashing.
#include <cuda_runtime_api.h>

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
}  // namespace brrr::shim

// -fno-omit-frame-pointer (CMake) makes __builtin_frame_address(0) the start of the app's chain:
// the walk's first pc is the hook's return address, in the caller.
#define BRRR_HOOK(name_, api_, per_thread_, params_, args_, extract_)              \
  extern "C" BRRR_EXPORT cudaError_t name_ params_ {                               \
    namespace s = ::brrr::shim;                                                    \
    using Fn = cudaError_t(*) params_;                                             \
    const Fn real = reinterpret_cast<Fn>(s::RealFunction(s::HookId::k_##name_));   \
    if (__builtin_expect(real == nullptr, 0)) return cudaErrorInitializationError; \
    s::ThreadState& ts = s::t_thread;                                              \
    if (ts.in_hook != 0 || !s::ThreadMayRecord(ts)) return real args_;             \
    ts.in_hook = 1;                                                                \
    const uint64_t enter = s::HostNow();                                           \
    const cudaError_t rc = real args_;                                             \
    const uint64_t exit_time = s::HostNow();                                       \
    ::brrr::ring::HostRecord r{};                                                  \
    r.enter = enter;                                                               \
    r.exit = exit_time;                                                            \
    r.result = static_cast<int32_t>(rc);                                           \
    r.api = static_cast<uint16_t>(::brrr::ring::Api::api_);                        \
    {                                                                              \
      constexpr bool kPerThread = (per_thread_) != 0;                              \
      (void)kPerThread;                                                            \
      using namespace ::brrr::shim;                                                \
      extract_;                                                                    \
    }                                                                              \
    constexpr s::PythonCapture kCapture =                                          \
        s::PythonCaptureFor(::brrr::ring::Api::api_);                              \
    s::CommitHostRecord(ts, r, __builtin_frame_address(0), kCapture);              \
    ts.in_hook = 0;                                                                \
    return rc;                                                                     \
  }
#include "shim/hooks.def"
#undef BRRR_HOOK
