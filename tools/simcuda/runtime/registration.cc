// The module-registration and launch-configuration ABI that nvcc-generated host code calls
// (crt/host_runtime.h, crt/device_functions.h): fat binaries, kernels, variables, the per-thread
// <<<...>>> configuration stack and host-stub -> cudaKernel_t lookup. Fat binaries are not parsed
// (kernels run no code). Must never free a kernel: activity records keep its name.
#include "cuda_api.h"

namespace {

using simcuda::runtime::ApiCall;

// One pushed <<<grid, block, shared, stream>>>; plain data so the thread-local stack is trivially
// constructible and destructible.
struct CallConfiguration {
  uint32_t grid[3];
  uint32_t block[3];
  size_t shared_memory;
  void* stream;
};
constexpr int kMaxNestedConfigurations = 32;
thread_local CallConfiguration t_configurations[kMaxNestedConfigurations];
thread_local int t_configuration_depth = 0;

}  // namespace

SIMCUDA_EXPORT void** __cudaRegisterFatBinary(void* fat_cubin) {
  ApiCall call(simcuda::runtime::kCbid___cudaRegisterFatBinary);
  auto** handle = new void* [1] { fat_cubin };  // identifies the module; lives for the process
  call.Finish();
  return handle;
}

SIMCUDA_EXPORT void __cudaRegisterFatBinaryEnd(void** /*fat_cubin_handle*/) {
  ApiCall call(simcuda::runtime::kCbid___cudaRegisterFatBinaryEnd);
  call.Finish();
}

SIMCUDA_EXPORT void __cudaUnregisterFatBinary(void** /*fat_cubin_handle*/) {
  // Runs from atexit. Kernels stay registered: their names must outlive the module.
  ApiCall call(simcuda::runtime::kCbid___cudaUnregisterFatBinary);
  call.Finish();
}

SIMCUDA_EXPORT void __cudaRegisterFunction(void** /*fat_cubin_handle*/, const char* host_function,
                                           char* device_function, const char* device_name,
                                           int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                                           dim3* /*block_dim*/, dim3* /*grid_dim*/,
                                           int* /*warp_size*/) {
  ApiCall call(simcuda::runtime::kCbid___cudaRegisterFunction);
  const char* name = device_name != nullptr ? device_name : device_function;
  simcuda_kernel_register(host_function, name);
  call.Finish();
}

SIMCUDA_EXPORT void __cudaRegisterVar(void** /*fat_cubin_handle*/, char* /*host_var*/,
                                      char* /*device_address*/, const char* /*device_name*/,
                                      int /*ext*/, size_t /*size*/, int /*constant*/,
                                      int /*global*/) {
  ApiCall call(simcuda::runtime::kCbid___cudaRegisterVar);  // device variables: not simulated
  call.Finish();
}

SIMCUDA_EXPORT void __cudaRegisterManagedVar(void** /*fat_cubin_handle*/,
                                             void** /*host_var_ptr_address*/,
                                             char* /*device_address*/, const char* /*device_name*/,
                                             int /*ext*/, size_t /*size*/, int /*constant*/,
                                             int /*global*/) {
  ApiCall call(simcuda::runtime::kCbid___cudaRegisterManagedVar);  // managed memory: not simulated
  call.Finish();
}

SIMCUDA_EXPORT char __cudaInitModule(void** /*fat_cubin_handle*/) {
  ApiCall call(simcuda::runtime::kCbid___cudaInitModule);
  call.Finish();
  return 1;
}

SIMCUDA_EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_memory,
                                                    struct CUstream_st* stream) {
  ApiCall call(simcuda::runtime::kCbid___cudaPushCallConfiguration);
  if (t_configuration_depth >= kMaxNestedConfigurations) {
    call.Finish(cudaErrorLaunchOutOfResources);
    return 1;  // non-zero: the generated code skips the launch
  }
  t_configurations[t_configuration_depth++] = CallConfiguration{
      {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_memory, stream};
  call.Finish();
  return 0;
}

SIMCUDA_EXPORT cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block,
                                                      size_t* shared_memory, void* stream) {
  ApiCall call(simcuda::runtime::kCbid___cudaPopCallConfiguration);
  if (t_configuration_depth == 0) return call.Return(cudaErrorMissingConfiguration);
  const CallConfiguration& c = t_configurations[--t_configuration_depth];
  if (grid != nullptr) *grid = dim3(c.grid[0], c.grid[1], c.grid[2]);
  if (block != nullptr) *block = dim3(c.block[0], c.block[1], c.block[2]);
  if (shared_memory != nullptr) *shared_memory = c.shared_memory;
  if (stream != nullptr) *static_cast<void**>(stream) = c.stream;
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_function) {
  ApiCall call(simcuda::runtime::kCbid___cudaGetKernel);
  if (kernel == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_kernel* found = simcuda_kernel_lookup(host_function);
  if (found == nullptr) return call.Return(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(found);
  return call.Return(cudaSuccess);
}

SIMCUDA_EXPORT cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* entry_function) {
  ApiCall call(simcuda::runtime::kCbid_cudaGetKernel);
  if (kernel == nullptr) return call.Return(cudaErrorInvalidValue);
  simcuda_kernel* found = simcuda_kernel_lookup(entry_function);
  if (found == nullptr) return call.Return(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(found);
  return call.Return(cudaSuccess);
}
