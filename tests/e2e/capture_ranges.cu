// E2E workload for capture ranges: kernels launched outside and inside ranges, a known number of
// each. `capture_ranges profiler` marks its ranges with cudaProfilerStart/Stop; `capture_ranges
// nvtx` with NVTX ranges named "capture" (one nested in another, and an unrelated "other" range
// holding outside launches). The inside launches are not synchronized before their range ends:
// they still belong to it. Counts are the test's expectations (see capture_e2e_test.cc).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>

__global__ void outside_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}
__global__ void inside_kernel(float* x) {
  if (x) x[threadIdx.x] *= 2.0f;
}

namespace {

bool g_nvtx = false;

void Open() {
  if (g_nvtx) {
    nvtxRangePushA("capture");
  } else {
    cudaProfilerStart();
  }
}
void Close() {
  if (g_nvtx) {
    nvtxRangePop();
  } else {
    cudaProfilerStop();
  }
}

void Outside(float* d, int n) {
  for (int i = 0; i < n; ++i) outside_kernel<<<1, 32>>>(d);
}
void Inside(float* d, int n) {
  for (int i = 0; i < n; ++i) inside_kernel<<<1, 32>>>(d);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "profiler") != 0 && std::strcmp(argv[1], "nvtx") != 0)) {
    std::fprintf(stderr, "usage: capture_ranges profiler|nvtx\n");
    return 2;
  }
  g_nvtx = std::strcmp(argv[1], "nvtx") == 0;
  float* d = nullptr;
  if (cudaMalloc(&d, 4096) != cudaSuccess) return 3;
  Outside(d, 7);
  cudaDeviceSynchronize();

  Open();  // range 1: 5 launches
  Inside(d, 2);
  if (g_nvtx) {
    nvtxRangePushA("capture");  // nested: still one range, counted once
    Inside(d, 3);
    nvtxRangePop();
  } else {
    Inside(d, 3);
  }
  Close();

  Outside(d, 11);
  if (g_nvtx) {
    nvtxRangePushA("other");
    Outside(d, 17);
    nvtxRangePop();
  }
  cudaDeviceSynchronize();

  Open();  // range 2: 3 launches
  Inside(d, 3);
  Close();
  Outside(d, 13);
  cudaDeviceSynchronize();
  cudaFree(d);
  std::printf("done\n");
  return 0;
}
