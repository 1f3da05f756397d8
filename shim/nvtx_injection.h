// libbrrr.so as an NVTX injection library. NVTX (header-only nvtx3 in the app or a library, or
// the old libnvToolsExt) loads the library named by NVTX_INJECTION64_PATH on its first call and
// calls its InitializeInjectionNvtx2, which fills NVTX's function table with the hooks in
// nvtx_injection.cc. Each push/pop, start/end and mark becomes one HostRecord flagged
// ring::kRecordNvtx in the calling thread's ring (ring_format.h says what each field holds).
//
// Must never (hooks, on the app's hot path): allocate, lock, block, make a syscall, format text,
// throw, or lose the app's push/pop nesting level (returned whether or not anything is recorded).
#ifndef BRRR_SHIM_NVTX_INJECTION_H_
#define BRRR_SHIM_NVTX_INJECTION_H_

#include <cstdint>

extern "C" {
// The NVTX loader's entry point: `get_export_table` is that NVTX instance's nvtxGetExportTable.
// Returns 1 when the hooks are in place, 0 (NVTX turns every call into a no-op) when the table
// could not be read or this process is never profiled (a fork child).
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t export_table_id));

// Labels from languages without NVTX (brrr's Python sitecustomize calls them through ctypes for
// PyTorch's record_function): the same records as nvtxRangePushA / nvtxRangePop, on the same
// nesting level, so labels are phases and steps as NVTX ranges are. `utf8` may be NULL (an
// unnamed range). Return what nvtxRangePushA / nvtxRangePop return.
__attribute__((visibility("default"))) int brrr_label_push(const char* utf8);
__attribute__((visibility("default"))) int brrr_label_pop(void);
// Whether PyTorch's labels are hooked in this process (the sitecustomize says so once, at the first
// label, or when hooking failed): SegmentHeader.torch_annotations, torch_version and, when not
// `active`, torch_reason. The first call wins; returns 1 when it was recorded. Not a hot path.
__attribute__((visibility("default"))) int brrr_torch_annotations(const char* version, int active,
                                                                  const char* reason);
}

namespace brrr::shim {

// Points NVTX_INJECTION64_PATH at this library when it is unset (a user's own setting, e.g. another
// tool, is left alone). Run by the library constructor, before the app's first NVTX call.
void SetNvtxInjectionPath();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_NVTX_INJECTION_H_
