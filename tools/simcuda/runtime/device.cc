// Device queries: one device (ordinal 0) with H100-like properties and attributes, versions, peer
// access, and kernel names.
// Must never report more than one device or a device that could run code natively.
#include <cstdio>
#include <cstring>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

constexpr int kDriverVersion = 13000;

}  // namespace

SIMCUDA_EXPORT cudaError_t cudaGetDeviceCount(int* count) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetDeviceCount);
  if (count == nullptr) return call.Return(cudaErrorInvalidValue);
  *count = 1;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaGetDevice(int* device) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetDevice);
  if (device == nullptr) return call.Return(cudaErrorInvalidValue);
  *device = 0;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaSetDevice(int device) {
  ApiCall call(simcuda::runtime::kCbid_cudaSetDevice);
  return call.Return(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

SIMCUDA_EXPORT cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetDeviceProperties);
  if (prop == nullptr) return call.Return(cudaErrorInvalidValue);
  if (device != 0) return call.Return(cudaErrorInvalidDevice);
  simcuda_device_properties(prop);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDriverGetVersion(int* version) {
  ApiCall call(simcuda::runtime::kCbid_cudaDriverGetVersion);
  if (version == nullptr) return call.Return(cudaErrorInvalidValue);
  *version = kDriverVersion;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaRuntimeGetVersion(int* version) {
  ApiCall call(simcuda::runtime::kCbid_cudaRuntimeGetVersion);
  if (version == nullptr) return call.Return(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetAttribute);
  if (value == nullptr) return call.Return(cudaErrorInvalidValue);
  if (device != 0) return call.Return(cudaErrorInvalidDevice);
  if (simcuda_device_attribute(static_cast<int>(attr), value) == 0) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(cudaSuccess);
}

// One device: there is no peer (the real runtime also answers 0 for a device and itself).
SIMCUDA_EXPORT cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceCanAccessPeer);
  if (can_access == nullptr) return call.Return(cudaErrorInvalidValue);
  if (device != 0 || peer != 0) return call.Return(cudaErrorInvalidDevice);
  *can_access = 0;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetPCIBusId);
  if (bus_id == nullptr || length <= 0) return call.Return(cudaErrorInvalidValue);
  if (device != 0) return call.Return(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(length), "0000:01:00.0");
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  ApiCall call(simcuda::runtime::kCbid_cudaChooseDevice);
  if (device == nullptr || prop == nullptr) return call.Return(cudaErrorInvalidValue);
  *device = 0;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetStreamPriorityRange);
  if (least != nullptr) *least = 0;
  if (greatest != nullptr) *greatest = SIMCUDA_GREATEST_STREAM_PRIORITY;
  return call.Return(cudaSuccess);
}

// Returns the mangled device name, as the real runtime does (e.g. "_Z4tinyPf"). `function` may be
// a host stub address or a cudaKernel_t.
SIMCUDA_EXPORT cudaError_t cudaFuncGetName(const char** name, const void* function) {
  ApiCall call(simcuda::runtime::kCbid_cudaFuncGetName);
  if (name == nullptr) return call.Return(cudaErrorInvalidValue);
  const simcuda_kernel* kernel = simcuda_kernel_lookup(function);
  if (kernel == nullptr) return call.Return(cudaErrorInvalidDeviceFunction);
  *name = simcuda_kernel_name(kernel);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                  enum cudaChannelFormatKind f) {
  ApiCall call(simcuda::runtime::kCbid_cudaCreateChannelDesc);
  call.Finish();
  return cudaChannelFormatDesc{x, y, z, w, f};
}
