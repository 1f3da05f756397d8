// E2E workload written the way public CUDA programs are (NVIDIA's samples, PyTorch start-up): it
// picks the device by its attributes and prints its figures, sets blocking-sync device flags,
// registers mapped pinned memory and asks for its device pointer, runs host functions in a stream,
// moves a pitched 2D region, sizes a launch with the occupancy API, and waits for an event in a
// cudaEventQuery polling loop (the line marked "MARK: poll"). Prints "RESULT ok" when every check
// passed; the counts are the test's expectations (see gpu_sample_style_e2e_test.cc).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"

#define NOINLINE __attribute__((noinline))

__global__ void scale(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
__global__ void long_step(float* x) {
  if (x) x[0] += 1.0f;
}

namespace {

constexpr int kScaleLaunches = 20;
constexpr int kPolls = 3;
constexpr int kHostFunctions = 4;

// Cores per SM by compute capability, as device-query programs print them.
int CoresPerSm(int major, int minor) {
  struct Row {
    int sm;
    int cores;
  };
  static const Row kRows[] = {{0x70, 64},  {0x75, 64},  {0x80, 64}, {0x86, 128},
                              {0x89, 128}, {0x90, 128}, {0xa0, 128}};
  for (const Row& r : kRows) {
    if (r.sm == ((major << 4) + minor)) return r.cores;
  }
  return 128;
}

// The most capable device that is not prohibited: SMs x cores x clock.
NOINLINE int PickDevice() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  int best = -1;
  unsigned long long best_perf = 0;
  for (int d = 0; d < count; ++d) {
    int mode = 0, major = 0, minor = 0, sms = 0, clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d));
    if (mode == cudaComputeModeProhibited) continue;
    const unsigned long long perf =
        static_cast<unsigned long long>(sms) * CoresPerSm(major, minor) * clock_khz;
    if (perf > best_perf) {
      best_perf = perf;
      best = d;
    }
  }
  return best;
}

int g_host_function_runs = 0;
void CountRun(void* arg) { ++*static_cast<int*>(arg); }

// A polling loop on an event, as programs overlap host work with the device.
NOINLINE long poll_for_event(cudaEvent_t done) {
  long spins = 0;
  while (cudaEventQuery(done) == cudaErrorNotReady) ++spins;  // MARK: poll
  return spins;
}

}  // namespace

int main() {
  const int device = PickDevice();
  if (device < 0) return 2;
  CHECK(cudaSetDevice(device));
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, device));
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("device %d: %s, CC %d.%d, %d SMs x %d cores, %zu MiB free of %zu\n", device,
              prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              CoresPerSm(prop.major, prop.minor), free_bytes >> 20, total_bytes >> 20);
  if (!prop.canMapHostMemory) return 2;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));

  // Mapped pinned memory: page-aligned, registered, used through its device pointer.
  constexpr int kN = 1 << 14;
  void* host = nullptr;
  if (posix_memalign(&host, 4096, kN * sizeof(float)) != 0) return 2;
  float* h = static_cast<float*>(host);
  for (int i = 0; i < kN; ++i) h[i] = static_cast<float>(i);
  CHECK(cudaHostRegister(host, kN * sizeof(float), cudaHostRegisterMapped));
  float* mapped = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped), host, 0));

  // A launch sized by the occupancy API.
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale, 0, 0));
  const int grid = (kN + block - 1) / block;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, kN * sizeof(float)));
  CHECK(cudaMemcpyAsync(d, mapped, kN * sizeof(float), cudaMemcpyHostToDevice, stream));
  for (int i = 0; i < kScaleLaunches; ++i) {
    scale<<<grid, block, 0, stream>>>(d, kN);
    if (i % (kScaleLaunches / kHostFunctions) == 0) {
      CHECK(cudaLaunchHostFunc(stream, CountRun, &g_host_function_runs));
    }
  }
  CHECK(cudaStreamSynchronize(stream));
  if (g_host_function_runs != kHostFunctions) return 4;

  // A pitched 2D round trip.
  constexpr size_t kWidth = 200, kHeight = 16;
  char* pitched = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, kWidth, kHeight));
  std::vector<char> in(kWidth * kHeight), out(kWidth * kHeight, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>(i * 7);
  CHECK(cudaMemcpy2D(pitched, pitch, in.data(), kWidth, kWidth, kHeight, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2D(out.data(), kWidth, pitched, pitch, kWidth, kHeight, cudaMemcpyDeviceToHost));
  if (std::memcmp(in.data(), out.data(), in.size()) != 0) return 5;

  // Polling for an event while the device works.
  cudaEvent_t done;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  long spins = 0;
  for (int i = 0; i < kPolls; ++i) {
    long_step<<<1, 1, 0, stream>>>(d);
    CHECK(cudaEventRecord(done, stream));
    spins += poll_for_event(done);
  }

  CHECK(cudaEventDestroy(done));
  CHECK(cudaFree(pitched));
  CHECK(cudaFree(d));
  CHECK(cudaHostUnregister(host));
  std::free(host);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaDeviceReset());
  std::printf("host functions %d, polls %ld\nRESULT ok\n", g_host_function_runs, spins);
  return 0;
}
