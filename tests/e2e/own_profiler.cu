// An app with a CUPTI tool of its own, as PyTorch with torch.profiler: the tool
// (own_profiler_tool.cc, libe2e_own_profiler_tool.so, dlopen()ed RTLD_LOCAL with its libcupti, as
// Python loads libtorch_cuda.so) subscribes, registers its activity buffers and counts the kernel
// records it receives.
//   e2e_own_profiler TOOL.so early|late   early: the tool starts before the app's first CUDA
//                                        call; late: after 50 launches (brrr holds CUPTI by then)
// Prints "tool: subscribe=R kernels=N" and exits 0 when its subscription succeeded and it saw
// exactly the launches made since it started (80 early, 30 late), 3 otherwise: what brrr must
// never change.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

__global__ void Work(float* x) { x[threadIdx.x] += 1.0f; }

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  void* tool = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (tool == nullptr) return std::fprintf(stderr, "%s\n", dlerror()), 2;
  const auto start = reinterpret_cast<int (*)()>(dlsym(tool, "OwnToolStart"));
  const auto kernels = reinterpret_cast<int (*)()>(dlsym(tool, "OwnToolKernels"));
  if (start == nullptr || kernels == nullptr) return 2;
  const bool early = std::strcmp(argv[2], "early") == 0;
  int subscribed = -1;
  if (early) subscribed = start();
  float* x = nullptr;
  if (cudaMalloc(&x, 32 * sizeof(float)) != cudaSuccess) return 2;
  for (int i = 0; i < 50; ++i) Work<<<1, 32>>>(x);  // before the tool, when it starts late
  cudaDeviceSynchronize();
  if (!early) subscribed = start();
  for (int i = 0; i < 30; ++i) Work<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  const int seen = kernels();
  const int expected = early ? 80 : 30;  // every launch since the tool started
  std::printf("tool: subscribe=%d kernels=%d\n", subscribed, seen);
  cudaFree(x);
  return subscribed == 0 && seen == expected ? 0 : 3;
}
