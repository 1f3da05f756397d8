// Device queries: one device (ordinal 0) with plausible properties, versions, and kernel names.
// Must never report more than one device or a device that could run code natively.
#include <cstring>

#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

constexpr int kDriverVersion = 13000;

void FillProperties(cudaDeviceProp* p) {
  std::memset(p, 0, sizeof(*p));
  std::strncpy(p->name, SIMCUDA_DEVICE_NAME, sizeof(p->name) - 1);
  static constexpr char kUuid[16] = {'b', 'r', 'r', 'r', '-', 's', 'i', 'm',
                                     'd', 'e', 'v', 'i', 'c', 'e', '0', '0'};
  std::memcpy(p->uuid.bytes, kUuid, sizeof(kUuid));
  p->totalGlobalMem = SIMCUDA_DEVICE_TOTAL_MEMORY;
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = 132;
  p->canMapHostMemory = 1;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->pciBusID = 1;
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->hostRegisterSupported = 1;
  p->memoryPoolsSupported = 1;
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
}

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
  FillProperties(prop);
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

SIMCUDA_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  ApiCall call(simcuda::runtime::kCbid_cudaDeviceGetStreamPriorityRange);
  if (least != nullptr) *least = 0;
  if (greatest != nullptr) *greatest = -5;
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
