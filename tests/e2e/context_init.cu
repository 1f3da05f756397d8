// E2E workload that begins as many CUDA C++ programs do: cudaFree(NULL) first, the idiom that makes
// the runtime create its context (200-460 ms on an H100; SIMCUDA_CONTEXT_INIT_NS gives the
// simulated device the same cost), or with the argument `malloc` its first allocation (which then
// creates it); then 20 steps of a launch and a synchronize, then a free of a real buffer while a
// long kernel runs (a free that does wait for the device). Prints "RESULT ok".
// See gpu_sample_style_e2e_test.cc (ContextInitialization...).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_check.h"

__global__ void step(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}
__global__ void long_step(float* x) {
  if (x) x[0] += 1.0f;
}

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "malloc") != 0) CHECK(cudaFree(nullptr));  // context now
  float* x = nullptr;
  CHECK(cudaMalloc(&x, 32 * sizeof(float)));
  for (int i = 0; i < 20; ++i) {
    step<<<1, 32>>>(x);
    CHECK(cudaDeviceSynchronize());
  }
  long_step<<<1, 1>>>(x);
  CHECK(cudaFree(x));  // waits for long_step
  std::printf("RESULT ok\n");
  return 0;
}
