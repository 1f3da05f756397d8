// E2E workload: many tiny kernels launched back to back; each launch costs the host more than the
// kernel costs the device, so the device idles waiting for launches (expected: launch-bound).
// Usage: launch_bound [launches]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void tiny(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  for (int i = 0; i < launches; ++i) tiny<<<1, 32>>>(d);
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  std::printf("launched %d\n", launches);
  return 0;
}
