// The CUDA of harmless_app, in a shared library of its own (as PyTorch's is): the app's executable
// has no device code, so the shim starts at the app's first CUDA call, long after main.
#include <cuda_runtime.h>

namespace {

__global__ void bump(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

}  // namespace

// A little real work: an allocation, `launches` kernels, a synchronization and a read-back.
// 0 when every call succeeded.
extern "C" int harmless_cuda_work(int launches) {
  float* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(float)) != cudaSuccess) return 1;
  for (int i = 0; i < launches; ++i) bump<<<1, 32>>>(d);
  float h[32] = {};
  if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  return cudaFree(d) == cudaSuccess ? 0 : 3;  // (the simulated device runs no kernel code)
}
