// E2E workload for frames of inlined calls: a kernel launched from a function, whose nvcc host
// wrapper the host compiler inlines there, and a forced-inline read-back helper called from two
// lines of one function. The report must name the launch's line and each read-back's call line
// (inlined_frames_e2e_test finds the lines by their "MARK:" comments; keep the marks with them).
// Usage: inlined_calls [steps]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

__global__ void scale(float* x) {  // MARK: kernel
  if (x) x[threadIdx.x] *= 2.0f;
}

__attribute__((always_inline)) inline float ReadBack(const float* d) {
  float v = 0;
  cudaMemcpy(&v, d, sizeof(v), cudaMemcpyDeviceToHost);  // MARK: copy
  return v;
}

__attribute__((noinline)) float Step(float* d, int launches) {
  for (int i = 0; i < launches; ++i) scale<<<1, 32>>>(d);  // MARK: launch
  float sum = ReadBack(d);                                  // MARK: first-read
  scale<<<1, 32>>>(d + 1);  // the second read waits for a kernel too
  sum += ReadBack(d + 1);   // MARK: second-read
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  float total = 0;
  for (int s = 0; s < steps; ++s) total += Step(d, 8);  // MARK: main-calls
  std::printf("steps %d sum %f\n", steps, total);
  return 0;
}
