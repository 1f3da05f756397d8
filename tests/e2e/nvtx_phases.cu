// E2E workload: a training-loop shape marked with NVTX (header-only nvtx3), whose phases brrr must
// report exactly. Each of `steps` steps is
//   push "step"
//     push "fwd":  `fwd` launches of fwd_kernel                      (launch-bound: short kernels)
//     push "bwd":  `bwd` launches of bwd_kernel, cudaDeviceSynchronize (a stall)
//     push in domain "app" the registered string "optimizer": 1 launch of opt_kernel
//     cudaDeviceSynchronize
//     push "host": 300 us of host work only (the device idles, the host is outside CUDA)
//   pop
// then a start/end range "eval" in domain "app": `evals` launches of eval_kernel and a sync.
// Usage: nvtx_phases [steps fwd bwd evals]. The counts are the test's expectations
// (nvtx_e2e_test.cc); kernel durations come from BRRR_SIM_KERNELS.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fwd_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}
__global__ void bwd_kernel(float* x) {
  if (x) x[threadIdx.x] -= 1.0f;
}
__global__ void opt_kernel(float* x) {
  if (x) x[threadIdx.x] *= 0.5f;
}
__global__ void eval_kernel(float* x) {
  if (x) x[threadIdx.x] += 2.0f;
}

namespace {

constexpr int kHostWorkUs = 300;

nvtxEventAttributes_t Attributes() {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof(a));
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

// Host work the device does not wait on: a busy loop of `us` microseconds, no CUDA call.
void HostWork(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int fwd = argc > 2 ? std::atoi(argv[2]) : 4;
  const int bwd = argc > 3 ? std::atoi(argv[3]) : 2;
  const int evals = argc > 4 ? std::atoi(argv[4]) : 3;
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;

  nvtxDomainHandle_t app = nvtxDomainCreateA("app");
  nvtxEventAttributes_t optimizer = Attributes();
  optimizer.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  optimizer.message.registered = nvtxDomainRegisterStringA(app, "optimizer");

  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA("step");

    nvtxRangePushA("fwd");
    for (int i = 0; i < fwd; ++i) fwd_kernel<<<1, 32>>>(d);
    nvtxRangePop();

    nvtxRangePushA("bwd");
    for (int i = 0; i < bwd; ++i) bwd_kernel<<<1, 32>>>(d);
    if (cudaDeviceSynchronize() != cudaSuccess) return 4;
    nvtxRangePop();

    nvtxDomainRangePushEx(app, &optimizer);
    opt_kernel<<<1, 32>>>(d);
    nvtxDomainRangePop(app);

    // The device drains (in "step", outside the sub-phases), then idles while the host works.
    if (cudaDeviceSynchronize() != cudaSuccess) return 4;
    nvtxRangePushA("host");
    HostWork(kHostWorkUs);
    nvtxRangePop();

    nvtxRangePop();
  }

  nvtxEventAttributes_t eval = Attributes();
  eval.messageType = NVTX_MESSAGE_TYPE_ASCII;
  eval.message.ascii = "eval";
  const nvtxRangeId_t eval_range = nvtxDomainRangeStartEx(app, &eval);
  for (int i = 0; i < evals; ++i) eval_kernel<<<1, 32>>>(d);
  if (cudaDeviceSynchronize() != cudaSuccess) return 5;
  nvtxDomainRangeEnd(app, eval_range);

  cudaFree(d);
  std::printf("steps %d\n", steps);
  return 0;
}
