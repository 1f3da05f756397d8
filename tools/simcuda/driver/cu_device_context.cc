// Driver entry points: initialization, version, the one device, its primary context and
// context-wide synchronization. One context exists (the primary context of device 0); it is
// current on every thread once the driver is initialized. Must never report a second device.
#include <cstring>

#include "driver_call.h"

using simcuda::driver::DriverCall;
using simcuda::driver::PrimaryContext;

namespace {

constexpr int kDriverVersion = CUDA_VERSION;  // the toolkit the simulation was built with

CUresult ContextSynchronize(uint32_t cbid, CUcontext context) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (context != nullptr && context != PrimaryContext()) {
    return call.Return(CUDA_ERROR_INVALID_CONTEXT);
  }
  return call.Return(
      simcuda::driver::ToCuResult(simcuda_device_synchronize(call.correlation_id())));
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuInit(unsigned int flags) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuInit);
  if (flags != 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  simcuda_engine_init();
  simcuda::driver::MarkInitialized();
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDriverGetVersion(int* version) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion);
  if (version == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *version = kDriverVersion;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceGet);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (device == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (ordinal != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  *device = 0;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceGetCount(int* count) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (count == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *count = 1;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceGetName);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (name == nullptr || length <= 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  std::strncpy(name, SIMCUDA_DEVICE_NAME, static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceTotalMem_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (bytes == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  *bytes = SIMCUDA_DEVICE_TOTAL_MEMORY;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (context == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  *context = PrimaryContext();
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  // The primary context lives as long as the process in the simulation.
  return call.Return(device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

SIMCUDA_DRIVER_EXPORT CUresult cuCtxGetCurrent(CUcontext* context) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (context == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *context = PrimaryContext();
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (context != nullptr && context != PrimaryContext()) {
    return call.Return(CUDA_ERROR_INVALID_CONTEXT);
  }
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuCtxSynchronize(void) {
  return ContextSynchronize(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, nullptr);
}

SIMCUDA_DRIVER_EXPORT CUresult cuCtxSynchronize_v2(CUcontext context) {
  return ContextSynchronize(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, context);
}
