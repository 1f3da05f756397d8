// The driver API of the simulated libcuda.so.1, as real programs use it: launches through
// cuLaunchKernel / cuLaunchKernelEx / cuLaunchCooperativeKernel give kernel records whose
// correlation id is a DRIVER record's (and no RUNTIME record's); driver copies and syncs block as
// CUDA's do and give memcpy / SYNCHRONIZATION records; cuGetProcAddress_v2 hands out working
// functions and NOT_FOUND for names it does not know; errors are real CUresult codes.
// Must never assert upper time bounds a loaded machine could exceed without a bug.
#include <cuda.h>
#include <cudaProfiler.h>
#include <cuda_runtime.h>
#include <cupti_driver_cbid.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

// The single DRIVER record of a correlation id (fails the test when there is not exactly one).
RuntimeRecord OnlyDriverCall(const ActivityRecords& records, uint32_t correlation_id) {
  const std::vector<RuntimeRecord> calls = records.DriverCallsWithCorrelation(correlation_id);
  EXPECT_EQ(calls.size(), 1u) << "DRIVER records with correlation id " << correlation_id;
  return calls.empty() ? RuntimeRecord{} : calls.front();
}

// The correlation id of the last DRIVER record with this callback id (0 when none).
uint32_t LastDriverCorrelation(const ActivityRecords& records, uint32_t cbid) {
  uint32_t found = 0;
  for (const RuntimeRecord& call : records.driver_calls) {
    if (call.cbid == cbid) found = call.correlationId;
  }
  return found;
}

class DriverApiTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    cudaFunction_t function = nullptr;
    ASSERT_EQ(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&k1ms)), cudaSuccess);
    k1ms_ = reinterpret_cast<CUfunction>(function);
    ASSERT_EQ(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&k20ms)), cudaSuccess);
    k20ms_ = reinterpret_cast<CUfunction>(function);
    TakeActivityRecords();
  }
  void TearDown() override {
    EXPECT_EQ(cuStreamDestroy(stream_), CUDA_SUCCESS);
    SimTest::TearDown();
  }

  CUresult LaunchOn(CUfunction function, CUstream stream) {
    return cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr);
  }

  CUstream stream_ = nullptr;
  CUfunction k1ms_ = nullptr;
  CUfunction k20ms_ = nullptr;
};

TEST_F(DriverApiTest, LaunchesGiveKernelRecordsCorrelatedWithTheirDriverCall) {
  cudaKernel_t kernel = nullptr;
  ASSERT_EQ(cudaGetKernel(&kernel, reinterpret_cast<const void*>(&k5ms)), cudaSuccess);
  CUfunction k5ms_function = nullptr;
  ASSERT_EQ(cuKernelGetFunction(&k5ms_function, reinterpret_cast<CUkernel>(kernel)), CUDA_SUCCESS);

  ASSERT_EQ(cuLaunchKernel(k1ms_, 2, 1, 1, 64, 1, 1, 128, stream_, nullptr, nullptr), CUDA_SUCCESS);
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream_;
  ASSERT_EQ(cuLaunchKernelEx(&config, k5ms_function, nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchCooperativeKernel(k1ms_, 1, 1, 1, 32, 1, 1, 0, stream_, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream_), CUDA_SUCCESS);

  const ActivityRecords records = TakeActivityRecords();
  const std::vector<KernelRecord> kernels = records.KernelsByCorrelation();
  ASSERT_EQ(kernels.size(), 3u);
  const struct {
    const char* name;
    uint64_t duration_ns;
    uint32_t cbid;
    uint8_t launch_type;
  } expected[] = {
      {k1msMangled, k1msNs, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
       CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR},
      {k5msMangled, k5msNs, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
       CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR},
      {k1msMangled, k1msNs, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
       CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE},
  };
  for (size_t i = 0; i < kernels.size(); ++i) {
    SCOPED_TRACE(i);
    const KernelRecord& kernel_record = kernels[i];
    EXPECT_EQ(kernel_record.name, expected[i].name);
    EXPECT_EQ(kernel_record.raw.end - kernel_record.raw.start, expected[i].duration_ns);
    EXPECT_EQ(kernel_record.raw.launchType, expected[i].launch_type);
    EXPECT_EQ(kernel_record.raw.graphId, 0u);
    const RuntimeRecord call = OnlyDriverCall(records, kernel_record.raw.correlationId);
    EXPECT_EQ(call.kind, CUPTI_ACTIVITY_KIND_DRIVER);
    EXPECT_EQ(call.cbid, expected[i].cbid);
    EXPECT_EQ(call.returnValue, static_cast<uint32_t>(CUDA_SUCCESS));
    EXPECT_LE(call.start, kernel_record.raw.start) << "the kernel started before its launch";
    EXPECT_TRUE(records.RuntimeCallsWithCorrelation(kernel_record.raw.correlationId).empty());
  }
  EXPECT_EQ(kernels[0].raw.gridX, 2);
  EXPECT_EQ(kernels[0].raw.blockX, 64);
  EXPECT_EQ(kernels[0].raw.dynamicSharedMemory, 128);
}

TEST_F(DriverApiTest, RuntimeCallsGiveNoDriverRecords) {
  k1ms<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_TRUE(records.driver_calls.empty())
      << "the simulated runtime reaches the engine directly, never through cu* entry points";
  EXPECT_EQ(records.RuntimeCallsWithCorrelation(records.kernels[0].raw.correlationId).size(), 1u);
}

TEST_F(DriverApiTest, StreamSynchronizeWaitsForItsStreamAndIsRecorded) {
  const uint64_t launched_at = MonotonicNs();
  ASSERT_EQ(LaunchOn(k20ms_, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream_), CUDA_SUCCESS);
  const uint64_t returned_at = MonotonicNs();
  EXPECT_GE(returned_at, launched_at + k20msNs);
  EXPECT_LT(returned_at - launched_at, Generous(k20msNs));

  const ActivityRecords records = TakeActivityRecords();
  const uint32_t sync_id =
      LastDriverCorrelation(records, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize);
  ASSERT_NE(sync_id, 0u);
  ASSERT_EQ(records.synchronizations.size(), 1u);
  const SynchronizationRecord& sync = records.synchronizations[0];
  EXPECT_EQ(sync.type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
  EXPECT_EQ(sync.correlationId, sync_id);
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_EQ(sync.streamId, records.kernels[0].raw.streamId);
  EXPECT_GE(sync.end, records.kernels[0].raw.end);
}

TEST_F(DriverApiTest, EventSynchronizeWaitsForTheRecordedWork) {
  CUevent event = nullptr;
  ASSERT_EQ(cuEventCreate(&event, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  const uint64_t launched_at = MonotonicNs();
  ASSERT_EQ(LaunchOn(k20ms_, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(event, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(event), CUDA_SUCCESS);
  EXPECT_GE(MonotonicNs(), launched_at + k20msNs);
  EXPECT_EQ(cuEventQuery(event), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy(event), CUDA_SUCCESS);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.synchronizations.size(), 1u);
  EXPECT_EQ(records.synchronizations[0].type,
            CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE);
  EXPECT_EQ(records.synchronizations[0].correlationId,
            LastDriverCorrelation(records, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize));
}

TEST_F(DriverApiTest, ContextSynchronizeWaitsForEveryStream) {
  const uint64_t launched_at = MonotonicNs();
  ASSERT_EQ(LaunchOn(k20ms_, stream_), CUDA_SUCCESS);
  ASSERT_EQ(LaunchOn(k1ms_, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_GE(MonotonicNs(), launched_at + k20msNs);
  EXPECT_EQ(cuStreamQuery(stream_), CUDA_SUCCESS);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.synchronizations.size(), 1u);
  EXPECT_EQ(records.synchronizations[0].type,
            CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
  EXPECT_EQ(records.synchronizations[0].correlationId,
            LastDriverCorrelation(records, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize));
}

TEST_F(DriverApiTest, CopiesMoveBytesAndBlockLikeCuda) {
  constexpr size_t kBytes = 4096;
  std::vector<unsigned char> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>(i * 7);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cuMemAlloc(&a, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&b, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(a, in.data(), kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD(b, a, kBytes), CUDA_SUCCESS);
  const uint64_t launched_at = MonotonicNs();
  ASSERT_EQ(LaunchOn(k20ms_, nullptr), CUDA_SUCCESS);  // legacy stream: the copy waits for it
  ASSERT_EQ(cuMemcpyDtoH(out.data(), b, kBytes), CUDA_SUCCESS);
  EXPECT_GE(MonotonicNs(), launched_at + k20msNs) << "cuMemcpyDtoH returned before its data";
  EXPECT_EQ(out, in);

  std::vector<unsigned char> async_out(kBytes, 0);
  ASSERT_EQ(cuMemcpyHtoDAsync(a, out.data(), kBytes, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync(async_out.data(), a, kBytes, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyAsync(b, a, kBytes, stream_), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream_), CUDA_SUCCESS);
  EXPECT_EQ(async_out, in);
  ASSERT_EQ(cuMemFree(a), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(b), CUDA_SUCCESS);

  const ActivityRecords records = TakeActivityRecords();
  const struct {
    uint32_t cbid;
    uint8_t copy_kind;
  } expected[] = {
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH},
      {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD},
  };
  ASSERT_EQ(records.memcpys.size(), std::size(expected));
  for (const auto& want : expected) {
    SCOPED_TRACE(want.cbid);
    const uint32_t id = LastDriverCorrelation(records, want.cbid);
    ASSERT_NE(id, 0u);
    int matches = 0;
    for (const MemcpyRecord& copy : records.memcpys) {
      if (copy.correlationId != id) continue;
      ++matches;
      EXPECT_EQ(copy.copyKind, want.copy_kind);
      EXPECT_EQ(copy.bytes, kBytes);
    }
    EXPECT_EQ(matches, 1);
  }
}

TEST_F(DriverApiTest, GetProcAddressGivesWorkingFunctionsAndNotFoundForUnknownNames) {
  void* raw = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  ASSERT_EQ(cuGetProcAddress("cuDriverGetVersion", &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,
                             &status),
            CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  ASSERT_NE(raw, nullptr);
  int version = 0;
  ASSERT_EQ(reinterpret_cast<CUresult (*)(int*)>(raw)(&version), CUDA_SUCCESS);
  EXPECT_EQ(version, CUDA_VERSION);

  // "cuMemAlloc" is the _v2 function for any CUDA >= 3.2: it allocates with a 64-bit pointer.
  ASSERT_EQ(
      cuGetProcAddress("cuMemAlloc", &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status),
      CUDA_SUCCESS);
  CUdeviceptr ptr = 0;
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUdeviceptr*, size_t)>(raw)(&ptr, 256), CUDA_SUCCESS);
  EXPECT_NE(ptr, 0u);
  EXPECT_EQ(cuMemFree(ptr), CUDA_SUCCESS);

  // A launch through the looked-up cuLaunchKernel is a cuLaunchKernel as any other.
  ASSERT_EQ(
      cuGetProcAddress("cuLaunchKernel", &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status),
      CUDA_SUCCESS);
  using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream, void**, void**);
  TakeActivityRecords();
  ASSERT_EQ(reinterpret_cast<LaunchFn>(raw)(k1ms_, 1, 1, 1, 1, 1, 1, 0, stream_, nullptr, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream_), CUDA_SUCCESS);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_EQ(OnlyDriverCall(records, records.kernels[0].raw.correlationId).cbid,
            static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));

  raw = reinterpret_cast<void*>(0x1);
  status = CU_GET_PROC_ADDRESS_SUCCESS;
  EXPECT_EQ(cuGetProcAddress("cuNoSuchFunction", &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,
                             &status),
            CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(raw, nullptr);
  // Callers give base names; a versioned name is not a symbol cuGetProcAddress knows.
  EXPECT_EQ(
      cuGetProcAddress("cuMemAlloc_v2", &raw, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status),
      CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuGetProcAddress("cuLaunchKernelEx", &raw, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &status),
            CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  EXPECT_EQ(cuGetProcAddress(nullptr, &raw, CUDA_VERSION, 0, &status), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(DriverApiTest, PerThreadFlagGivesThePerThreadStreamForms) {
  void* legacy = nullptr;
  void* per_thread = nullptr;
  CUdriverProcAddressQueryResult status;
  ASSERT_EQ(cuGetProcAddress("cuStreamSynchronize", &legacy, CUDA_VERSION,
                             CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status),
            CUDA_SUCCESS);
  ASSERT_EQ(cuGetProcAddress("cuStreamSynchronize", &per_thread, CUDA_VERSION,
                             CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status),
            CUDA_SUCCESS);
  EXPECT_NE(legacy, per_thread);
  TakeActivityRecords();
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUstream)>(per_thread)(nullptr), CUDA_SUCCESS);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.driver_calls.size(), 1u);
  EXPECT_EQ(records.driver_calls[0].cbid,
            static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz));
}

// The driver's device queries answer exactly as the runtime's (one table behind both), and
// cuProfilerStart/Stop are calls of their own with DRIVER records.
TEST_F(DriverApiTest, DeviceQueriesAgreeWithTheRuntime) {
  int answered = 0;
  for (int a = 1; a < 200; ++a) {
    int from_driver = -1, from_runtime = -2;
    const CUresult rc = cuDeviceGetAttribute(&from_driver, static_cast<CUdevice_attribute>(a), 0);
    const cudaError_t rt = cudaDeviceGetAttribute(&from_runtime, static_cast<cudaDeviceAttr>(a), 0);
    (void)cudaGetLastError();
    ASSERT_EQ(rc == CUDA_SUCCESS, rt == cudaSuccess) << a;
    if (rc != CUDA_SUCCESS) {
      EXPECT_EQ(rc, CUDA_ERROR_INVALID_VALUE) << a;
      continue;
    }
    EXPECT_EQ(from_driver, from_runtime) << a;
    ++answered;
  }
  EXPECT_EQ(answered, 137 - 13) << "driver_types.h's attributes less the Reserved<N> ones";
  int major = 0, minor = -1, sms = 0;
  ASSERT_EQ(cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 0);
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  EXPECT_EQ(sms, 132);
  EXPECT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1),
            CUDA_ERROR_INVALID_DEVICE);
  int peer = -1;
  ASSERT_EQ(cuDeviceCanAccessPeer(&peer, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(peer, 0);
  CUdevice device = -1;
  ASSERT_EQ(cuCtxGetDevice(&device), CUDA_SUCCESS);
  EXPECT_EQ(device, 0);
  size_t free_driver = 0, total_driver = 0, free_runtime = 0, total_runtime = 0;
  ASSERT_EQ(cuMemGetInfo(&free_driver, &total_driver), CUDA_SUCCESS);
  ASSERT_EQ(cudaMemGetInfo(&free_runtime, &total_runtime), cudaSuccess);
  EXPECT_EQ(total_driver, 80ull << 30);
  EXPECT_EQ(total_driver, total_runtime);
  EXPECT_EQ(free_driver, free_runtime);

  TakeActivityRecords();
  ASSERT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  ASSERT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.driver_calls.size(), 2u);
  EXPECT_EQ(records.driver_calls[0].cbid,
            static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart));
  EXPECT_EQ(records.driver_calls[1].cbid,
            static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop));
  EXPECT_LT(records.driver_calls[0].correlationId, records.driver_calls[1].correlationId);
}

TEST_F(DriverApiTest, ErrorsAreRealCuResultCodes) {
  EXPECT_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  CUdevice device = -1;
  EXPECT_EQ(cuDeviceGet(&device, 1), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_EQ(cuDeviceGet(&device, 0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, stream_, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(k1ms_, 1, 1, 1, 2048, 1, 1, 0, stream_, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFree(static_cast<CUdeviceptr>(0x1234)), CUDA_ERROR_INVALID_VALUE);

  const char* text = nullptr;
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "CUDA_ERROR_INVALID_HANDLE");
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_LAUNCH_TIMEOUT, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "CUDA_ERROR_LAUNCH_TIMEOUT");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "invalid argument");
  EXPECT_EQ(cuGetErrorString(static_cast<CUresult>(123456), &text), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(text, nullptr);

  CUcontext context = nullptr, primary = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, device), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&context), CUDA_SUCCESS);
  EXPECT_NE(context, nullptr);
  EXPECT_EQ(context, primary);
}

}  // namespace
}  // namespace brrr::simtest
