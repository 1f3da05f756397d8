// Driver entry points for modules and launches: cuModuleLoadData / cuModuleGetFunction (how
// libraries such as Triton or cuBLAS get their kernels), cuKernelGetFunction, and cuLaunchKernel,
// cuLaunchKernelEx, cuLaunchCooperativeKernel with their _ptsz forms. A CUfunction is an engine
// kernel handle, so runtime handles (cudaGetFuncBySymbol, cudaGetKernel) launch here too.
// Module images are not parsed: any function name is found and runs no code. Must never free a
// kernel (activity records keep its name).
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "driver_call.h"

using simcuda::driver::DriverCall;
using simcuda::driver::ToCuResult;

namespace {

// Live module handles; kernels found by name (one per name, for the life of the process).
struct ModuleTable {
  std::mutex mu;
  std::unordered_set<const void*> modules;
  std::unordered_map<std::string, simcuda_kernel*> kernels_by_name;
};

ModuleTable& Modules() {
  static ModuleTable* const table = new ModuleTable();  // never destroyed: used until exit
  return *table;
}

CUresult Launch(uint32_t cbid, CUfunction function, simcuda_dim3 grid, simcuda_dim3 block,
                unsigned shared_memory, CUstream stream, bool cooperative,
                bool per_thread_default) {
  DriverCall call(cbid);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  const simcuda_kernel* kernel = simcuda_kernel_lookup(function);
  if (kernel == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  simcuda_stream* target = simcuda::driver::ResolveStream(stream, per_thread_default);
  if (target == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  simcuda_launch_info info{};
  info.cooperative = cooperative ? 1 : 0;
  return call.Return(ToCuResult(simcuda_launch_kernel_ex(target, kernel, grid, block, shared_memory,
                                                         call.correlation_id(), &info)));
}

CUresult LaunchWithConfig(uint32_t cbid, const CUlaunchConfig* config, CUfunction function,
                          bool per_thread_default) {
  if (config == nullptr || (config->numAttrs != 0 && config->attrs == nullptr)) {
    DriverCall call(cbid);
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      cooperative = config->attrs[i].value.cooperative != 0;
    }
  }
  return Launch(cbid, function, {config->gridDimX, config->gridDimY, config->gridDimZ},
                {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes,
                config->hStream, cooperative, per_thread_default);
}

}  // namespace

SIMCUDA_DRIVER_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (module == nullptr || image == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  auto* handle = new char;  // identifies the module; freed by cuModuleUnload
  {
    ModuleTable& table = Modules();
    std::lock_guard lock(table.mu);
    table.modules.insert(handle);
  }
  *module = reinterpret_cast<CUmodule>(handle);
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuModuleUnload(CUmodule module) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuModuleUnload);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  ModuleTable& table = Modules();
  std::lock_guard lock(table.mu);
  if (table.modules.erase(module) == 0) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  delete reinterpret_cast<char*>(module);
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule module,
                                                   const char* name) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (function == nullptr || name == nullptr || name[0] == '\0') {
    return call.Return(CUDA_ERROR_INVALID_VALUE);
  }
  ModuleTable& table = Modules();
  std::lock_guard lock(table.mu);
  if (table.modules.count(module) == 0) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  auto it = table.kernels_by_name.find(name);
  if (it == table.kernels_by_name.end()) {
    // The registry keys kernels by a host address: a never-freed copy of the name serves.
    const auto* key = new std::string(name);
    it = table.kernels_by_name.emplace(*key, simcuda_kernel_register(key, key->c_str())).first;
  }
  *function = reinterpret_cast<CUfunction>(it->second);
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
  DriverCall call(CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction);
  CUresult result;
  if (call.NotInitialized(&result)) return result;
  if (function == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  simcuda_kernel* found = simcuda_kernel_lookup(kernel);
  if (found == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  *function = reinterpret_cast<CUfunction>(found);
  return call.Return(CUDA_SUCCESS);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned grid_x, unsigned grid_y,
                                              unsigned grid_z, unsigned block_x, unsigned block_y,
                                              unsigned block_z, unsigned shared_memory,
                                              CUstream stream, void** /*params*/,
                                              void** /*extra*/) {
  return Launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, f, {grid_x, grid_y, grid_z},
                {block_x, block_y, block_z}, shared_memory, stream, false, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned grid_x, unsigned grid_y,
                                                   unsigned grid_z, unsigned block_x,
                                                   unsigned block_y, unsigned block_z,
                                                   unsigned shared_memory, CUstream stream,
                                                   void** /*params*/, void** /*extra*/) {
  return Launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, f, {grid_x, grid_y, grid_z},
                {block_x, block_y, block_z}, shared_memory, stream, false, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned grid_x,
                                                         unsigned grid_y, unsigned grid_z,
                                                         unsigned block_x, unsigned block_y,
                                                         unsigned block_z, unsigned shared_memory,
                                                         CUstream stream, void** /*params*/) {
  return Launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, f, {grid_x, grid_y, grid_z},
                {block_x, block_y, block_z}, shared_memory, stream, true, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned grid_x,
                                                              unsigned grid_y, unsigned grid_z,
                                                              unsigned block_x, unsigned block_y,
                                                              unsigned block_z,
                                                              unsigned shared_memory,
                                                              CUstream stream, void** /*params*/) {
  return Launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, f, {grid_x, grid_y, grid_z},
                {block_x, block_y, block_z}, shared_memory, stream, true, true);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                                void** /*params*/, void** /*extra*/) {
  return LaunchWithConfig(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, config, f, false);
}

SIMCUDA_DRIVER_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                                     void** /*params*/, void** /*extra*/) {
  return LaunchWithConfig(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, config, f, true);
}
