// E2E workload for whole stacks in release builds (issue 19): host code at -O2 without frame
// pointers, as production binaries are, calling a library built the same way (release_lib.cu).
// Each step queues a kernel, then reads a scalar back through the library (a hidden sync two
// library frames down), on the main thread and on a second thread. With BRRR_LAUNCH_SAMPLE=1 every
// launch is a launch site. The e2e test checks what the stacks name; lines come from the MARK:
// comments.
//   e2e_release_stacks STEPS
#include <cuda_runtime.h>

#include <cstdlib>
#include <thread>

#define NOINLINE __attribute__((noinline))

float fetch_scalar(const float* device_value);  // release_lib.cu

__global__ void accumulate(float* x) { x[threadIdx.x] += 1.0f; }

namespace {
volatile int g_after = 0;
}

NOINLINE void launch_work(float* x) {
  accumulate<<<1, 32>>>(x);  // MARK: launch
  g_after = g_after + 1;
}

NOINLINE float run_step(float* x) {
  launch_work(x);  // MARK: step-launch
  const float v = fetch_scalar(x);  // MARK: step-fetch
  g_after = g_after + 1;
  return v;
}

NOINLINE void worker(float* x, int steps) {
  for (int i = 0; i < steps; ++i) run_step(x);  // MARK: worker-step
  g_after = g_after + 1;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 4;
  float* x = nullptr;
  if (cudaMalloc(&x, 32 * sizeof(float)) != cudaSuccess) return 2;
  for (int i = 0; i < steps; ++i) run_step(x);  // MARK: main-step
  std::thread second(worker, x, steps);
  second.join();
  cudaFree(x);
  return 0;
}
