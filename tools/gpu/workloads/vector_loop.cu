// GPU acceptance workload: a loop with a known number of kernel launches and a device-to-host copy
// every N iterations (the ".item()" pattern), so a profiler's kernel count can be checked exactly.
// Built twice by tools/gpu/acceptance.sh: with nvcc's default static cudart and with
// `-cudart shared` (which also runs on the simulated device, tools/simcuda).
//
// Usage: vector_loop [--iters N] [--copy-every K] [--exit-code C] [--verify]
// Prints "kernel_launches=<n>" on stdout, the exact number of kernels it launched.
// --verify checks the numbers the kernels computed (only meaningful on a real GPU: the simulated
// device runs no kernel code).
//
// Must never: launch a kernel that is not counted in kernel_launches, or exit with a status other
// than --exit-code when every CUDA call succeeded.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

__global__ void AddOne(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void Double(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "vector_loop: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

struct Options {
  int iters = 1000;
  int copy_every = 10;
  int exit_code = 0;
  bool verify = false;
};

bool ParseInt(const char* text, int min, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > 100000000) return false;
  *out = static_cast<int>(v);
  return true;
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--verify") == 0) {
      o->verify = true;
    } else if (std::strcmp(argv[i], "--iters") == 0 && has_value) {
      if (!ParseInt(argv[++i], 1, &o->iters)) return false;
    } else if (std::strcmp(argv[i], "--copy-every") == 0 && has_value) {
      if (!ParseInt(argv[++i], 1, &o->copy_every)) return false;
    } else if (std::strcmp(argv[i], "--exit-code") == 0 && has_value) {
      if (!ParseInt(argv[++i], 0, &o->exit_code) || o->exit_code > 255) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: vector_loop [--iters N] [--copy-every K] [--exit-code C] [--verify]\n");
    return 2;
  }
  constexpr int kN = 1 << 16;
  constexpr int kThreads = 256;
  constexpr int kBlocks = (kN + kThreads - 1) / kThreads;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, kN * sizeof(float)));
  CHECK(cudaMemset(d, 0, kN * sizeof(float)));
  long launches = 0;
  float expected = 0.0f;
  float seen = 0.0f;
  bool ok = true;
  for (int it = 1; it <= o.iters; ++it) {
    AddOne<<<kBlocks, kThreads>>>(d, kN);
    ++launches;
    expected += 1.0f;
    if (it % 4 == 0) {  // keep values small: a doubling every 4th step, then a reset by copy below
      Double<<<kBlocks, kThreads>>>(d, kN);
      ++launches;
      expected *= 2.0f;
    }
    CHECK(cudaGetLastError());
    if (it % o.copy_every == 0) {
      CHECK(cudaMemcpy(&seen, d + kN - 1, sizeof(float), cudaMemcpyDeviceToHost));
      if (o.verify && seen != expected) ok = false;
      CHECK(cudaMemset(d, 0, kN * sizeof(float)));
      expected = 0.0f;
    }
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
  std::printf("kernel_launches=%ld\n", launches);
  if (!ok) {
    std::fprintf(stderr, "vector_loop: --verify: the device computed wrong values\n");
    return 1;
  }
  return o.exit_code;
}
