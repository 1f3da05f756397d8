// E2E workload for always-on profiling: tiny kernels launched at a steady, slow pace (one per
// interval), so that CUPTI's buffers fill slowly and only a periodic flush gets their records out
// before a kill. After every launch it writes "PID COUNT" into COUNTER_FILE (fixed width, one
// pwrite), so a test that kills it knows how many launches it made.
// Usage: steady_launches SECONDS COUNTER_FILE [INTERVAL_US]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

__global__ void tick(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const double seconds = std::atof(argv[1]);
  const int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 2;
  const int interval_us = argc > 3 ? std::atoi(argv[3]) : 1000;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long launches = 0;
  char line[64];
  while (std::chrono::steady_clock::now() < end) {
    tick<<<1, 32>>>(d);
    ++launches;
    const int n = std::snprintf(line, sizeof(line), "%10d %12ld\n", static_cast<int>(getpid()),
                                launches);
    if (pwrite(fd, line, static_cast<size_t>(n), 0) != n) return 5;
    std::this_thread::sleep_for(std::chrono::microseconds(interval_us));
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  std::printf("launched %ld\n", launches);
  return 0;
}
