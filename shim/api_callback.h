// Host records for CUDA calls the runtime-symbol hooks cannot see: calls of a statically linked
// cudart and driver API calls (cuLaunchKernel, cuMemcpy*, cu*Synchronize, ...), taken from CUPTI
// API callbacks on the calling thread, with a native stack (libunwind: the callback runs inside
// libcupti and libcuda). The record carries the call's CUPTI callback id and correlation id
// (HostRecordFlags kRecordFromCallback), so the collector joins it to the call's CUPTI record
// exactly and counts the call once. Calls inside a hooked call, and calls a recorded call makes
// (runtime -> driver), are not recorded again.
//
// Must never: record after the process finished (CUPTI keeps calling back during teardown), wait,
// lock, or allocate (unw_backtrace uses its own per-thread cache).
#ifndef BRRR_SHIM_API_CALLBACK_H_
#define BRRR_SHIM_API_CALLBACK_H_

#include <cupti_callbacks.h>

namespace brrr::shim {

// The CUPTI subscriber callback.
void CUPTIAPI OnApiCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void* data);

// Enables the callbacks brrr records through `enable` (cuptiEnableCallback). Runtime callbacks
// only when `runtime_domain` (no dynamic libcudart, whose calls the hooks see). Returns how many
// callback ids were enabled.
using EnableCallbackFn = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId);
int EnableApiCallbacks(EnableCallbackFn enable, CUpti_SubscriberHandle subscriber,
                       bool runtime_domain);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_API_CALLBACK_H_
