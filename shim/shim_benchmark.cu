// Host time per intercepted call (CUDA hooks and NVTX hooks), for comparing runs with and without
// LD_PRELOAD=libbrrr.so (tools/bench/shim_bench.sh runs both and prints the differences of
// medians). Built with `nvcc -cudart shared` like a user program, run on the simulated device
// with BRRR_SIM_LAUNCH_NS=0 so that the real call is as cheap as possible.
//
// With BRRR_BENCH_SEGMENT=create the binary first creates a segment the way `brrr run` does,
// re-executes itself with BRRR_SHM set (the shim reads it at start-up), and drains the rings from a
// background thread the way the collector does, so that the measured writes are never drops.
//
// Must never: link the shim or the project's libraries (it stands for an unmodified program).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "shim/segment_layout.h"

namespace {

__global__ void empty_kernel() {}

void BM_LaunchEmptyKernel(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) {
    empty_kernel<<<1, 1>>>();
    if ((++i & 1023) == 0) cudaStreamSynchronize(0);
  }
  cudaDeviceSynchronize();
}
BENCHMARK(BM_LaunchEmptyKernel);

// The same launches, each timed on its own (CLOCK_MONOTONIC, the same clock cost with and without
// the shim): counters p50_ns and p99_ns of the launch call, for the median launch at the default
// sampling (1 in 64 launches carries its stack) against frame pointers only (shim_bench.sh).
void TimeEach(benchmark::State& state, void (*call)()) {
  std::vector<int64_t> ns;
  ns.reserve(1 << 20);
  for (auto _ : state) {
    timespec a{}, b{};
    clock_gettime(CLOCK_MONOTONIC, &a);
    call();
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (ns.size() < ns.capacity()) {
      ns.push_back((b.tv_sec - a.tv_sec) * 1'000'000'000LL + (b.tv_nsec - a.tv_nsec));
    }
  }
  std::sort(ns.begin(), ns.end());
  if (!ns.empty()) {
    state.counters["p50_ns"] = static_cast<double>(ns[ns.size() / 2]);
    state.counters["p99_ns"] = static_cast<double>(ns[ns.size() * 99 / 100]);
  }
}

void LaunchOnce() {
  static int i = 0;
  empty_kernel<<<1, 1>>>();
  if ((++i & 1023) == 0) cudaStreamSynchronize(0);
}

void BM_LaunchPercentiles(benchmark::State& state) {
  TimeEach(state, &LaunchOnce);
  cudaDeviceSynchronize();
}
BENCHMARK(BM_LaunchPercentiles);

// A device-to-host copy 30 frames down a chain of functions built without frame pointers (this
// file's host code is -O2 -fomit-frame-pointer, as release builds): with BRRR_PY_STALL_US=0 every
// copy counts as a stall and gets its whole stack, through libunwind when BRRR_DWARF_STACKS=1,
// from the frame-pointer walk alone (which stops at once) when 0.
float g_device_value[1];
volatile int g_after_call = 0;
__attribute__((noinline, noipa)) int CopyAtDepth(int depth) {
  if (depth > 0) {
    const int r = CopyAtDepth(depth - 1);
    g_after_call = g_after_call + 1;  // work after the call: no tail call, no loop
    return r;
  }
  float v = 0;
  cudaMemcpy(&v, g_device_value, sizeof(v), cudaMemcpyDeviceToHost);
  return static_cast<int>(v);
}

void BM_StallAtDepth30(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(CopyAtDepth(28));
}
BENCHMARK(BM_StallAtDepth30);

// The same stall, each call timed on its own (CLOCK_MONOTONIC, the same clock cost with and
// without the shim): counters p50_ns and p99_ns of the call's time, for the stack's cost in the
// app at the median and the tail (shim_bench.sh prints them).
void StallOnce() { benchmark::DoNotOptimize(CopyAtDepth(28)); }

void BM_StallAtDepth30Percentiles(benchmark::State& state) { TimeEach(state, &StallOnce); }
BENCHMARK(BM_StallAtDepth30Percentiles);

void BM_StreamQuery(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(cudaStreamQuery(0));
}
BENCHMARK(BM_StreamQuery);

// One NVTX range, push + pop (header-only nvtx3). Without the shim NVTX has no tool and does
// nothing; preloaded, the shim sets NVTX_INJECTION64_PATH and each call is one of its hooks.
void BM_NvtxPushPop(benchmark::State& state) {
  for (auto _ : state) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
}
BENCHMARK(BM_NvtxPushPop);

// The same with a name as long as framework ranges get (hashing the name is per call).
void BM_NvtxPushPopLongName(benchmark::State& state) {
  for (auto _ : state) {
    nvtxRangePushA("model.layers.11.self_attention.linear_qkv.forward");
    nvtxRangePop();
  }
}
BENCHMARK(BM_NvtxPushPopLongName);

std::atomic<bool> g_stop{false};

// The collector's part: keep every ring empty (R1/R2) so that the shim always writes.
void Drain(void* base, brrr::ring::SegmentGeometry g, brrr::ring::SegmentLayout l) {
  using brrr::ring::RingState;
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (uint32_t i = 0; i < g.max_threads; ++i) {
      brrr::ring::RingHeader* r = brrr::ring::ThreadRingAt(base, l, i);
      const uint32_t s = r->state.load(std::memory_order_acquire);
      if (s != static_cast<uint32_t>(RingState::kActive) &&
          s != static_cast<uint32_t>(RingState::kRetired)) {
        continue;
      }
      r->read_index.store(r->write_index.load(std::memory_order_acquire),
                          std::memory_order_release);
    }
    usleep(200);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = getenv("BRRR_BENCH_SEGMENT");
  if (mode != nullptr && std::string(mode) == "create" && getenv("BRRR_SHM") == nullptr) {
    const std::string name = "/brrr-bench-" + std::to_string(getpid());
    const brrr::ring::SegmentGeometry g;
    const brrr::ring::SegmentLayout l = brrr::ring::ComputeLayout(g);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(l.segment_size)) != 0) {
      std::perror("shm");
      return 1;
    }
    void* base = mmap(nullptr, l.segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    brrr::ring::WriteGeometry(g, static_cast<brrr::ring::SegmentHeader*>(base));
    munmap(base, l.segment_size);
    setenv("BRRR_SHM", name.c_str(), 1);
    execv("/proc/self/exe", argv);
    std::perror("execv");
    return 1;
  }
  std::thread drainer;
  void* base = nullptr;
  uint64_t size = 0;
  const char* shm = getenv("BRRR_SHM");
  if (shm != nullptr) {
    const int fd = shm_open(shm, O_RDWR, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
      size = static_cast<uint64_t>(st.st_size);
      base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      brrr::ring::SegmentGeometry g;
      brrr::ring::SegmentLayout l;
      if (base != MAP_FAILED &&
          brrr::ring::ValidateHeader(*static_cast<brrr::ring::SegmentHeader*>(base), size, &g,
                                     &l) == brrr::ring::HeaderCheck::kOk) {
        drainer = std::thread(Drain, base, g, l);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (shm != nullptr) shm_unlink(shm);  // after the shim opened it (lazily, at its first hook)
  if (drainer.joinable()) {
    g_stop = true;
    drainer.join();
    const auto* h = static_cast<brrr::ring::SegmentHeader*>(base);
    uint64_t written = 0, dropped = 0;
    for (uint32_t i = 0; i < h->max_threads && i < 4096; ++i) {
      brrr::ring::SegmentLayout l = brrr::ring::ComputeLayout(
          {h->max_threads, h->ring_capacity, h->device_capacity, h->stack_slots, h->name_slots});
      written += brrr::ring::ThreadRingAt(base, l, i)->write_index.load();
      dropped += brrr::ring::ThreadRingAt(base, l, i)->dropped.load();
    }
    std::fprintf(stderr, "segment: %llu records written, %llu dropped\n",
                 static_cast<unsigned long long>(written),
                 static_cast<unsigned long long>(dropped));
  }
  return 0;
}
