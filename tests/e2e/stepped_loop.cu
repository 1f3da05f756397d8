// E2E workload: a training loop whose steps are NVTX ranges named as torch.profiler's schedule
// names them (ProfilerStep#N; header-only nvtx3). Each step launches 3 kernels and reads one
// float back (cudaMemcpy D2H: a stall on the kernels); with --no-readback it does not (and does
// not wait for its kernels at all: the queue runs ahead, one sync at the end). Every SLOW_EVERY-th
// step (the 10th, 20th, ...) first spends SLOW_US on the host waiting for its batch.
// Usage: stepped_loop STEPS SLOW_EVERY SLOW_US [--no-readback] [--range NAME] [--extra-sync]
// (--range NAME: name every step NAME instead; --extra-sync: each step also allocates and frees a
// buffer before its read-back, a hidden sync: cudaFree waits for the device). Kernel durations
// come from BRRR_SIM_KERNELS.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void step_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

// A scratch buffer allocated and freed inside the step: the free synchronizes the device.
__attribute__((noinline)) bool extra_sync() {
  void* scratch = nullptr;
  if (cudaMalloc(&scratch, 256) != cudaSuccess) return false;
  return cudaFree(scratch) == cudaSuccess;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: stepped_loop STEPS SLOW_EVERY SLOW_US [--no-readback] [--range NAME] "
                 "[--extra-sync]\n");
    return 2;
  }
  const int steps = std::atoi(argv[1]), every = std::atoi(argv[2]), slow_us = std::atoi(argv[3]);
  bool readback = true, extra = false;
  std::string range;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-readback") == 0) {
      readback = false;
    } else if (std::strcmp(argv[i], "--extra-sync") == 0) {
      extra = true;
    } else if (std::strcmp(argv[i], "--range") == 0 && i + 1 < argc) {
      range = argv[++i];
    } else {
      std::fprintf(stderr, "stepped_loop: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  float host = 0;
  for (int step = 0; step < steps; ++step) {
    const std::string name = range.empty() ? "ProfilerStep#" + std::to_string(step) : range;
    nvtxRangePushA(name.c_str());
    if (every > 0 && step % every == every - 1) usleep(static_cast<useconds_t>(slow_us));
    for (int k = 0; k < 3; ++k) step_kernel<<<1, 32>>>(d);
    if (extra && !extra_sync()) return 6;
    if (readback && cudaMemcpy(&host, d, sizeof(host), cudaMemcpyDeviceToHost) != cudaSuccess) {
      return 4;
    }
    nvtxRangePop();
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 5;
  std::printf("stepped_loop: %d steps\n", steps);
  return 0;
}
