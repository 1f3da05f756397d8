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

// A CUPTI callback's stack: the calling thread's return addresses, innermost first, past the
// frames that deliver the callback (libbrrr.so's, libcupti's and libcuda's, which may be more than
// max_depth deep), so the first is the app's or its library's call into CUDA; the outermost
// delivering frame alone when nothing lies past them within reach. 0 when the unwinder is not
// loaded. The first call looks up libcupti and libcuda (dl_iterate_phdr, once per process).
uint32_t UnwindCallerStack(uint64_t* pcs, uint32_t max_depth);

// A hook's stack when the frame-pointer walk (`fp_depth` pcs already in `pcs`, the hook's return
// address first) may have stopped early: libunwind's walk from the hook, its leading frames inside
// libbrrr.so dropped, replaces it when it is deeper. Returns the depth kept (<= max_depth). For
// stalls and sampled launches only (a few microseconds); fp_depth when the unwinder is not loaded.
uint32_t UnwindPastFramePointers(uint64_t* pcs, uint32_t fp_depth, uint32_t max_depth);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_UNWINDER_H_
