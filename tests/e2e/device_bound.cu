// E2E workload: a few long kernels queued at once; the device is the bottleneck
// (expected: device-bound). Usage: device_bound [kernels]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void long_kernel(float* x, int reps) {
  float v = x[threadIdx.x];
  for (int r = 0; r < reps; ++r) v = v * 0.5f + 1.0f;
  x[threadIdx.x] = v;
}

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 20;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  for (int i = 0; i < kernels; ++i) long_kernel<<<1, 32>>>(d, 1 << 20);
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  std::printf("ran %d\n", kernels);
  return 7;  // a distinctive exit code: brrr must pass it through unchanged
}
