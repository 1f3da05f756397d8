// E2E workload: T threads each launch N kernels on their per-thread default stream, then
// synchronize it. Prints the exact number of runtime calls it made, which brrr must account for
// as recorded + dropped. Usage: threaded_launches [threads] [launches_per_thread]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

__global__ void tick(int* x) {
  if (x) x[0] = 1;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 50000;
  int* d = nullptr;
  if (cudaMalloc(&d, 64) != cudaSuccess) return 3;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      for (int i = 0; i < launches; ++i) tick<<<1, 1, 0, cudaStreamPerThread>>>(d);
      cudaStreamSynchronize(cudaStreamPerThread);
    });
  }
  for (auto& th : pool) th.join();
  cudaFree(d);
  // cudaMalloc + per thread (launches + one sync) + cudaFree.
  const long calls = 2L + long(threads) * (launches + 1);
  std::printf("calls %ld\n", calls);
  return 0;
}
