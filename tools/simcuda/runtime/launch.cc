// Kernel launches: the nvcc 13 entry points (__cudaLaunchKernel*, with a cudaKernel_t), the public
// ones (cudaLaunchKernel*, with a host stub or a cudaKernel_t) and cudaLaunchKernelExC. Each burns
// BRRR_SIM_LAUNCH_NS of host CPU in the engine, then queues the kernel, inside a nested
// cuLaunchKernel (its driver callbacks carry the launch's correlation id, as on a real GPU); on a
// capturing stream the launch becomes a graph node instead. Also cudaGetFuncBySymbol (a CUfunction
// for the driver API). Must never run kernel code.
#include <cupti_driver_cbid.h>

#include "cuda_api.h"
#include "graph_capture.h"

namespace {

using simcuda::runtime::ApiCall;
using simcuda::runtime::ToDim3;
using simcuda::runtime::ToError;

cudaError_t Launch(uint32_t cbid, const void* function, dim3 grid, dim3 block, size_t shared_memory,
                   cudaStream_t stream, bool per_thread_default) {
  ApiCall call(cbid);
  const simcuda_kernel* kernel = simcuda_kernel_lookup(function);
  if (kernel == nullptr) return call.Return(cudaErrorInvalidDeviceFunction);
  simcuda_stream* target = simcuda_stream_resolve(stream, per_thread_default ? 1 : 0);
  if (target == nullptr) return call.Return(cudaErrorInvalidResourceHandle);
  simcuda::runtime::GraphNode node;
  node.kind = simcuda::runtime::GraphNode::Kind::kKernel;
  node.kernel = kernel;
  node.grid = ToDim3(grid);
  node.block = ToDim3(block);
  node.shared_memory = shared_memory;
  if (simcuda::runtime::CaptureNode(target, node)) return call.Return(cudaSuccess);
  // As the real runtime: the launch goes through the driver's cuLaunchKernel (api_call.h).
  simcuda::runtime::NestedDriverCall driver(call, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  const cudaError_t result = ToError(simcuda_launch_kernel(
      target, kernel, ToDim3(grid), ToDim3(block), shared_memory, call.correlation_id()));
  driver.End(static_cast<int32_t>(result));
  return call.Return(result);
}

cudaError_t LaunchEx(uint32_t cbid, const cudaLaunchConfig_t* config, const void* function,
                     bool per_thread_default) {
  if (config == nullptr) {
    ApiCall call(cbid);
    return call.Return(cudaErrorInvalidValue);
  }
  return Launch(cbid, function, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                config->stream, per_thread_default);
}

}  // namespace

SIMCUDA_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                              void** /*args*/, size_t shared_memory,
                                              cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid___cudaLaunchKernel, kernel, grid, block, shared_memory,
                stream, false);
}

SIMCUDA_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                   void** /*args*/, size_t shared_memory,
                                                   cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid___cudaLaunchKernel_ptsz, kernel, grid, block, shared_memory,
                stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaLaunchKernel(const void* function, dim3 grid, dim3 block,
                                            void** /*args*/, size_t shared_memory,
                                            cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid_cudaLaunchKernel, function, grid, block, shared_memory,
                stream, false);
}

SIMCUDA_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void* function, dim3 grid, dim3 block,
                                                 void** /*args*/, size_t shared_memory,
                                                 cudaStream_t stream) {
  return Launch(simcuda::runtime::kCbid_cudaLaunchKernel_ptsz, function, grid, block, shared_memory,
                stream, true);
}

SIMCUDA_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                               const void* function, void** /*args*/) {
  return LaunchEx(simcuda::runtime::kCbid_cudaLaunchKernelExC, config, function, false);
}

SIMCUDA_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                    const void* function, void** /*args*/) {
  return LaunchEx(simcuda::runtime::kCbid_cudaLaunchKernelExC_ptsz, config, function, true);
}

SIMCUDA_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t* function, const void* symbol) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetFuncBySymbol);
  if (function == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_kernel* kernel = simcuda_kernel_lookup(symbol);
  if (kernel == nullptr) return call.Return(cudaErrorInvalidDeviceFunction);
  *function = reinterpret_cast<cudaFunction_t>(kernel);  // the driver's CUfunction
  return call.Return(cudaSuccess);
}
