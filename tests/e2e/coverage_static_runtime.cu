// E2E workload for coverage: linked with the simulated static runtime (libsimcudart_static.a, the
// stand-in for nvcc's default static cudart), so no runtime call can reach brrr's runtime-symbol
// hooks. It makes a known number of each call: `launches` kernel launches on one stream, with a
// cudaStreamSynchronize after each third of them (3), one H2D and one D2H cudaMemcpy, one
// cudaMalloc, one cudaFree, one cudaStreamCreate and one cudaStreamDestroy.
// Usage: coverage_static_runtime [launches]   (a multiple of 3)
// Must never: make a CUDA call not listed above (the test counts them exactly).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void static_tiny(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 300;
  float host[256] = {};
  float* d = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaMalloc(&d, sizeof(host)) != cudaSuccess) return 3;
  if (cudaStreamCreate(&stream) != cudaSuccess) return 3;
  for (int third = 0; third < 3; ++third) {
    for (int i = 0; i < launches / 3; ++i) static_tiny<<<1, 32, 0, stream>>>(d);
    if (cudaStreamSynchronize(stream) != cudaSuccess) return 4;
  }
  if (cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice) != cudaSuccess) return 5;
  if (cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess) return 5;
  if (cudaStreamDestroy(stream) != cudaSuccess) return 6;
  if (cudaFree(d) != cudaSuccess) return 6;
  std::printf("launched %d\n", launches);
  return 0;
}
