// CUPTI API callbacks on the simulated stack, as a profiler's subscriber sees them: ENTER before
// the call's work (before it blocks) and EXIT after it, both on the calling thread, carrying the
// correlation id of the call's API activity record, a correlationData slot that survives from
// ENTER to EXIT, the plain function name and (at EXIT) the return value. Only enabled
// (domain, cbid) pairs are delivered; nothing after cuptiUnsubscribe; calls made inside a
// callback get no callbacks. Driver calls deliver too, however the program reached the entry
// point (direct link, cuGetProcAddress_v2, dlopen + dlsym).
// Must never assert upper time bounds a loaded machine could exceed without a bug.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "api_callback_log.h"
#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

constexpr uint32_t kCudaStreamSynchronize = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
constexpr uint32_t kCudaMemcpy = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
constexpr uint32_t kCudaGetDevice = CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020;
constexpr uint32_t kCudaDeviceSynchronize = CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;

pid_t Gettid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

class CuptiCallbacksTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    const std::string error = SubscribeApiCallbackLog(&subscriber_);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    TakeApiCallbackEvents();
    TakeActivityRecords();
  }
  void TearDown() override {
    SetInsideEnterAction(nullptr);
    if (subscriber_ != nullptr) EXPECT_EQ(cuptiUnsubscribe(subscriber_), CUPTI_SUCCESS);
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    SimTest::TearDown();
  }

  void EnableRuntime(uint32_t cbid, uint32_t enable = 1) {
    ASSERT_EQ(cuptiEnableCallback(enable, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API, cbid),
              CUPTI_SUCCESS);
  }
  void EnableDriver(uint32_t cbid, uint32_t enable = 1) {
    ASSERT_EQ(cuptiEnableCallback(enable, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, cbid),
              CUPTI_SUCCESS);
  }

  // Checks one call's ENTER/EXIT pair: same thread, same correlation id, correlationData carried
  // over, name and return value. Returns the pair (enter, exit).
  static std::pair<ApiCallbackEvent, ApiCallbackEvent> ExpectPair(
      const std::vector<ApiCallbackEvent>& events, CUpti_CallbackDomain domain, uint32_t cbid,
      const char* function_name, pid_t thread_id, int32_t return_value) {
    std::vector<ApiCallbackEvent> of_call;
    for (const ApiCallbackEvent& event : events) {
      if (event.domain == domain && event.cbid == cbid && event.thread_id == thread_id) {
        of_call.push_back(event);
      }
    }
    EXPECT_EQ(of_call.size(), 2u) << function_name << " on thread " << thread_id;
    if (of_call.size() != 2) return {};
    const ApiCallbackEvent& enter = of_call[0];
    const ApiCallbackEvent& exit = of_call[1];
    EXPECT_EQ(enter.site, CUPTI_API_ENTER);
    EXPECT_EQ(exit.site, CUPTI_API_EXIT);
    EXPECT_EQ(enter.function_name, function_name);
    EXPECT_EQ(exit.function_name, function_name);
    EXPECT_NE(enter.correlation_id, 0u);
    EXPECT_EQ(exit.correlation_id, enter.correlation_id);
    EXPECT_EQ(exit.correlation_data, CorrelationDataFor(enter.correlation_id));
    EXPECT_EQ(exit.return_value, return_value);
    EXPECT_LE(enter.time_ns, exit.time_ns);
    EXPECT_NE(enter.context, nullptr);
    EXPECT_EQ(enter.context_uid, 1u);
    EXPECT_TRUE(enter.function_params_null);
    return {enter, exit};
  }

  CUpti_SubscriberHandle subscriber_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

TEST_F(CuptiCallbacksTest, RuntimeCallGetsEnterAndExitOnItsThreadWithTheRecordsCorrelationId) {
  EnableRuntime(kCudaStreamSynchronize);
  EnableRuntime(kCudaMemcpy);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  pid_t worker_tid = 0;
  std::thread worker([&] {
    worker_tid = Gettid();
    int host = 7, back = 0;
    int* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(device, &host, sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(&back, device, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(back, 7);
    ASSERT_EQ(cudaFree(device), cudaSuccess);
  });
  worker.join();

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const ActivityRecords records = TakeActivityRecords();
  const auto [enter, exit] = ExpectPair(events, CUPTI_CB_DOMAIN_RUNTIME_API, kCudaStreamSynchronize,
                                        "cudaStreamSynchronize", Gettid(), cudaSuccess);
  const auto calls = records.RuntimeCallsWithCorrelation(enter.correlation_id);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].cbid, kCudaStreamSynchronize);
  EXPECT_EQ(calls[0].threadId, static_cast<uint32_t>(Gettid()));

  // The worker's two copies: four events on the worker's thread, each pair with its own id, the
  // id of a cudaMemcpy RUNTIME record; cudaMalloc/cudaFree were not enabled.
  std::vector<ApiCallbackEvent> worker_events;
  for (const ApiCallbackEvent& event : events) {
    if (event.thread_id == worker_tid) worker_events.push_back(event);
  }
  ASSERT_EQ(worker_events.size(), 4u);
  EXPECT_NE(worker_events[0].correlation_id, worker_events[2].correlation_id);
  for (size_t i = 0; i < worker_events.size(); i += 2) {
    EXPECT_EQ(worker_events[i].site, CUPTI_API_ENTER);
    EXPECT_EQ(worker_events[i + 1].site, CUPTI_API_EXIT);
    EXPECT_EQ(worker_events[i].function_name, "cudaMemcpy");
    EXPECT_EQ(worker_events[i + 1].correlation_id, worker_events[i].correlation_id);
    EXPECT_EQ(worker_events[i + 1].correlation_data,
              CorrelationDataFor(worker_events[i].correlation_id));
    const auto copy_calls = records.RuntimeCallsWithCorrelation(worker_events[i].correlation_id);
    ASSERT_EQ(copy_calls.size(), 1u);
    EXPECT_EQ(copy_calls[0].cbid, kCudaMemcpy);
    EXPECT_EQ(copy_calls[0].threadId, static_cast<uint32_t>(worker_tid));
  }
  EXPECT_EQ(events.size(), 6u) << "only the enabled callback ids";
}

TEST_F(CuptiCallbacksTest, ExitSeesTheErrorTheCallReturns) {
  EnableRuntime(kCudaMemcpy);
  int host = 0;
  // A host-to-device copy between two host pointers: the kind disagrees with the pointers.
  const cudaError_t result = cudaMemcpy(&host, &host, sizeof(host), cudaMemcpyDeviceToHost);
  ASSERT_NE(result, cudaSuccess);
  cudaGetLastError();
  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const auto [enter, exit] =
      ExpectPair(events, CUPTI_CB_DOMAIN_RUNTIME_API, kCudaMemcpy, "cudaMemcpy", Gettid(), result);
  const auto calls = TakeActivityRecords().RuntimeCallsWithCorrelation(enter.correlation_id);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].returnValue, static_cast<uint32_t>(result));
}

TEST_F(CuptiCallbacksTest, EnterRunsBeforeASynchronizingCallBlocksAndExitAfter) {
  EnableRuntime(kCudaStreamSynchronize);
  k20ms<<<1, 1, 0, stream_>>>(nullptr);
  k20ms<<<1, 1, 0, stream_>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const ActivityRecords records = TakeActivityRecords();
  const auto [enter, exit] = ExpectPair(events, CUPTI_CB_DOMAIN_RUNTIME_API, kCudaStreamSynchronize,
                                        "cudaStreamSynchronize", Gettid(), cudaSuccess);
  ASSERT_EQ(records.kernels.size(), 2u);
  const uint64_t work_end = std::max(records.kernels[0].raw.end, records.kernels[1].raw.end);
  EXPECT_LT(enter.time_ns, work_end) << "ENTER ran only after the awaited work was done";
  EXPECT_GE(exit.time_ns, work_end);
  ASSERT_EQ(records.synchronizations.size(), 1u);
  const SynchronizationRecord& sync = records.synchronizations[0];
  EXPECT_EQ(sync.correlationId, enter.correlation_id);
  EXPECT_LE(enter.time_ns, sync.start) << "ENTER must come before the call starts waiting";
  EXPECT_GE(exit.time_ns, sync.end);
}

TEST_F(CuptiCallbacksTest, DisabledIdsDomainsAndUnsubscribedSubscribersGetNothing) {
  EnableRuntime(kCudaStreamSynchronize);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // not enabled
  CUstream driver_stream = reinterpret_cast<CUstream>(stream_);
  ASSERT_EQ(cuStreamSynchronize(driver_stream), CUDA_SUCCESS);  // driver domain not enabled
  EXPECT_TRUE(TakeApiCallbackEvents().empty());

  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(TakeApiCallbackEvents().size(), 2u);
  EnableRuntime(kCudaStreamSynchronize, 0);  // enable=0 turns it off again
  uint32_t state = 1;
  ASSERT_EQ(cuptiGetCallbackState(&state, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API,
                                  kCudaStreamSynchronize),
            CUPTI_SUCCESS);
  EXPECT_EQ(state, 0u);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_TRUE(TakeApiCallbackEvents().empty());

  ASSERT_EQ(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  int device = -1;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].cbid, kCudaGetDevice);
  EXPECT_EQ(events[2].cbid, kCudaDeviceSynchronize);
  ASSERT_EQ(cuptiEnableDomain(0, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_TRUE(TakeApiCallbackEvents().empty());

  ASSERT_EQ(cuptiEnableAllDomains(1, subscriber_), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiUnsubscribe(subscriber_), CUPTI_SUCCESS);
  subscriber_ = nullptr;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cuStreamSynchronize(driver_stream), CUDA_SUCCESS);
  EXPECT_TRUE(TakeApiCallbackEvents().empty());
}

TEST_F(CuptiCallbacksTest, CallbackIdsAreValidatedAgainstTheDomainsSize) {
  EXPECT_EQ(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API,
                                CUPTI_RUNTIME_TRACE_CBID_SIZE),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(
      cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE),
      CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, 0),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API,
                                CUPTI_DRIVER_TRACE_CBID_SIZE - 1),
            CUPTI_SUCCESS);
}

TEST_F(CuptiCallbacksTest, DriverCallsDeliverHoweverTheEntryPointWasReached) {
  EnableDriver(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize);
  EnableDriver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  EnableDriver(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize);
  EnableDriver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2);
  cudaFunction_t function = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&k1ms)), cudaSuccess);
  const CUstream stream = reinterpret_cast<CUstream>(stream_);

  // Linked directly.
  ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, 32, 1, 1, 0, stream,
                           nullptr, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  // Through cuGetProcAddress_v2.
  void* proc = nullptr;
  CUdriverProcAddressQueryResult status{};
  ASSERT_EQ(cuGetProcAddress_v2("cuStreamSynchronize", &proc, 12000, CU_GET_PROC_ADDRESS_DEFAULT,
                                &status),
            CUDA_SUCCESS);
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUstream)>(proc)(stream), CUDA_SUCCESS);
  // Through dlopen + dlsym, as a library that loads the driver itself.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(driver, nullptr) << dlerror();
  auto* ctx_synchronize = reinterpret_cast<CUresult (*)()>(dlsym(driver, "cuCtxSynchronize"));
  ASSERT_NE(ctx_synchronize, nullptr);
  ASSERT_EQ(ctx_synchronize(), CUDA_SUCCESS);
  // An error result reaches EXIT.
  int host = 0;
  const CUresult bad = cuMemcpyDtoH(&host, 0, sizeof(host));
  ASSERT_NE(bad, CUDA_SUCCESS);
  dlclose(driver);

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(events.size(), 10u);
  const char* const expected_names[] = {"cuLaunchKernel", "cuStreamSynchronize",
                                        "cuStreamSynchronize", "cuCtxSynchronize",
                                        "cuMemcpyDtoH_v2"};
  for (size_t i = 0; i < events.size(); i += 2) {
    const ApiCallbackEvent& enter = events[i];
    const ApiCallbackEvent& exit = events[i + 1];
    EXPECT_EQ(enter.domain, CUPTI_CB_DOMAIN_DRIVER_API);
    EXPECT_EQ(enter.site, CUPTI_API_ENTER);
    EXPECT_EQ(exit.site, CUPTI_API_EXIT);
    EXPECT_EQ(enter.function_name, expected_names[i / 2]);
    EXPECT_EQ(enter.thread_id, Gettid());
    EXPECT_EQ(exit.thread_id, Gettid());
    EXPECT_EQ(exit.correlation_id, enter.correlation_id);
    EXPECT_EQ(exit.correlation_data, CorrelationDataFor(enter.correlation_id));
    const auto calls = records.DriverCallsWithCorrelation(enter.correlation_id);
    ASSERT_EQ(calls.size(), 1u) << expected_names[i / 2];
    EXPECT_EQ(calls[0].cbid, enter.cbid);
    EXPECT_EQ(static_cast<int32_t>(calls[0].returnValue), exit.return_value);
  }
  EXPECT_EQ(events[9].return_value, static_cast<int32_t>(bad));
  // The launch's kernel record carries the id the callbacks saw.
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_EQ(records.kernels[0].raw.correlationId, events[0].correlation_id);
}

// As on a real GPU (CUDA 13.0, driver 580, H100: tools/gpu/join_ids_probe.sh): a runtime launch
// calls cuLaunchKernel and an async device-to-host copy cuMemcpyDtoHAsync_v2; their driver
// callbacks carry the runtime call's correlation id, which is also the kernel's and the copy's, and
// no DRIVER record has that id. A runtime call that does no device work calls no driver function
// here.
TEST_F(CuptiCallbacksTest, RuntimeLaunchesAndCopiesGiveANestedDriverCallbackWithTheirOwnId) {
  int* device = nullptr;
  int* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&device, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, sizeof(int)), cudaSuccess);
  TakeApiCallbackEvents();
  TakeActivityRecords();
  ASSERT_EQ(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  EnableRuntime(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
  k1ms<<<1, 1, 0, stream_>>>(nullptr);
  ASSERT_EQ(cudaMemcpyAsync(pinned, device, sizeof(int), cudaMemcpyDeviceToHost, stream_),
            cudaSuccess);
  int ordinal = -1;
  ASSERT_EQ(cudaGetDevice(&ordinal), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  ASSERT_EQ(cuptiEnableDomain(0, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const pid_t me = Gettid();
  const auto [launch, launch_exit] =
      ExpectPair(events, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                 "cuLaunchKernel", me, CUDA_SUCCESS);
  const auto [copy, copy_exit] =
      ExpectPair(events, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
                 "cuMemcpyDtoHAsync_v2", me, CUDA_SUCCESS);
  ASSERT_EQ(events.size(), 6u)
      << "cudaGetDevice (runtime, enter and exit) calls no driver function";
  EXPECT_EQ(events[4].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  EXPECT_EQ(records.kernels[0].raw.correlationId, launch.correlation_id);
  ASSERT_EQ(records.memcpys.size(), 1u);
  EXPECT_EQ(records.memcpys[0].correlationId, copy.correlation_id);
  EXPECT_EQ(records.RuntimeCallsWithCorrelation(launch.correlation_id).size(), 1u);
  EXPECT_EQ(records.RuntimeCallsWithCorrelation(copy.correlation_id).size(), 1u);
  EXPECT_TRUE(records.DriverCallsWithCorrelation(launch.correlation_id).empty());
  EXPECT_TRUE(records.DriverCallsWithCorrelation(copy.correlation_id).empty());
  cudaFreeHost(pinned);
  cudaFree(device);
}

void CallCudaInsideCallback() {
  int device = -1;
  cudaGetDevice(&device);
  uint64_t timestamp = 0;
  cuptiGetTimestamp(&timestamp);
  cuCtxSynchronize();
}

TEST_F(CuptiCallbacksTest, CudaCallsInsideACallbackGetNoCallbacksAndDoNotDeadlock) {
  ASSERT_EQ(cuptiEnableAllDomains(1, subscriber_), CUPTI_SUCCESS);
  SetInsideEnterAction(&CallCudaInsideCallback);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  SetInsideEnterAction(nullptr);

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].cbid, kCudaStreamSynchronize);
  EXPECT_EQ(events[1].cbid, kCudaStreamSynchronize);
  // The nested calls still ran and were recorded, with their own correlation ids.
  const ActivityRecords records = TakeActivityRecords();
  bool nested_runtime = false, nested_driver = false;
  for (const RuntimeRecord& call : records.runtime_calls) {
    if (call.cbid == kCudaGetDevice) nested_runtime = true;
  }
  for (const RuntimeRecord& call : records.driver_calls) {
    if (call.cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize) nested_driver = true;
  }
  EXPECT_TRUE(nested_runtime);
  EXPECT_TRUE(nested_driver);
}

TEST_F(CuptiCallbacksTest, EveryApiCallGetsExactlyOneEnterAndOneExit) {
  ASSERT_EQ(cuptiEnableAllDomains(1, subscriber_), CUPTI_SUCCESS);
  constexpr size_t kBytes = 4096;
  std::vector<unsigned char> host(kBytes, 3);
  unsigned char* device = nullptr;
  unsigned char* pinned = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, kBytes), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, stream_), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, stream_),
            cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(device, 0, kBytes, stream_), cudaSuccess);
  tiny<<<1, 1, 0, stream_>>>(nullptr);
  ASSERT_EQ(cudaMemcpyAsync(pinned, device, kBytes, cudaMemcpyDeviceToHost, stream_), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, stream_), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float ms = 0;
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(stream_, stop, 0), cudaSuccess);
  EXPECT_NE(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(0x7)), cudaSuccess);
  cudaGetLastError();
  CUdeviceptr driver_memory = 0;
  ASSERT_EQ(cuMemAlloc(&driver_memory, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(driver_memory, host.data(), kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(driver_memory), CUDA_SUCCESS);
  ASSERT_EQ(cudaEventDestroy(start), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(stop), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const ActivityRecords records = TakeActivityRecords();
  // A runtime call and the driver function it calls share one id (nested driver callbacks): keep
  // each id's events of the domain that came first, the outer call's.
  std::map<uint32_t, std::vector<ApiCallbackEvent>> by_id;
  for (const ApiCallbackEvent& event : events) {
    std::vector<ApiCallbackEvent>& of_id = by_id[event.correlation_id];
    if (of_id.empty() || of_id[0].domain == event.domain) of_id.push_back(event);
  }
  std::set<uint32_t> record_ids;
  for (const RuntimeRecord& call : records.runtime_calls) record_ids.insert(call.correlationId);
  for (const RuntimeRecord& call : records.driver_calls) record_ids.insert(call.correlationId);
  ASSERT_GE(record_ids.size(), 25u);
  for (const uint32_t id : record_ids) {
    const auto it = by_id.find(id);
    ASSERT_NE(it, by_id.end()) << "no callbacks for the call with correlation id " << id;
    ASSERT_EQ(it->second.size(), 2u) << "correlation id " << id;
    EXPECT_EQ(it->second[0].site, CUPTI_API_ENTER);
    EXPECT_EQ(it->second[1].site, CUPTI_API_EXIT);
    EXPECT_EQ(it->second[0].cbid, it->second[1].cbid);
    EXPECT_NE(it->second[0].function_name, "<null>") << "cbid " << it->second[0].cbid;
  }
  EXPECT_EQ(by_id.size(), record_ids.size()) << "callbacks for a call with no API record";
}

}  // namespace
}  // namespace brrr::simtest
