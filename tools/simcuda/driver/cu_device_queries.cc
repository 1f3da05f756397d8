// Driver entry points programs use to look at the device (deviceQueryDrv, libraries that read
// attributes through the driver): cuDeviceGetAttribute and the other per-device queries, memory
// info, and cuProfilerStart/Stop (capture-range markers for tools, reported like every call).
// Answers come from device_properties.cc, the same table as the runtime's. Must never describe a
// second device.
#include <cudaProfiler.h>
#include <driver_types.h>

#include <cstdio>

#include "device_properties.h"
#include "driver_call.h"

using simcuda::driver::DriverCall;

static_assert(static_cast<int>(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) ==
              static_cast<int>(cudaDevAttrComputeCapabilityMajor));
static_assert(static_cast<int>(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) ==
              static_cast<int>(cudaDevAttrMultiProcessorCount));
static_assert(static_cast<int>(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) ==
              static_cast<int>(cudaDevAttrMaxSharedMemoryPerBlockOptin));
static_assert(static_cast<int>(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) ==
              static_cast<int>(cudaDevAttrMemoryPoolsSupported));

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                                    CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (value == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  if (!simcuda::DeviceAttributeValue(static_cast<cudaDeviceAttr>(attribute), value)) {
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceComputeCapability);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (major == nullptr || minor == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p;
  simcuda::FillDeviceProperties(&p);
  *major = p.major;
  *minor = p.minor;
  return call.Return(CUDA_SUCCESS);
}

// One device: never a peer of itself or of anything.
SIMCUDA_DRIVER_EXPORT CUresult cuDeviceCanAccessPeer(int* can_access, CUdevice device,
                                                     CUdevice peer) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceCanAccessPeer);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (can_access == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0 || peer != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  *can_access = 0;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuDeviceGetPCIBusId);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (bus_id == nullptr || length <= 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (device != 0) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  std::snprintf(bus_id, static_cast<size_t>(length), "0000:01:00.0");
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (device == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *device = 0;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuMemGetInfo_v2);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (free_bytes == nullptr || total_bytes == nullptr) {
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  const size_t used = simcuda_device_memory_in_use();
  *total_bytes = SIMCUDA_DEVICE_TOTAL_MEMORY;
  *free_bytes = used >= SIMCUDA_DEVICE_TOTAL_MEMORY ? 0 : SIMCUDA_DEVICE_TOTAL_MEMORY - used;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuProfilerStart(void) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuProfilerStop(void) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  return call.Return(CUDA_SUCCESS);
}
