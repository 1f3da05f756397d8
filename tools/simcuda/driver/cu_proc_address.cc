// cuGetProcAddress_v2 (and the older cuGetProcAddress): the way the real runtime, cuBLAS, Triton
// and PyTorch reach the driver. Takes base names without a version suffix ("cuMemAlloc", not
// "cuMemAlloc_v2") and returns the version CUDA would for the requested cudaVersion and flags:
// the _v2 entry points of this library, and the _ptsz/_ptds forms under
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM where they exist. Unknown names give
// CUDA_ERROR_NOT_FOUND with CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND; a cudaVersion older than the
// function gives CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT. Must never return a pointer to a
// function this library does not define.
#include <cudaProfiler.h>

#include <cstring>

#include "driver_call.h"

// Per-thread-default-stream forms defined in this library (cuda.h declares them only when
// CUDA_API_PER_THREAD_DEFAULT_STREAM is set).
extern "C" {
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void**);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig*, CUfunction, void**, void**);
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void*, size_t);
CUresult cuMemcpyDtoH_v2_ptds(void*, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpy_ptds(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void*, size_t, CUstream);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void*, CUdeviceptr, size_t, CUstream);
CUresult cuStreamSynchronize_ptsz(CUstream);
CUresult cuStreamQuery_ptsz(CUstream);
CUresult cuStreamWaitEvent_ptsz(CUstream, CUevent, unsigned);
CUresult cuEventRecord_ptsz(CUevent, CUstream);
}

namespace {

using simcuda::driver::DriverCall;

struct ProcEntry {
  const char* name;  // base name, as callers ask for it
  int since;         // oldest cudaVersion this version of the function answers
  void* function;
  void* per_thread;  // the _ptsz/_ptds form, or nullptr when the function has none
};

template <typename F>
void* Fn(F* f) {
  return reinterpret_cast<void*>(f);
}

const ProcEntry* Find(const char* name) {
  static const ProcEntry kEntries[] = {
      {"cuInit", 2000, Fn(&cuInit), nullptr},
      {"cuDriverGetVersion", 2020, Fn(&cuDriverGetVersion), nullptr},
      {"cuDeviceGet", 2000, Fn(&cuDeviceGet), nullptr},
      {"cuDeviceGetCount", 2000, Fn(&cuDeviceGetCount), nullptr},
      {"cuDeviceGetName", 2000, Fn(&cuDeviceGetName), nullptr},
      {"cuDeviceTotalMem", 3020, Fn(&cuDeviceTotalMem_v2), nullptr},
      {"cuDevicePrimaryCtxRetain", 7000, Fn(&cuDevicePrimaryCtxRetain), nullptr},
      {"cuDevicePrimaryCtxRelease", 11000, Fn(&cuDevicePrimaryCtxRelease_v2), nullptr},
      {"cuCtxGetCurrent", 4000, Fn(&cuCtxGetCurrent), nullptr},
      {"cuCtxSetCurrent", 4000, Fn(&cuCtxSetCurrent), nullptr},
      {"cuCtxSynchronize", 2000, Fn(&cuCtxSynchronize), nullptr},
      {"cuModuleLoadData", 2000, Fn(&cuModuleLoadData), nullptr},
      {"cuModuleUnload", 2000, Fn(&cuModuleUnload), nullptr},
      {"cuModuleGetFunction", 2000, Fn(&cuModuleGetFunction), nullptr},
      {"cuKernelGetFunction", 12000, Fn(&cuKernelGetFunction), nullptr},
      {"cuLaunchKernel", 4000, Fn(&cuLaunchKernel), Fn(&cuLaunchKernel_ptsz)},
      {"cuLaunchKernelEx", 11060, Fn(&cuLaunchKernelEx), Fn(&cuLaunchKernelEx_ptsz)},
      {"cuLaunchCooperativeKernel", 9000, Fn(&cuLaunchCooperativeKernel),
       Fn(&cuLaunchCooperativeKernel_ptsz)},
      {"cuMemAlloc", 3020, Fn(&cuMemAlloc_v2), nullptr},
      {"cuMemFree", 3020, Fn(&cuMemFree_v2), nullptr},
      {"cuMemcpy", 4000, Fn(&cuMemcpy), Fn(&cuMemcpy_ptds)},
      {"cuMemcpyHtoD", 3020, Fn(&cuMemcpyHtoD_v2), Fn(&cuMemcpyHtoD_v2_ptds)},
      {"cuMemcpyDtoH", 3020, Fn(&cuMemcpyDtoH_v2), Fn(&cuMemcpyDtoH_v2_ptds)},
      {"cuMemcpyDtoD", 3020, Fn(&cuMemcpyDtoD_v2), Fn(&cuMemcpyDtoD_v2_ptds)},
      {"cuMemcpyAsync", 4000, Fn(&cuMemcpyAsync), Fn(&cuMemcpyAsync_ptsz)},
      {"cuMemcpyHtoDAsync", 3020, Fn(&cuMemcpyHtoDAsync_v2), Fn(&cuMemcpyHtoDAsync_v2_ptsz)},
      {"cuMemcpyDtoHAsync", 3020, Fn(&cuMemcpyDtoHAsync_v2), Fn(&cuMemcpyDtoHAsync_v2_ptsz)},
      {"cuMemsetD8", 3020, Fn(&cuMemsetD8_v2), nullptr},
      {"cuMemsetD8Async", 3020, Fn(&cuMemsetD8Async), nullptr},
      {"cuStreamCreate", 2000, Fn(&cuStreamCreate), nullptr},
      {"cuStreamDestroy", 4000, Fn(&cuStreamDestroy_v2), nullptr},
      {"cuStreamSynchronize", 2000, Fn(&cuStreamSynchronize), Fn(&cuStreamSynchronize_ptsz)},
      {"cuStreamQuery", 2000, Fn(&cuStreamQuery), Fn(&cuStreamQuery_ptsz)},
      {"cuStreamWaitEvent", 3020, Fn(&cuStreamWaitEvent), Fn(&cuStreamWaitEvent_ptsz)},
      {"cuEventCreate", 2000, Fn(&cuEventCreate), nullptr},
      {"cuEventRecord", 2000, Fn(&cuEventRecord), Fn(&cuEventRecord_ptsz)},
      {"cuEventQuery", 2000, Fn(&cuEventQuery), nullptr},
      {"cuEventSynchronize", 2000, Fn(&cuEventSynchronize), nullptr},
      {"cuEventElapsedTime", 12080, Fn(&cuEventElapsedTime_v2), nullptr},
      {"cuEventDestroy", 4000, Fn(&cuEventDestroy_v2), nullptr},
      {"cuDeviceGetAttribute", 2000, Fn(&cuDeviceGetAttribute), nullptr},
      {"cuDeviceComputeCapability", 2000, Fn(&cuDeviceComputeCapability), nullptr},
      {"cuDeviceCanAccessPeer", 4000, Fn(&cuDeviceCanAccessPeer), nullptr},
      {"cuDeviceGetPCIBusId", 4010, Fn(&cuDeviceGetPCIBusId), nullptr},
      {"cuCtxGetDevice", 2000, Fn(&cuCtxGetDevice), nullptr},
      {"cuMemGetInfo", 3020, Fn(&cuMemGetInfo_v2), nullptr},
      {"cuProfilerStart", 4000, Fn(&cuProfilerStart), nullptr},
      {"cuProfilerStop", 4000, Fn(&cuProfilerStop), nullptr},
      {"cuGetErrorName", 6000, Fn(&cuGetErrorName), nullptr},
      {"cuGetErrorString", 6000, Fn(&cuGetErrorString), nullptr},
      {"cuGetProcAddress", 12000, Fn(&cuGetProcAddress_v2), nullptr},
  };
  for (const ProcEntry& entry : kEntries) {
    if (std::strcmp(entry.name, name) == 0) return &entry;
  }
  return nullptr;
}

CUresult Lookup(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  constexpr cuuint64_t kKnownFlags =
      CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if (symbol == nullptr || pfn == nullptr || (flags & ~kKnownFlags) != 0 || cuda_version <= 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pfn = nullptr;
  const ProcEntry* entry = Find(symbol);
  if (entry == nullptr) {
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  if (cuda_version < entry->since) {
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_ERROR_NOT_FOUND;
  }
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  *pfn = per_thread && entry->per_thread != nullptr ? entry->per_thread : entry->function;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                                   cuuint64_t flags,
                                                   CUdriverProcAddressQueryResult* status) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2);
  return call.Return(Lookup(symbol, pfn, cuda_version, flags, status));
}

// The CUDA 11.3 form, still exported by real drivers for old binaries.
#undef cuGetProcAddress
SIMCUDA_DRIVER_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                                cuuint64_t flags) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress);
  return call.Return(Lookup(symbol, pfn, cuda_version, flags, nullptr));
}
