// minitorch's CUDA side: the kernel and every CUDA runtime call the test extension makes, in plain
// C++ with no Python in sight (the module in minitorch_module.cc calls these with the GIL
// released, as PyTorch's bindings do). Built by nvcc with frame pointers and debug info and linked
// against the shared runtime, so the shim's hooks see each call and its native frames here.
//
// Must never: touch Python (no GIL is held here), or hide a CUDA error: every function returns the
// cudaError_t it got.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <thread>

#include "tests/python/minitorch_cuda.h"

// The one kernel: the simulated device runs no code, so its body only keeps it honest on a GPU.
// Its duration on the simulated device is BRRR_SIM_KERNELS=add_one=NS.
__global__ void add_one(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

namespace minitorch {
namespace {

int Blocks(int n) { return n <= 0 ? 1 : (n + 255) / 256; }

}  // namespace

int DeviceAlloc(size_t n, float** out) {
  return cudaMalloc(reinterpret_cast<void**>(out), (n == 0 ? 1 : n) * sizeof(float));
}

int LaunchAdd(float* data, int n) {
  add_one<<<Blocks(n), 256>>>(data, n);
  return cudaGetLastError();
}

int Item(const float* data, float* out) {
  return cudaMemcpy(out, data, sizeof(float), cudaMemcpyDeviceToHost);
}

int CopyAsyncPageable(float* dst, const void* host, size_t bytes) {
  return cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, /*stream=*/0);
}

int Synchronize() { return cudaDeviceSynchronize(); }

int ProfilerStart() { return cudaProfilerStart(); }

int ProfilerStop() { return cudaProfilerStop(); }

int Free(float* data) { return cudaFree(data); }

int RunInCppThread(float* data, int n, int launches) {
  int status = cudaSuccess;
  std::thread worker([&] {
    for (int i = 0; i < launches && status == cudaSuccess; ++i) {
      add_one<<<Blocks(n), 256>>>(data, n);
      status = cudaGetLastError();
    }
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
  });
  worker.join();
  return status;
}

const char* ErrorName(int status) { return cudaGetErrorName(static_cast<cudaError_t>(status)); }

}  // namespace minitorch
