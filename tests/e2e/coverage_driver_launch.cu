// E2E workload for coverage: a dynamically linked runtime program that also launches through the
// driver API the way cuBLAS or Triton do — dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2"),
// then cuLaunchKernel through the pointer it returns — so those launches never pass brrr's runtime
// hooks. Runtime calls: one cudaMalloc, `runtime_launches` kernel launches, one
// cudaDeviceSynchronize, one cudaFree. Driver calls: cuInit, cuDevicePrimaryCtxRetain,
// cuCtxSetCurrent, cuModuleLoadData, cuModuleGetFunction("driver_kernel"), cuStreamCreate,
// `driver_launches` cuLaunchKernel, cuStreamSynchronize, cuStreamDestroy, cuModuleUnload.
// With `rounds` (default 1) the launches are made that many times, runtime then driver launches
// in each round, after the driver's setup: a loop of an app that calls a library between its own
// launches (rounds x each count in all).
// Usage: coverage_driver_launch [driver_launches] [runtime_launches] [rounds]
// Must never: link libcuda or make CUDA calls not listed above (the test counts them exactly).
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

__global__ void runtime_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

namespace {

using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);

template <typename F>
bool Get(GetProcAddressFn get, const char* name, F* out) {
  void* raw = nullptr;
  CUdriverProcAddressQueryResult status;
  if (get(name, &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuGetProcAddress_v2(%s) failed\n", name);
    return false;
  }
  *out = reinterpret_cast<F>(raw);
  return true;
}

// Everything a library reaching the driver by itself does, in `rounds` rounds each after
// `runtime_launches` runtime launches on `d`; 0 on success.
int DriverLaunches(int launches, int rounds, int runtime_launches, float* d) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return 20;
  auto get = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  if (get == nullptr) return 21;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*set_current)(CUcontext) = nullptr;
  CUresult (*load)(CUmodule*, const void*) = nullptr;
  CUresult (*get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*unload)(CUmodule) = nullptr;
  CUresult (*stream_create)(CUstream*, unsigned) = nullptr;
  CUresult (*stream_destroy)(CUstream) = nullptr;
  CUresult (*stream_sync)(CUstream) = nullptr;
  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     unsigned, CUstream, void**, void**) = nullptr;
  if (!Get(get, "cuInit", &init) || !Get(get, "cuDevicePrimaryCtxRetain", &retain) ||
      !Get(get, "cuCtxSetCurrent", &set_current) || !Get(get, "cuModuleLoadData", &load) ||
      !Get(get, "cuModuleGetFunction", &get_function) || !Get(get, "cuModuleUnload", &unload) ||
      !Get(get, "cuStreamCreate", &stream_create) ||
      !Get(get, "cuStreamDestroy", &stream_destroy) ||
      !Get(get, "cuStreamSynchronize", &stream_sync) || !Get(get, "cuLaunchKernel", &launch)) {
    return 22;
  }
  static const char kImage[] = "// a module image; the simulated driver does not parse it";
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  if (init(0) != CUDA_SUCCESS || retain(&context, 0) != CUDA_SUCCESS ||
      set_current(context) != CUDA_SUCCESS || load(&module, kImage) != CUDA_SUCCESS ||
      get_function(&function, module, "driver_kernel") != CUDA_SUCCESS ||
      stream_create(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    return 23;
  }
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < runtime_launches; ++i) runtime_kernel<<<1, 32>>>(d);
    for (int i = 0; i < launches; ++i) {
      if (launch(function, 4, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr) != CUDA_SUCCESS) {
        return 24;
      }
    }
  }
  if (stream_sync(stream) != CUDA_SUCCESS || stream_destroy(stream) != CUDA_SUCCESS ||
      unload(module) != CUDA_SUCCESS) {
    return 25;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int driver_launches = argc > 1 ? std::atoi(argv[1]) : 200;
  const int runtime_launches = argc > 2 ? std::atoi(argv[2]) : 50;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 1;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  if (const int failed = DriverLaunches(driver_launches, rounds, runtime_launches, d);
      failed != 0) {
    return failed;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  if (cudaFree(d) != cudaSuccess) return 5;
  std::printf("launched %d + %d x %d\n", driver_launches, runtime_launches, rounds);
  return 0;
}
