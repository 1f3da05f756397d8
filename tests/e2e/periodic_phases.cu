// E2E workload for sampled device tracing: a loop with a fixed period, half device work and half
// host work. Each iteration launches `phase_kernel` (its duration set by BRRR_SIM_KERNELS on the
// simulated device), waits for it, then sleeps HOST_MS outside CUDA. A tracing window near the
// loop's period must not alias it: the busy share estimated from windows matches full tracing's.
// Usage: periodic_phases SECONDS HOST_MS
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

__global__ void phase_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const double seconds = std::atof(argv[1]);
  const int host_ms = std::atoi(argv[2]);
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long iterations = 0;
  while (std::chrono::steady_clock::now() < end) {
    phase_kernel<<<1, 32>>>(d);
    if (cudaDeviceSynchronize() != cudaSuccess) return 4;
    std::this_thread::sleep_for(std::chrono::milliseconds(host_ms));
    ++iterations;
  }
  std::printf("iterations %ld\n", iterations);
  return 0;
}
