// A small CUDA program the simulated-stack tests run as a child process, to observe how a program
// starts (bad BRRR_SIM_* settings) and ends (exit with work still queued). Usage:
//   sim_probe roundtrip                    copy data through the device and check it; "probe ok"
//   sim_probe exit-with-queued-work        queue ~200 ms of kernels, return from main at once
//   sim_probe exit-with-queued-work-cupti  the same with CUPTI activity recording on
// Exit status 0 on success, 1 on a CUDA error or wrong data, 2 on bad usage.
// Must never synchronize before exiting in the exit-with-queued-work modes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cupti_recorder.h"
#include "sim_kernels.cuh"

namespace {

bool Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return true;
  std::fprintf(stderr, "sim_probe: %s: %s\n", what, cudaGetErrorString(error));
  return false;
}

int RoundTrip() {
  constexpr int kCount = 1024;
  std::vector<float> sent(kCount);
  std::vector<float> received(kCount, -1.0f);
  for (int i = 0; i < kCount; ++i) sent[i] = static_cast<float>(i) * 0.5f;
  float* device = nullptr;
  if (!Check(cudaMalloc(&device, kCount * sizeof(float)), "cudaMalloc")) return 1;
  if (!Check(cudaMemcpy(device, sent.data(), kCount * sizeof(float), cudaMemcpyHostToDevice),
             "cudaMemcpy H2D")) {
    return 1;
  }
  plain<<<1, 1>>>(nullptr);
  if (!Check(cudaGetLastError(), "launch")) return 1;
  if (!Check(cudaMemcpy(received.data(), device, kCount * sizeof(float), cudaMemcpyDeviceToHost),
             "cudaMemcpy D2H")) {
    return 1;
  }
  if (!Check(cudaFree(device), "cudaFree")) return 1;
  if (std::memcmp(sent.data(), received.data(), kCount * sizeof(float)) != 0) {
    std::fprintf(stderr, "sim_probe: data changed in the round trip\n");
    return 1;
  }
  std::printf("probe ok\n");
  return 0;
}

int ExitWithQueuedWork() {
  cudaStream_t stream = nullptr;
  if (!Check(cudaStreamCreate(&stream), "cudaStreamCreate")) return 1;
  for (int i = 0; i < 10; ++i) k20ms<<<1, 1, 0, stream>>>(nullptr);
  plain<<<1, 1>>>(nullptr);
  if (!Check(cudaGetLastError(), "launch")) return 1;
  std::printf("queued\n");
  std::fflush(stdout);
  return 0;  // no synchronization, no cudaStreamDestroy: the runtime must cope at exit
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 2 ? argv[1] : "";
  if (mode == "roundtrip") return RoundTrip();
  if (mode == "exit-with-queued-work") return ExitWithQueuedWork();
  if (mode == "exit-with-queued-work-cupti") {
    const std::string error = brrr::simtest::StartActivityRecording({});
    if (!error.empty()) {
      std::fprintf(stderr, "sim_probe: %s\n", error.c_str());
      return 1;
    }
    return ExitWithQueuedWork();
  }
  std::fprintf(stderr,
               "usage: sim_probe roundtrip|exit-with-queued-work|exit-with-queued-work-cupti\n");
  return 2;
}
