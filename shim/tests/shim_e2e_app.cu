// The program the end-to-end shim tests run (built with nvcc -cudart shared, run on the simulated
// device): a fixed, known sequence of hooked CUDA calls so that the test can count records.
//   shim_e2e_app <launches> <worker_threads> <exit_code>
// Main thread hooked calls, in order: cudaMalloc, cudaMallocHost, cudaMemcpy (H2D, pageable),
// <launches> kernel launches, cudaMemcpyAsync (D2H into pinned memory), cudaStreamSynchronize,
// cudaDeviceSynchronize, cudaFreeHost, cudaFree  => launches + 8 calls.
// Each worker thread: <launches> launches, cudaDeviceSynchronize => launches + 1 calls.
// Prints a checksum of the data copied back and "done"; exits with <exit_code>.
// Must never: depend on project headers (it stands for an unmodified user program).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

__global__ void scale(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

#define CHECK(call)                                                          \
  do {                                                                       \
    const cudaError_t e = (call);                                            \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(90);                                                         \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s launches workers exit_code\n", argv[0]);
    return 2;
  }
  const int launches = std::atoi(argv[1]);
  const int workers = std::atoi(argv[2]);
  const int exit_code = std::atoi(argv[3]);
  constexpr int kN = 1024;
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  float* device = nullptr;
  float* pinned = nullptr;
  CHECK(cudaMalloc(&device, kN * sizeof(float)));
  CHECK(cudaMallocHost(&pinned, kN * sizeof(float)));
  CHECK(cudaMemcpy(device, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (int i = 0; i < launches; ++i) scale<<<4, 256>>>(device, kN);
      CHECK(cudaDeviceSynchronize());
    });
  }
  for (int i = 0; i < launches; ++i) scale<<<4, 256>>>(device, kN);
  for (auto& t : threads) t.join();
  CHECK(cudaMemcpyAsync(pinned, device, kN * sizeof(float), cudaMemcpyDeviceToHost, 0));
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaDeviceSynchronize());
  uint64_t sum = 1469598103934665603ull;
  for (int i = 0; i < kN; ++i) sum = (sum ^ static_cast<uint64_t>(pinned[i])) * 1099511628211ull;
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  std::printf("checksum=%llu\ndone\n", static_cast<unsigned long long>(sum));
  return exit_code;
}
