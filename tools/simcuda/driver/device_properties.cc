// H100 SXM-like device properties and every cudaDeviceAttr derived from them (see
// device_properties.h), and their engine API. Values that cudaDeviceProp has are read from the
// filled struct, so the views cannot drift apart. Must never allocate or block.
#include "device_properties.h"

#include <cstring>

#include "simcuda/engine.h"

SIMCUDA_ENGINE_API void simcuda_device_properties(void* out) {
  simcuda::FillDeviceProperties(static_cast<cudaDeviceProp*>(out));
}

SIMCUDA_ENGINE_API int simcuda_device_attribute(int attr, int* value) {
  if (value == nullptr) return 0;
  return simcuda::DeviceAttributeValue(static_cast<cudaDeviceAttr>(attr), value) ? 1 : 0;
}

namespace simcuda {

void FillDeviceProperties(cudaDeviceProp* p) {
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
  p->integrated = 0;
  p->canMapHostMemory = 1;
  p->maxTexture1D = 131072;
  p->maxTexture1DMipmap = 32768;
  p->maxTexture2D[0] = 131072;
  p->maxTexture2D[1] = 65536;
  p->maxTexture2DMipmap[0] = 32768;
  p->maxTexture2DMipmap[1] = 32768;
  p->maxTexture2DLinear[0] = 131072;
  p->maxTexture2DLinear[1] = 65000;
  p->maxTexture2DLinear[2] = 2097120;
  p->maxTexture2DGather[0] = 32768;
  p->maxTexture2DGather[1] = 32768;
  p->maxTexture3D[0] = 16384;
  p->maxTexture3D[1] = 16384;
  p->maxTexture3D[2] = 16384;
  p->maxTexture3DAlt[0] = 8192;
  p->maxTexture3DAlt[1] = 8192;
  p->maxTexture3DAlt[2] = 32768;
  p->maxTextureCubemap = 32768;
  p->maxTexture1DLayered[0] = 32768;
  p->maxTexture1DLayered[1] = 2048;
  p->maxTexture2DLayered[0] = 32768;
  p->maxTexture2DLayered[1] = 32768;
  p->maxTexture2DLayered[2] = 2048;
  p->maxTextureCubemapLayered[0] = 32768;
  p->maxTextureCubemapLayered[1] = 2046;
  p->maxSurface1D = 32768;
  p->maxSurface2D[0] = 131072;
  p->maxSurface2D[1] = 65536;
  p->maxSurface3D[0] = 16384;
  p->maxSurface3D[1] = 16384;
  p->maxSurface3D[2] = 16384;
  p->maxSurface1DLayered[0] = 32768;
  p->maxSurface1DLayered[1] = 2048;
  p->maxSurface2DLayered[0] = 32768;
  p->maxSurface2DLayered[1] = 32768;
  p->maxSurface2DLayered[2] = 2048;
  p->maxSurfaceCubemap = 32768;
  p->maxSurfaceCubemapLayered[0] = 32768;
  p->maxSurfaceCubemapLayered[1] = 2046;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->pciBusID = 1;
  p->pciDeviceID = 0;
  p->pciDomainID = 0;
  p->tccDriver = 0;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->persistingL2CacheMaxSize = 31 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->isMultiGpuBoard = 0;
  p->multiGpuBoardGroupID = 0;
  p->hostNativeAtomicSupported = 0;
  p->pageableMemoryAccess = 0;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->canUseHostPointerForRegisteredMem = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->pageableMemoryAccessUsesHostPageTables = 0;
  p->directManagedMemAccessFromHost = 0;
  p->maxBlocksPerMultiProcessor = 32;
  p->accessPolicyMaxWindowSize = 134213632;
  p->reservedSharedMemPerBlock = 1024;
  p->hostRegisterSupported = 1;
  p->sparseCudaArraySupported = 1;
  p->hostRegisterReadOnlySupported = 1;
  p->timelineSemaphoreInteropSupported = 1;
  p->memoryPoolsSupported = 1;
  p->gpuDirectRDMASupported = 0;
  p->gpuDirectRDMAFlushWritesOptions = 0;
  p->gpuDirectRDMAWritesOrdering = 0;
  p->memoryPoolSupportedHandleTypes = 1;  // POSIX file descriptors
  p->deferredMappingCudaArraySupported = 1;
  p->ipcEventSupported = 1;
  p->clusterLaunch = 1;
  p->unifiedFunctionPointers = 1;
  p->deviceNumaConfig = 0;
  p->deviceNumaId = -1;
  p->mpsEnabled = 0;
  p->hostNumaId = -1;
  p->gpuPciDeviceID = 0x233010de;  // H100 SXM5 80GB: device 0x2330, vendor 0x10de
  p->gpuPciSubsystemID = 0x16c110de;
  p->hostNumaMultinodeIpcSupported = 0;
}

bool DeviceAttributeValue(cudaDeviceAttr attr, int* value) {
  cudaDeviceProp p;
  FillDeviceProperties(&p);
  auto as_int = [](size_t v) { return v > 2147483647u ? 2147483647 : static_cast<int>(v); };
  int v = 0;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      v = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      v = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      v = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      v = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      v = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      v = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      v = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      v = as_int(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      v = as_int(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      v = p.warpSize;
      break;
    case cudaDevAttrMaxPitch:
      v = as_int(p.memPitch);
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      v = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      v = kClockRateKhz;
      break;
    case cudaDevAttrTextureAlignment:
      v = as_int(p.textureAlignment);
      break;
    case cudaDevAttrGpuOverlap:
      v = p.asyncEngineCount > 0 ? 1 : 0;
      break;
    case cudaDevAttrMultiProcessorCount:
      v = p.multiProcessorCount;
      break;
    case cudaDevAttrKernelExecTimeout:
      v = 0;
      break;
    case cudaDevAttrIntegrated:
      v = p.integrated;
      break;
    case cudaDevAttrCanMapHostMemory:
      v = p.canMapHostMemory;
      break;
    case cudaDevAttrComputeMode:
      v = cudaComputeModeDefault;
      break;
    case cudaDevAttrMaxTexture1DWidth:
      v = p.maxTexture1D;
      break;
    case cudaDevAttrMaxTexture2DWidth:
      v = p.maxTexture2D[0];
      break;
    case cudaDevAttrMaxTexture2DHeight:
      v = p.maxTexture2D[1];
      break;
    case cudaDevAttrMaxTexture3DWidth:
      v = p.maxTexture3D[0];
      break;
    case cudaDevAttrMaxTexture3DHeight:
      v = p.maxTexture3D[1];
      break;
    case cudaDevAttrMaxTexture3DDepth:
      v = p.maxTexture3D[2];
      break;
    case cudaDevAttrMaxTexture2DLayeredWidth:
      v = p.maxTexture2DLayered[0];
      break;
    case cudaDevAttrMaxTexture2DLayeredHeight:
      v = p.maxTexture2DLayered[1];
      break;
    case cudaDevAttrMaxTexture2DLayeredLayers:
      v = p.maxTexture2DLayered[2];
      break;
    case cudaDevAttrSurfaceAlignment:
      v = as_int(p.surfaceAlignment);
      break;
    case cudaDevAttrConcurrentKernels:
      v = p.concurrentKernels;
      break;
    case cudaDevAttrEccEnabled:
      v = p.ECCEnabled;
      break;
    case cudaDevAttrPciBusId:
      v = p.pciBusID;
      break;
    case cudaDevAttrPciDeviceId:
      v = p.pciDeviceID;
      break;
    case cudaDevAttrTccDriver:
      v = p.tccDriver;
      break;
    case cudaDevAttrMemoryClockRate:
      v = kMemoryClockRateKhz;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      v = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      v = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      v = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrAsyncEngineCount:
      v = p.asyncEngineCount;
      break;
    case cudaDevAttrUnifiedAddressing:
      v = p.unifiedAddressing;
      break;
    case cudaDevAttrMaxTexture1DLayeredWidth:
      v = p.maxTexture1DLayered[0];
      break;
    case cudaDevAttrMaxTexture1DLayeredLayers:
      v = p.maxTexture1DLayered[1];
      break;
    case cudaDevAttrMaxTexture2DGatherWidth:
      v = p.maxTexture2DGather[0];
      break;
    case cudaDevAttrMaxTexture2DGatherHeight:
      v = p.maxTexture2DGather[1];
      break;
    case cudaDevAttrMaxTexture3DWidthAlt:
      v = p.maxTexture3DAlt[0];
      break;
    case cudaDevAttrMaxTexture3DHeightAlt:
      v = p.maxTexture3DAlt[1];
      break;
    case cudaDevAttrMaxTexture3DDepthAlt:
      v = p.maxTexture3DAlt[2];
      break;
    case cudaDevAttrPciDomainId:
      v = p.pciDomainID;
      break;
    case cudaDevAttrTexturePitchAlignment:
      v = as_int(p.texturePitchAlignment);
      break;
    case cudaDevAttrMaxTextureCubemapWidth:
      v = p.maxTextureCubemap;
      break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth:
      v = p.maxTextureCubemapLayered[0];
      break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers:
      v = p.maxTextureCubemapLayered[1];
      break;
    case cudaDevAttrMaxSurface1DWidth:
      v = p.maxSurface1D;
      break;
    case cudaDevAttrMaxSurface2DWidth:
      v = p.maxSurface2D[0];
      break;
    case cudaDevAttrMaxSurface2DHeight:
      v = p.maxSurface2D[1];
      break;
    case cudaDevAttrMaxSurface3DWidth:
      v = p.maxSurface3D[0];
      break;
    case cudaDevAttrMaxSurface3DHeight:
      v = p.maxSurface3D[1];
      break;
    case cudaDevAttrMaxSurface3DDepth:
      v = p.maxSurface3D[2];
      break;
    case cudaDevAttrMaxSurface1DLayeredWidth:
      v = p.maxSurface1DLayered[0];
      break;
    case cudaDevAttrMaxSurface1DLayeredLayers:
      v = p.maxSurface1DLayered[1];
      break;
    case cudaDevAttrMaxSurface2DLayeredWidth:
      v = p.maxSurface2DLayered[0];
      break;
    case cudaDevAttrMaxSurface2DLayeredHeight:
      v = p.maxSurface2DLayered[1];
      break;
    case cudaDevAttrMaxSurface2DLayeredLayers:
      v = p.maxSurface2DLayered[2];
      break;
    case cudaDevAttrMaxSurfaceCubemapWidth:
      v = p.maxSurfaceCubemap;
      break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
      v = p.maxSurfaceCubemapLayered[0];
      break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers:
      v = p.maxSurfaceCubemapLayered[1];
      break;
    case cudaDevAttrMaxTexture1DLinearWidth:
      v = 268435456;
      break;
    case cudaDevAttrMaxTexture2DLinearWidth:
      v = p.maxTexture2DLinear[0];
      break;
    case cudaDevAttrMaxTexture2DLinearHeight:
      v = p.maxTexture2DLinear[1];
      break;
    case cudaDevAttrMaxTexture2DLinearPitch:
      v = p.maxTexture2DLinear[2];
      break;
    case cudaDevAttrMaxTexture2DMipmappedWidth:
      v = p.maxTexture2DMipmap[0];
      break;
    case cudaDevAttrMaxTexture2DMipmappedHeight:
      v = p.maxTexture2DMipmap[1];
      break;
    case cudaDevAttrComputeCapabilityMajor:
      v = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      v = p.minor;
      break;
    case cudaDevAttrMaxTexture1DMipmappedWidth:
      v = p.maxTexture1DMipmap;
      break;
    case cudaDevAttrStreamPrioritiesSupported:
      v = p.streamPrioritiesSupported;
      break;
    case cudaDevAttrGlobalL1CacheSupported:
      v = p.globalL1CacheSupported;
      break;
    case cudaDevAttrLocalL1CacheSupported:
      v = p.localL1CacheSupported;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      v = as_int(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      v = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrManagedMemory:
      v = p.managedMemory;
      break;
    case cudaDevAttrIsMultiGpuBoard:
      v = p.isMultiGpuBoard;
      break;
    case cudaDevAttrMultiGpuBoardGroupID:
      v = p.multiGpuBoardGroupID;
      break;
    case cudaDevAttrHostNativeAtomicSupported:
      v = p.hostNativeAtomicSupported;
      break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      v = 2;
      break;
    case cudaDevAttrPageableMemoryAccess:
      v = p.pageableMemoryAccess;
      break;
    case cudaDevAttrConcurrentManagedAccess:
      v = p.concurrentManagedAccess;
      break;
    case cudaDevAttrComputePreemptionSupported:
      v = p.computePreemptionSupported;
      break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      v = p.canUseHostPointerForRegisteredMem;
      break;
    case cudaDevAttrCooperativeLaunch:
      v = p.cooperativeLaunch;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      v = as_int(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrCanFlushRemoteWrites:
      v = 0;
      break;
    case cudaDevAttrHostRegisterSupported:
      v = p.hostRegisterSupported;
      break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      v = p.pageableMemoryAccessUsesHostPageTables;
      break;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      v = p.directManagedMemAccessFromHost;
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      v = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrMaxPersistingL2CacheSize:
      v = p.persistingL2CacheMaxSize;
      break;
    case cudaDevAttrMaxAccessPolicyWindowSize:
      v = p.accessPolicyMaxWindowSize;
      break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      v = as_int(p.reservedSharedMemPerBlock);
      break;
    case cudaDevAttrSparseCudaArraySupported:
      v = p.sparseCudaArraySupported;
      break;
    case cudaDevAttrHostRegisterReadOnlySupported:
      v = p.hostRegisterReadOnlySupported;
      break;
    case cudaDevAttrTimelineSemaphoreInteropSupported:
      v = p.timelineSemaphoreInteropSupported;
      break;
    case cudaDevAttrMemoryPoolsSupported:
      v = p.memoryPoolsSupported;
      break;
    case cudaDevAttrGPUDirectRDMASupported:
      v = p.gpuDirectRDMASupported;
      break;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
      v = static_cast<int>(p.gpuDirectRDMAFlushWritesOptions);
      break;
    case cudaDevAttrGPUDirectRDMAWritesOrdering:
      v = p.gpuDirectRDMAWritesOrdering;
      break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
      v = static_cast<int>(p.memoryPoolSupportedHandleTypes);
      break;
    case cudaDevAttrClusterLaunch:
      v = p.clusterLaunch;
      break;
    case cudaDevAttrDeferredMappingCudaArraySupported:
      v = p.deferredMappingCudaArraySupported;
      break;
    case cudaDevAttrIpcEventSupport:
      v = p.ipcEventSupported;
      break;
    case cudaDevAttrMemSyncDomainCount:
      v = 4;
      break;
    case cudaDevAttrNumaConfig:
      v = p.deviceNumaConfig;
      break;
    case cudaDevAttrNumaId:
      v = p.deviceNumaId;
      break;
    case cudaDevAttrMpsEnabled:
      v = p.mpsEnabled;
      break;
    case cudaDevAttrHostNumaId:
      v = p.hostNumaId;
      break;
    case cudaDevAttrD3D12CigSupported:
      v = 0;
      break;
    case cudaDevAttrVulkanCigSupported:
      v = 0;
      break;
    case cudaDevAttrGpuPciDeviceId:
      v = static_cast<int>(p.gpuPciDeviceID);
      break;
    case cudaDevAttrGpuPciSubsystemId:
      v = static_cast<int>(p.gpuPciSubsystemID);
      break;
    case cudaDevAttrHostNumaMemoryPoolsSupported:
      v = 0;
      break;
    case cudaDevAttrHostNumaMultinodeIpcSupported:
      v = p.hostNumaMultinodeIpcSupported;
      break;
    case cudaDevAttrHostMemoryPoolsSupported:
      v = 0;
      break;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
      v = 0;
      break;
    default:
      return false;  // reserved, unassigned or newer than this table
  }
  *value = v;
  return true;
}

}  // namespace simcuda
