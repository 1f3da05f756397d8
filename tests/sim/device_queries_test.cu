// The calls real programs make before and around their work (NVIDIA's sample helpers, deviceQuery,
// bandwidthTest, simpleStreams, PyTorch start-up): device attributes that agree with the
// properties and with the published H100 SXM figures, device flags and how a wait spends host CPU,
// memory info, mapped pinned memory, host work in stream order, 2D copies, managed and pitched
// memory, function attributes and occupancy, and the error codes for bad arguments.
// Expected figures come from NVIDIA's H100 documentation and the occupancy rules, never from the
// simulator.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "cupti_recorder.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using DeviceQueriesTest = SimTest;

int Attribute(cudaDeviceAttr attr) {
  int value = -12345;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, attr, 0), cudaSuccess) << attr;
  return value;
}

TEST_F(DeviceQueriesTest, AttributesAreThoseOfAnH100Sxm) {
  EXPECT_EQ(Attribute(cudaDevAttrComputeCapabilityMajor), 9);
  EXPECT_EQ(Attribute(cudaDevAttrComputeCapabilityMinor), 0);
  EXPECT_EQ(Attribute(cudaDevAttrMultiProcessorCount), 132);
  EXPECT_EQ(Attribute(cudaDevAttrComputeMode), cudaComputeModeDefault);
  EXPECT_EQ(Attribute(cudaDevAttrMaxThreadsPerMultiProcessor), 2048);
  EXPECT_EQ(Attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor), 228 * 1024);
  EXPECT_EQ(Attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin), 227 * 1024);
  EXPECT_EQ(Attribute(cudaDevAttrMaxRegistersPerMultiprocessor), 65536);
  EXPECT_EQ(Attribute(cudaDevAttrL2CacheSize), 50 * 1024 * 1024);
  EXPECT_EQ(Attribute(cudaDevAttrGlobalMemoryBusWidth), 5120);
  EXPECT_EQ(Attribute(cudaDevAttrWarpSize), 32);
  EXPECT_GT(Attribute(cudaDevAttrClockRate), 1000000) << "kHz";
  EXPECT_EQ(Attribute(cudaDevAttrCanMapHostMemory), 1);
  EXPECT_EQ(Attribute(cudaDevAttrUnifiedAddressing), 1);
  EXPECT_EQ(Attribute(cudaDevAttrManagedMemory), 1);
  EXPECT_EQ(Attribute(cudaDevAttrCooperativeLaunch), 1);
}

TEST_F(DeviceQueriesTest, AttributesAgreeWithTheProperties) {
  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.totalGlobalMem, 80ull << 30);
  EXPECT_EQ(Attribute(cudaDevAttrMaxThreadsPerBlock), p.maxThreadsPerBlock);
  EXPECT_EQ(Attribute(cudaDevAttrMaxBlockDimX), p.maxThreadsDim[0]);
  EXPECT_EQ(Attribute(cudaDevAttrMaxBlockDimZ), p.maxThreadsDim[2]);
  EXPECT_EQ(Attribute(cudaDevAttrMaxGridDimX), p.maxGridSize[0]);
  EXPECT_EQ(Attribute(cudaDevAttrMaxGridDimY), p.maxGridSize[1]);
  EXPECT_EQ(Attribute(cudaDevAttrMaxSharedMemoryPerBlock), static_cast<int>(p.sharedMemPerBlock));
  EXPECT_EQ(Attribute(cudaDevAttrTotalConstantMemory), static_cast<int>(p.totalConstMem));
  EXPECT_EQ(Attribute(cudaDevAttrMaxRegistersPerBlock), p.regsPerBlock);
  EXPECT_EQ(Attribute(cudaDevAttrMultiProcessorCount), p.multiProcessorCount);
  EXPECT_EQ(Attribute(cudaDevAttrComputeCapabilityMajor), p.major);
  EXPECT_EQ(Attribute(cudaDevAttrComputeCapabilityMinor), p.minor);
  EXPECT_EQ(Attribute(cudaDevAttrL2CacheSize), p.l2CacheSize);
  EXPECT_EQ(Attribute(cudaDevAttrAsyncEngineCount), p.asyncEngineCount);
  EXPECT_EQ(Attribute(cudaDevAttrMaxBlocksPerMultiprocessor), p.maxBlocksPerMultiProcessor);
  EXPECT_EQ(Attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin),
            static_cast<int>(p.sharedMemPerBlockOptin));
  EXPECT_EQ(Attribute(cudaDevAttrReservedSharedMemoryPerBlock),
            static_cast<int>(p.reservedSharedMemPerBlock));
  EXPECT_EQ(Attribute(cudaDevAttrPciBusId), p.pciBusID);
  EXPECT_EQ(Attribute(cudaDevAttrMaxTexture2DHeight), p.maxTexture2D[1]);
  EXPECT_EQ(Attribute(cudaDevAttrMaxSurfaceCubemapLayeredLayers), p.maxSurfaceCubemapLayered[1]);
  EXPECT_EQ(Attribute(cudaDevAttrHostRegisterSupported), p.hostRegisterSupported);
  EXPECT_EQ(Attribute(cudaDevAttrMemoryPoolsSupported), p.memoryPoolsSupported);
  EXPECT_EQ(Attribute(cudaDevAttrNumaId), p.deviceNumaId);
  EXPECT_EQ(Attribute(cudaDevAttrGpuPciDeviceId), static_cast<int>(p.gpuPciDeviceID));
}

TEST_F(DeviceQueriesTest, EveryDefinedAttributeAnswersAndOthersAreInvalidValue) {
  int answered = 0;
  for (int a = 1; a < 200; ++a) {
    int value = 0;
    const cudaError_t rc = cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(a), 0);
    ASSERT_TRUE(rc == cudaSuccess || rc == cudaErrorInvalidValue) << a;
    if (rc == cudaSuccess) ++answered;
    (void)cudaGetLastError();
  }
  // driver_types.h (CUDA 13) names 137 attributes, 13 of them Reserved<N> placeholders.
  EXPECT_EQ(answered, 137 - 13);
  int value = 0;
  for (int reserved : {44, 92, 93, 94, 96, 122, 141, 145}) {
    EXPECT_EQ(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(reserved), 0),
              cudaErrorInvalidValue)
        << reserved;
  }
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrComputeMode, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue) << "the last failure is the last error";
}

// NVIDIA's helper_cuda.h gpuGetMaxGflopsDeviceId: pick the device with the most SMs x clock that
// is not prohibited, then set it.
TEST_F(DeviceQueriesTest, DeviceSelectionByAttributesFindsDeviceZero) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_EQ(count, 1);
  int best = -1;
  long long best_perf = 0;
  for (int d = 0; d < count; ++d) {
    int mode = -1, major = 0, sms = 0, clock = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, d), cudaSuccess);
    if (mode == cudaComputeModeProhibited || major == 9999) continue;
    const long long perf = static_cast<long long>(sms) * clock;
    if (perf > best_perf) {
      best_perf = perf;
      best = d;
    }
  }
  EXPECT_EQ(best, 0);
  EXPECT_EQ(cudaSetDevice(best), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  int can_access = -1;
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can_access, 0, 0), cudaSuccess);
  EXPECT_EQ(can_access, 0);
  int least = 1, greatest = 1;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  EXPECT_EQ(least, 0);
  EXPECT_LT(greatest, least) << "lower numbers are higher priorities";
}

uint64_t ThreadCpuNs() { return ClockNs(CLOCK_THREAD_CPUTIME_ID); }

// CPU the calling thread spends in cudaStreamSynchronize on a 20 ms kernel.
uint64_t CpuOfAWait() {
  k20ms<<<1, 1>>>(nullptr);
  const uint64_t before = ThreadCpuNs();
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  return ThreadCpuNs() - before;
}

TEST_F(DeviceQueriesTest, DeviceFlagsDecideWhetherAWaitBurnsHostCpu) {
  EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetDeviceFlags(nullptr), cudaErrorInvalidValue);
  (void)cudaGetLastError();

  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin), cudaSuccess);
  unsigned flags = 0;
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags & cudaDeviceScheduleMask, unsigned{cudaDeviceScheduleSpin});
  EXPECT_NE(flags & cudaDeviceMapHost, 0u) << "always reported, as in CUDA";
  const uint64_t spin_cpu = CpuOfAWait();

  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags & cudaDeviceScheduleMask, unsigned{cudaDeviceScheduleBlockingSync});
  const uint64_t blocking_cpu = CpuOfAWait();

  // 20 ms of waiting each; a loaded machine may take the CPU from the spinning thread at times.
  EXPECT_GE(spin_cpu, 4 * kMillisecond) << "a spin wait keeps the thread on its CPU";
  EXPECT_LT(blocking_cpu, 2 * kMillisecond) << "a blocking-sync wait sleeps";

  // Under spin flags, an event created with cudaEventBlockingSync still sleeps.
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin), cudaSuccess);
  cudaEvent_t sleepy = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&sleepy, cudaEventBlockingSync), cudaSuccess);
  k20ms<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(sleepy, nullptr), cudaSuccess);
  const uint64_t before = ThreadCpuNs();
  ASSERT_EQ(cudaEventSynchronize(sleepy), cudaSuccess);
  EXPECT_LT(ThreadCpuNs() - before, 2 * kMillisecond) << "a blocking-sync event sleeps";
  ASSERT_EQ(cudaEventDestroy(sleepy), cudaSuccess);
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleAuto), cudaSuccess);
}

// PyTorch's stream pool: priorities within the range the device reports, read back clamped;
// flags and the stream id (the one CUPTI records carry).
TEST_F(DeviceQueriesTest, StreamPriorityFlagsAndIdReadBack) {
  int least = 1, greatest = 1;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  cudaStream_t high = nullptr, beyond = nullptr;
  ASSERT_EQ(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithPriority(&beyond, cudaStreamDefault, greatest - 10), cudaSuccess);
  int priority = 1;
  ASSERT_EQ(cudaStreamGetPriority(high, &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);
  ASSERT_EQ(cudaStreamGetPriority(beyond, &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest) << "clamped, as CUDA does";
  ASSERT_EQ(cudaStreamGetPriority(nullptr, &priority), cudaSuccess);
  EXPECT_EQ(priority, least);
  unsigned flags = 7;
  ASSERT_EQ(cudaStreamGetFlags(high, &flags), cudaSuccess);
  EXPECT_EQ(flags, unsigned{cudaStreamNonBlocking});
  ASSERT_EQ(cudaStreamGetFlags(beyond, &flags), cudaSuccess);
  EXPECT_EQ(flags, unsigned{cudaStreamDefault});
  int device = -1;
  ASSERT_EQ(cudaStreamGetDevice(high, &device), cudaSuccess);
  EXPECT_EQ(device, 0);
  unsigned long long id = 0;
  ASSERT_EQ(cudaStreamGetId(high, &id), cudaSuccess);
  (void)TakeActivityRecords();
  tiny<<<1, 1, 0, high>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(high), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_EQ(records.kernels[0].raw.streamId, id) << "the id CUPTI's records carry";
  EXPECT_EQ(cudaStreamGetPriority(high, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamDestroy(beyond), cudaSuccess);
  EXPECT_EQ(cudaStreamGetFlags(beyond, &flags), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaStreamDestroy(high), cudaSuccess);
}

TEST_F(DeviceQueriesTest, MemGetInfoFollowsAllocations) {
  size_t free0 = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  EXPECT_EQ(total, 80ull << 30);
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 64 << 20), cudaSuccess);
  size_t free1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  EXPECT_EQ(free0 - free1, size_t{64} << 20);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  EXPECT_EQ(free1, free0);
  EXPECT_EQ(cudaMemGetInfo(nullptr, &total), cudaErrorInvalidValue);
  (void)cudaGetLastError();
}

// simpleStreams / simpleZeroCopy: page-aligned host memory registered mapped, its device pointer.
TEST_F(DeviceQueriesTest, RegisteredMappedMemoryHasADevicePointerAndCopiesAsPinned) {
  constexpr size_t kBytes = 1 << 16;
  std::vector<char> pageable(kBytes);
  void* host = nullptr;
  ASSERT_EQ(posix_memalign(&host, 4096, kBytes), 0);
  std::memset(host, 7, kBytes);
  void* device_view = nullptr;
  EXPECT_EQ(cudaHostGetDevicePointer(&device_view, host, 0), cudaErrorInvalidValue)
      << "not registered yet";
  EXPECT_EQ(cudaHostRegister(host, kBytes, 0x80), cudaErrorInvalidValue) << "unknown flag";
  (void)cudaGetLastError();
  ASSERT_EQ(cudaHostRegister(host, kBytes, cudaHostRegisterMapped), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(host, kBytes, cudaHostRegisterMapped),
            cudaErrorHostMemoryAlreadyRegistered);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaHostGetDevicePointer(&device_view, host, 1), cudaErrorInvalidValue) << "flags";
  (void)cudaGetLastError();
  ASSERT_EQ(cudaHostGetDevicePointer(&device_view, host, 0), cudaSuccess);
  EXPECT_EQ(device_view, host) << "unified addressing: the same address";
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, host), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);

  (void)TakeActivityRecords();
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device, host, kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), device, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(pageable[kBytes - 1], 7);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 2u);
  EXPECT_EQ(records.memcpys[0].srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
  EXPECT_EQ(records.memcpys[1].dstKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(host), cudaSuccess);
  free(host);
}

struct HostStep {
  const char* pinned = nullptr;
  char seen = 0;
  std::atomic<uint64_t> ran_at{0};
  std::atomic<int> runs{0};
};

void ReadAndBump(void* arg) {
  HostStep* step = static_cast<HostStep*>(arg);
  step->seen = step->pinned[0];
  const_cast<char*>(step->pinned)[0] = static_cast<char>(step->seen + 1);
  step->ran_at = MonotonicNs();
  step->runs.fetch_add(1);
}

// A host function sees what the stream's earlier copy wrote, and the stream's next copy sees
// what the host function wrote; it runs no earlier than the kernel before it ends.
TEST_F(DeviceQueriesTest, HostFunctionsRunInStreamOrder) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  char* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
  char* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 64), cudaSuccess);
  ASSERT_EQ(cudaMemset(device, 40, 64), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  pinned[0] = 0;

  HostStep step;
  step.pinned = pinned;
  const uint64_t launched = MonotonicNs();
  k5ms<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaMemcpyAsync(pinned, device, 1, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(stream, ReadAndBump, &step), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device + 1, pinned, 1, cudaMemcpyHostToDevice, stream), cudaSuccess);
  EXPECT_EQ(step.runs.load(), 0) << "queued, not run on the calling thread";
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(step.runs.load(), 1);
  EXPECT_EQ(step.seen, 40) << "the copy before it had landed";
  EXPECT_GE(step.ran_at.load() - launched, k5msNs) << "after the kernel before it";
  char back = 0;
  ASSERT_EQ(cudaMemcpy(&back, device + 1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, 41) << "the copy after it saw its write";

  EXPECT_EQ(cudaLaunchHostFunc(stream, nullptr, nullptr), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

struct CallbackSeen {
  cudaStream_t stream = nullptr;
  cudaError_t status = cudaErrorUnknown;
  int calls = 0;
};

void CUDART_CB StreamCallback(cudaStream_t stream, cudaError_t status, void* user) {
  auto* seen = static_cast<CallbackSeen*>(user);
  seen->stream = stream;
  seen->status = status;
  ++seen->calls;
}

TEST_F(DeviceQueriesTest, StreamCallbacksGetTheirStreamAndStatus) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  CallbackSeen seen;
  tiny<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaStreamAddCallback(stream, StreamCallback, &seen, 0), cudaSuccess);
  EXPECT_EQ(cudaStreamAddCallback(stream, StreamCallback, &seen, 1), cudaErrorInvalidValue)
      << "flags must be 0";
  (void)cudaGetLastError();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.stream, stream);
  EXPECT_EQ(seen.status, cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(DeviceQueriesTest, Memcpy2DMovesRowsAndGivesOneMemcpyRecord) {
  constexpr size_t kWidth = 100, kHeight = 8, kHostPitch = 128;
  char* device = nullptr;
  size_t device_pitch = 0;
  ASSERT_EQ(cudaMallocPitch(reinterpret_cast<void**>(&device), &device_pitch, kWidth, kHeight),
            cudaSuccess);
  EXPECT_EQ(device_pitch, 512u) << "rows padded to the 512-byte alignment";
  std::vector<char> src(kHostPitch * kHeight), dst(kHostPitch * kHeight, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i % 127);

  (void)TakeActivityRecords();
  ASSERT_EQ(cudaMemcpy2D(device, device_pitch, src.data(), kHostPitch, kWidth, kHeight,
                         cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DAsync(dst.data(), kHostPitch, device, device_pitch, kWidth, kHeight,
                              cudaMemcpyDeviceToHost, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (size_t row = 0; row < kHeight; ++row) {
    for (size_t col = 0; col < kHostPitch; ++col) {
      const char want = col < kWidth ? src[row * kHostPitch + col] : 0;
      ASSERT_EQ(dst[row * kHostPitch + col], want) << row << "," << col;
    }
  }
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 2u);
  EXPECT_EQ(records.memcpys[0].bytes, kWidth * kHeight);
  EXPECT_EQ(records.memcpys[0].copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  EXPECT_EQ(records.memcpys[1].copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);

  EXPECT_EQ(cudaMemcpy2D(device, 64, src.data(), kHostPitch, kWidth, kHeight,
                         cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue)
      << "width over the destination pitch";
  EXPECT_EQ(cudaMemcpy2D(device, device_pitch, src.data(), kHostPitch, kWidth, kHeight + 1,
                         cudaMemcpyHostToDevice),
            cudaErrorInvalidValue)
      << "a row past the allocation";
  (void)cudaGetLastError();
  ASSERT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(DeviceQueriesTest, ManagedMemoryIsUsableFromTheHostAndAsADevicePointer) {
  int* managed = nullptr;
  EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), 64, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), 0), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), 64 * sizeof(int)), cudaSuccess);
  for (int i = 0; i < 64; ++i) managed[i] = i;
  int back[64] = {};
  ASSERT_EQ(cudaMemcpy(back, managed, sizeof(back), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[63], 63);
  ASSERT_EQ(cudaFree(managed), cudaSuccess);
}

TEST_F(DeviceQueriesTest, FunctionAttributesAndOccupancy) {
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&tiny)), cudaSuccess);
  EXPECT_EQ(attr.maxThreadsPerBlock, 1024);
  EXPECT_EQ(attr.binaryVersion, 90);
  int not_a_kernel = 0;
  EXPECT_EQ(cudaFuncGetAttributes(&attr, &not_a_kernel), cudaErrorInvalidDeviceFunction);
  (void)cudaGetLastError();

  // 32 registers a thread (attr.numRegs) on an SM of 2048 threads, 64K registers, 32 blocks,
  // 228 KiB shared memory with 1 KiB reserved per block.
  ASSERT_EQ(attr.numRegs, 32);
  const void* fn = reinterpret_cast<const void*>(&tiny);
  int blocks = -1;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 256, 0), cudaSuccess);
  EXPECT_EQ(blocks, 8);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 1024, 0), cudaSuccess);
  EXPECT_EQ(blocks, 2);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 32, 0), cudaSuccess);
  EXPECT_EQ(blocks, 32) << "the block limit";
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 96, 0), cudaSuccess);
  EXPECT_EQ(blocks, 21) << "96 threads = 3 warps: 64 warps / 3";
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 128, 100 * 1024),
            cudaSuccess);
  EXPECT_EQ(blocks, 2) << "228 KiB / (100 + 1) KiB";
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 0, 0),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, &not_a_kernel, 128, 0),
            cudaErrorInvalidDeviceFunction);
  (void)cudaGetLastError();
  // The header's template helper, built on the calls above.
  int min_grid = 0, block_size = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, tiny), cudaSuccess);
  EXPECT_GT(block_size, 0);
  EXPECT_EQ(min_grid % 132, 0) << "a whole number of waves over 132 SMs";
}

TEST_F(DeviceQueriesTest, ResetWaitsForWorkAndProfilerCallsSucceed) {
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);
  const uint64_t launched = MonotonicNs();
  k5ms<<<1, 1>>>(nullptr);
  EXPECT_EQ(cudaProfilerStop(), cudaSuccess);
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_GE(MonotonicNs() - launched, k5msNs) << "reset waited for the kernel";
  unsigned flags = 0;
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags & cudaDeviceScheduleMask, 0u) << "flags back to auto";
}

}  // namespace
}  // namespace brrr::simtest
