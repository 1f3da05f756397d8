// Native stacks for code that may lack frame pointers: libunwind's unw_backtrace, reached through
// dlopen(RTLD_LOCAL) so that the app's own unwinder and C++ exception ABI stay untouched (DESIGN
// fact 6). Used where the frame-pointer walk cannot cross the frames: a CUPTI API callback runs
// inside libcupti and libcuda, which are built without frame pointers; a stall or a sampled launch
// in a release build (no frame pointers: the walk stops after a frame or two).
//
// Must never: be loaded on the hot path (LoadUnwinder runs at initialization and CUPTI setup), or
// be linked.
#ifndef BRRR_SHIM_UNWINDER_H_
#define BRRR_SHIM_UNWINDER_H_

#include <cstdint>

namespace brrr::shim {

// Loads libunwind.so.8 once. False when it is not installed (stacks then come from the
// frame-pointer walk, which may stop early).
bool LoadUnwinder();

// The calling thread's return addresses, innermost first (the caller of this function first);
// 0 when the unwinder is not loaded.
uint32_t UnwindCallerStack(uint64_t* pcs, uint32_t max_depth);

// A hook's stack when the frame-pointer walk (`fp_depth` pcs already in `pcs`, the hook's return
// address first) may have stopped early: libunwind's walk from the hook, its leading frames inside
// libbrrr.so dropped, replaces it when it is deeper. Returns the depth kept (<= max_depth). For
// stalls and sampled launches only (a few microseconds); fp_depth when the unwinder is not loaded.
uint32_t UnwindPastFramePointers(uint64_t* pcs, uint32_t fp_depth, uint32_t max_depth);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_UNWINDER_H_
