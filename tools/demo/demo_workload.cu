// The bundled demo workload: a small CUDA program whose phases show each regime brrr reports
// (launch-bound tiny kernels, hidden synchronizations, a device-bound stretch, host-side work).
// It runs on a real GPU or on the simulated device (tools/simcuda). It must stay deterministic in
// its output and exit code so that tests can compare runs with and without brrr. Each phase is an
// NVTX range, as training code marks its steps, so the report shows them as phases.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

__global__ void tiny_add(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void big_matmul_like(float* x, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < reps; ++r) v = v * 0.999f + 0.001f;
  x[i] = v;
}

// One NVTX range for the lifetime of a scope (what torch.cuda.nvtx.range does in Python).
struct Phase {
  explicit Phase(const char* name) { nvtxRangePushA(name); }
  ~Phase() { nvtxRangePop(); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
};

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "demo: %s failed: %s\n", #call, cudaGetErrorString(err_));      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// Many tiny kernels: the host cannot launch them as fast as the device runs them.
void LaunchBoundPhase(float* d, int n, int iterations) {
  for (int i = 0; i < iterations; ++i) tiny_add<<<(n + 255) / 256, 256>>>(d, n);
  CHECK(cudaGetLastError());
}

// The ".item()" pattern: a small device-to-host copy after every step stalls the host.
float ReadScalarEveryStep(float* d, int n, int steps) {
  float value = 0;
  for (int s = 0; s < steps; ++s) {
    tiny_add<<<(n + 255) / 256, 256>>>(d, n);
    CHECK(cudaMemcpy(&value, d, sizeof(value), cudaMemcpyDeviceToHost));
  }
  return value;
}

// cudaMemcpyAsync from pageable memory is not asynchronous.
void PageableAsyncCopy(float* d, int n, cudaStream_t stream) {
  std::vector<float> host(n, 2.0f);
  for (int k = 0; k < 4; ++k) {
    big_matmul_like<<<(n + 255) / 256, 256, 0, stream>>>(d, n, 64);
    CHECK(cudaMemcpyAsync(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  }
}

// Allocating and freeing scratch memory in the loop: cudaFree synchronizes the device.
void FreeInLoop(int n, int steps) {
  for (int s = 0; s < steps; ++s) {
    float* scratch = nullptr;
    CHECK(cudaMalloc(&scratch, n * sizeof(float)));
    big_matmul_like<<<(n + 255) / 256, 256>>>(scratch, n, 256);
    CHECK(cudaFree(scratch));
  }
}

// Long kernels back to back: the device is the bottleneck.
void DeviceBoundPhase(float* d, int n, int kernels) {
  for (int k = 0; k < kernels; ++k) big_matmul_like<<<(n + 255) / 256, 256>>>(d, n, 4096);
  CHECK(cudaDeviceSynchronize());
}

// The host prepares the next batch without touching CUDA (data loading).
void HostOnlyWork(std::chrono::milliseconds how_long) { std::this_thread::sleep_for(how_long); }

}  // namespace

int main(int argc, char** argv) {
  int scale = argc > 1 ? std::atoi(argv[1]) : 1;
  if (scale < 1) scale = 1;
  const int n = 1 << 16;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemset(d, 0, n * sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int round = 0; round < scale; ++round) {
    Phase step("round");
    float v = 0;
    {
      Phase p("load_batch");
      HostOnlyWork(std::chrono::milliseconds(5));
    }
    {
      Phase p("tiny_ops");
      LaunchBoundPhase(d, n, 2000);
    }
    {
      Phase p("log_scalar");
      v = ReadScalarEveryStep(d, n, 200);
    }
    {
      Phase p("pageable_copy");
      PageableAsyncCopy(d, n, stream);
    }
    {
      Phase p("scratch_alloc");
      FreeInLoop(n, 20);
    }
    {
      Phase p("big_kernels");
      DeviceBoundPhase(d, n, 20);
    }
    std::printf("round %d: scalar %s\n", round, v >= 0 ? "ok" : "bad");
  }
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d));
  std::printf("demo: done\n");
  return 0;
}
