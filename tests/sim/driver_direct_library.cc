// Implements the driver-direct library of driver_direct_library.h: only dlopen/dlsym of
// cuGetProcAddress_v2, then the driver API through the pointers it returns. Must never link or
// call libcudart or libcuda directly.
#include "driver_direct_library.h"

#include <cuda.h>
#include <dlfcn.h>

namespace {

using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice);
  CUresult (*ctx_set_current)(CUcontext);
  CUresult (*module_load_data)(CUmodule*, const void*);
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*);
  CUresult (*module_unload)(CUmodule);
  CUresult (*stream_create)(CUstream*, unsigned);
  CUresult (*stream_destroy)(CUstream);
  CUresult (*stream_synchronize)(CUstream);
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void**, void**);
};

template <typename F>
CUresult Get(GetProcAddressFn get, const char* name, F* out) {
  void* raw = nullptr;
  CUdriverProcAddressQueryResult status;
  const CUresult result = get(name, &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
  *out = reinterpret_cast<F>(raw);
  return result;
}

CUresult Load(Driver* d) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return static_cast<CUresult>(-1);
  auto get = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  if (get == nullptr) return static_cast<CUresult>(-1);
  CUresult r;
  if ((r = Get(get, "cuInit", &d->init)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuDevicePrimaryCtxRetain", &d->primary_ctx_retain)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuCtxSetCurrent", &d->ctx_set_current)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuModuleLoadData", &d->module_load_data)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuModuleGetFunction", &d->module_get_function)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuModuleUnload", &d->module_unload)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuStreamCreate", &d->stream_create)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuStreamDestroy", &d->stream_destroy)) != CUDA_SUCCESS) return r;
  if ((r = Get(get, "cuStreamSynchronize", &d->stream_synchronize)) != CUDA_SUCCESS) return r;
  return Get(get, "cuLaunchKernel", &d->launch_kernel);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sim_driver_direct_run(const char* kernel_name,
                                                                            int launches) {
  Driver d{};
  CUresult r = Load(&d);
  if (r != CUDA_SUCCESS) return static_cast<int>(r);
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  static const char kImage[] = "// a module image; the simulated driver does not parse it";
  if ((r = d.init(0)) != CUDA_SUCCESS) return r;
  if ((r = d.primary_ctx_retain(&context, 0)) != CUDA_SUCCESS) return r;
  if ((r = d.ctx_set_current(context)) != CUDA_SUCCESS) return r;
  if ((r = d.module_load_data(&module, kImage)) != CUDA_SUCCESS) return r;
  if ((r = d.module_get_function(&function, module, kernel_name)) != CUDA_SUCCESS) return r;
  if ((r = d.stream_create(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) return r;
  for (int i = 0; i < launches; ++i) {
    if ((r = d.launch_kernel(function, 4, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr)) !=
        CUDA_SUCCESS) {
      return r;
    }
  }
  if ((r = d.stream_synchronize(stream)) != CUDA_SUCCESS) return r;
  if ((r = d.stream_destroy(stream)) != CUDA_SUCCESS) return r;
  return d.module_unload(module);
}
