// What a null free does on the real driver (issue 26): brrr took the process's first call,
// cudaFree(NULL) (200 ms on an H100: the runtime creating its context), for a free that waited
// for the device. Times, in one process, with the device idle or busy with a spin kernel:
//   1. cudaFree(NULL) as the first CUDA call (CUDA initialization);
//   2. cudaFree(NULL) again, idle;
//   3. cudaFree(NULL) while a kernel of about SPIN_MS runs;
//   4. cudaFreeHost(NULL) while it runs;
//   5. cudaFree(p) of a real allocation while it runs (expected to wait for the kernel);
// after each of 3-5, the cudaDeviceSynchronize that drains what is left of the kernel.
// Prints "probe<TAB>what<TAB>microseconds<TAB>result" per step, then "spin_ms<TAB>N".
//
//   free_null_probe [SPIN_MS]      (default 100)
//
// Must never: leave the device busy at exit (it synchronizes before returning).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

__global__ void Spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double MicrosSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F>
bool Time(const char* what, F call) {
  const auto t0 = std::chrono::steady_clock::now();
  const cudaError_t rc = call();
  const double us = MicrosSince(t0);
  printf("probe\t%s\t%.1f\t%s\n", what, us, cudaGetErrorName(rc));
  return rc == cudaSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  const int spin_ms = argc > 1 ? atoi(argv[1]) : 100;
  if (!Time("cudaFree(NULL) first call", [] { return cudaFree(nullptr); })) return 1;
  Time("cudaFree(NULL) idle", [] { return cudaFree(nullptr); });
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  const long long cycles = static_cast<long long>(clock_khz) * spin_ms;
  void* p = nullptr;
  if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 1;
  // Each timed call gets a fresh spin kernel, so that one that waited leaves the next a busy
  // device too.
  Spin<<<1, 1>>>(cycles);
  Time("cudaFree(NULL) kernel running", [] { return cudaFree(nullptr); });
  Time("cudaDeviceSynchronize after it", [] { return cudaDeviceSynchronize(); });
  Spin<<<1, 1>>>(cycles);
  Time("cudaFreeHost(NULL) kernel running", [] { return cudaFreeHost(nullptr); });
  Time("cudaDeviceSynchronize after it", [] { return cudaDeviceSynchronize(); });
  Spin<<<1, 1>>>(cycles);
  Time("cudaFree(p) kernel running", [p] { return cudaFree(p); });
  Time("cudaDeviceSynchronize after it", [] { return cudaDeviceSynchronize(); });
  printf("spin_ms\t%d\n", spin_ms);
  return 0;
}
