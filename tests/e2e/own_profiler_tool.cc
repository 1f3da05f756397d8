// The CUPTI tool of e2e_own_profiler, in a library of its own that the app dlopen()s RTLD_LOCAL,
// as Python loads PyTorch's libtorch_cuda.so with its kineto and its own libcupti: that libcupti
// is then in a local scope, where dlsym(RTLD_NEXT) from libbrrr.so does not find it (seen on an
// H200: torch.profiler got no CUPTI at all until the shim looked the real functions up through
// the caller's object).
#include <cupti.h>

#include <cstdlib>

namespace {

int g_kernels = 0;

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernels;
  }
  free(buffer);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace

extern "C" {

// CUPTI_SUCCESS (0) when the tool has CUPTI, else the failing result.
int OwnToolStart() {
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult r = cuptiSubscribe(&subscriber, &OnCallback, nullptr);
  if (r != CUPTI_SUCCESS) return static_cast<int>(r);
  if (cuptiActivityRegisterCallbacks(&Requested, &Completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    return static_cast<int>(CUPTI_ERROR_UNKNOWN);
  }
  return 0;
}

// Flushes and returns the kernel records received so far.
int OwnToolKernels() {
  cuptiActivityFlushAll(1);
  return g_kernels;
}

}  // extern "C"
