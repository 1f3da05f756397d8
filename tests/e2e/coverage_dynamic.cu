// E2E workload for coverage: a plain dynamically linked runtime program whose every CUDA call is
// in a family brrr hooks: one cudaMalloc, `launches` kernel launches, one cudaStreamSynchronize,
// one H2D and one D2H cudaMemcpy, one cudaDeviceSynchronize, one cudaFree (launches + 6 calls).
// Usage: coverage_dynamic [launches]
// Must never: make a CUDA call not listed above (the test counts them exactly).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void dynamic_tiny(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 200;
  float host[256] = {};
  float* d = nullptr;
  if (cudaMalloc(&d, sizeof(host)) != cudaSuccess) return 3;
  for (int i = 0; i < launches; ++i) dynamic_tiny<<<1, 32>>>(d);
  if (cudaStreamSynchronize(nullptr) != cudaSuccess) return 4;
  if (cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice) != cudaSuccess) return 5;
  if (cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess) return 5;
  if (cudaDeviceSynchronize() != cudaSuccess) return 6;
  if (cudaFree(d) != cudaSuccess) return 7;
  std::printf("launched %d\n", launches);
  return 0;
}
