// A standalone CUDA program, built at test time with plain `nvcc -cudart shared` and nothing
// from the project, to show that an unmodified program runs on the simulated device. It prints:
//   cudart=<path of the libcudart it loaded>
//   checksum_sent=<n> checksum_received=<n>   (data through H2D, D2D, D2H copies)
//   d2h_after_kernels_ns=<n>                  (a D2H copy queued behind 10 kernels)
// Exit status 0 unless a CUDA call failed. Must stay free of project headers.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#define SOVERSION_STRING_(x) #x
#define SOVERSION_STRING(x) SOVERSION_STRING_(x)

__global__ void busy(float* data) {
  if (data != nullptr) data[threadIdx.x] *= 2.0f;
}

static uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

static uint64_t Checksum(const std::vector<uint32_t>& values) {
  uint64_t sum = 1469598103934665603ull;
  for (uint32_t v : values) sum = (sum ^ v) * 1099511628211ull;
  return sum;
}

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t error_ = (call);                                                  \
    if (error_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(error_)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

int main() {
  void* cudart =
      dlopen("libcudart.so." SOVERSION_STRING(CUDART_SOVERSION), RTLD_LAZY | RTLD_NOLOAD);
  link_map* map = nullptr;
  if (cudart != nullptr && dlinfo(cudart, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr) {
    std::printf("cudart=%s\n", map->l_name);
  }

  const size_t count = 1 << 18;
  std::vector<uint32_t> sent(count);
  std::vector<uint32_t> received(count, 0);
  for (size_t i = 0; i < count; ++i) sent[i] = static_cast<uint32_t>(i * 2654435761u);
  uint32_t* a = nullptr;
  uint32_t* b = nullptr;
  CHECK(cudaMalloc(&a, count * sizeof(uint32_t)));
  CHECK(cudaMalloc(&b, count * sizeof(uint32_t)));
  CHECK(cudaMemcpy(a, sent.data(), count * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, a, count * sizeof(uint32_t), cudaMemcpyDeviceToDevice));

  const uint64_t start = NowNs();
  for (int i = 0; i < 10; ++i) busy<<<1, 32>>>(nullptr);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(received.data(), b, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  const uint64_t elapsed = NowNs() - start;

  std::printf("checksum_sent=%llu checksum_received=%llu\n",
              static_cast<unsigned long long>(Checksum(sent)),
              static_cast<unsigned long long>(Checksum(received)));
  std::printf("d2h_after_kernels_ns=%llu\n", static_cast<unsigned long long>(elapsed));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  if (cudart != nullptr) dlclose(cudart);
  return 0;
}
