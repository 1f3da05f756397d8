// CUPTI API callbacks for a program linked with the static runtime stand-in
// (libsimcudart_static.a): its runtime functions live in the executable, where no preloaded hook
// can see them, yet CUPTI still delivers RUNTIME_API callbacks for them on the calling thread,
// with the correlation id of the call's RUNTIME record. This is what a profiler relies on to
// take native stacks at synchronizations of statically linked programs.
// Must never link or load the shared runtime.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "api_callback_log.h"
#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_stack_check.h"

namespace brrr::simtest {
namespace {

class StaticRuntimeCallbacksEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string error = StartActivityRecording({});
    ASSERT_TRUE(error.empty()) << "CUPTI activity recording could not start: " << error;
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    const std::string problem = StaticRuntimeStackProblem();
    if (!problem.empty()) GTEST_FAIL() << problem;
  }
};
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new StaticRuntimeCallbacksEnvironment());

pid_t Gettid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

TEST(StaticRuntimeCallbacksTest, SynchronizationsAndLaunchesDeliverRuntimeCallbacks) {
  CUpti_SubscriberHandle subscriber = nullptr;
  const std::string error = SubscribeApiCallbackLog(&subscriber);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  ASSERT_EQ(dlsym(RTLD_DEFAULT, "cudaStreamSynchronize"), nullptr)
      << "the runtime must be bound inside the executable";

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  TakeActivityRecords();
  TakeApiCallbackEvents();
  k5ms<<<1, 32, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const std::vector<ApiCallbackEvent> events = TakeApiCallbackEvents();
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(cuptiUnsubscribe(subscriber), CUPTI_SUCCESS);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);

  // Every runtime call of the launch (nvcc's <<<>>> makes several) and the synchronize: one
  // ENTER/EXIT pair each, on this thread, with the id of its RUNTIME record.
  ASSERT_EQ(records.kernels.size(), 1u);
  ASSERT_EQ(records.synchronizations.size(), 1u);
  ASSERT_EQ(events.size() % 2, 0u);
  ASSERT_EQ(events.size(), 2 * records.runtime_calls.size());
  const ApiCallbackEvent* launch = nullptr;
  const ApiCallbackEvent* sync_enter = nullptr;
  const ApiCallbackEvent* sync_exit = nullptr;
  for (size_t i = 0; i < events.size(); i += 2) {
    EXPECT_EQ(events[i].domain, CUPTI_CB_DOMAIN_RUNTIME_API);
    EXPECT_EQ(events[i].site, CUPTI_API_ENTER);
    EXPECT_EQ(events[i + 1].site, CUPTI_API_EXIT);
    EXPECT_EQ(events[i].thread_id, Gettid());
    EXPECT_EQ(events[i + 1].thread_id, Gettid());
    EXPECT_EQ(events[i + 1].correlation_id, events[i].correlation_id);
    EXPECT_EQ(events[i + 1].correlation_data, CorrelationDataFor(events[i].correlation_id));
    const auto calls = records.RuntimeCallsWithCorrelation(events[i].correlation_id);
    ASSERT_EQ(calls.size(), 1u) << events[i].function_name;
    EXPECT_EQ(calls[0].cbid, events[i].cbid);
    if (IsLaunchCallbackId(events[i].cbid)) launch = &events[i];
    if (events[i].function_name == "cudaStreamSynchronize") {
      sync_enter = &events[i];
      sync_exit = &events[i + 1];
    }
  }
  ASSERT_NE(launch, nullptr);
  ASSERT_NE(sync_enter, nullptr);
  EXPECT_EQ(records.kernels[0].raw.correlationId, launch->correlation_id);
  EXPECT_EQ(records.synchronizations[0].correlationId, sync_enter->correlation_id);
  EXPECT_LE(sync_enter->time_ns, records.synchronizations[0].start) << "ENTER before the wait";
  EXPECT_GE(sync_exit->time_ns, records.kernels[0].raw.end) << "EXIT after the awaited kernel";
}

}  // namespace
}  // namespace brrr::simtest
