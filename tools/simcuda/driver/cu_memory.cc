// Driver entry points for device memory, copies and memsets (with the _ptds/_ptsz forms). The
// engine applies CUDA's blocking rules: synchronous copies with a host side wait for the copy
// (and so for earlier work of the legacy stream); device-to-device copies and async copies
// between device and pinned memory do not wait; cuMemFree waits for the device. Must never touch
// the bytes here: they move on the device thread.
#include "driver_call.h"

using simcuda::driver::DriverCall;
using simcuda::driver::ToCuResult;

namespace {

void* AsPointer(CUdeviceptr ptr) { return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)); }

CUresult Copy(uint32_t cbid, void* dst, const void* src, size_t bytes, int kind, CUstream stream,
              bool async, bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  simcuda_stream* target = simcuda::driver::ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(ToCuResult(
      simcuda_memcpy(target, dst, src, bytes, kind, async ? 1 : 0, call.correlation_id())));
}

CUresult Set(uint32_t cbid, CUdeviceptr dst, unsigned char value, size_t count, CUstream stream,
             bool async, bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  simcuda_stream* target = simcuda::driver::ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  return call.Return(ToCuResult(
      simcuda_memset(target, AsPointer(dst), value, count, async ? 1 : 0, call.correlation_id())));
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (ptr == nullptr || bytes == 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  void* allocated = nullptr;
  result = ToCuResult(simcuda_device_alloc(bytes, &allocated));
  if (result == CUDA_SUCCESS) *ptr = reinterpret_cast<uintptr_t>(allocated);
  return call.Return(result);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(ToCuResult(simcuda_device_free(AsPointer(ptr))));
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, AsPointer(dst), src, bytes,
              SIMCUDA_COPY_HOST_TO_DEVICE, nullptr, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src,
                                                    size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, AsPointer(dst), src, bytes,
              SIMCUDA_COPY_HOST_TO_DEVICE, nullptr, false, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, dst, AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_HOST, nullptr, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, dst, AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_HOST, nullptr, false, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_DEVICE, nullptr, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src,
                                                    size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_DEVICE, nullptr, false, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEFAULT, nullptr, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEFAULT, nullptr, false, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                             CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEFAULT, stream, true, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                                  CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, AsPointer(dst), AsPointer(src), bytes,
              SIMCUDA_COPY_DEFAULT, stream, true, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes,
                                                    CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, AsPointer(dst), src, bytes,
              SIMCUDA_COPY_HOST_TO_DEVICE, stream, true, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src,
                                                         size_t bytes, CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, AsPointer(dst), src, bytes,
              SIMCUDA_COPY_HOST_TO_DEVICE, stream, true, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes,
                                                    CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, dst, AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_HOST, stream, true, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t bytes,
                                                         CUstream stream) {
  return Copy(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, dst, AsPointer(src), bytes,
              SIMCUDA_COPY_DEVICE_TO_HOST, stream, true, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  return Set(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, dst, value, count, nullptr, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                               CUstream stream) {
  return Set(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, dst, value, count, stream, true, false);
}
