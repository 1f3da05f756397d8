// Tests for the exported C functions over the process-wide instance, with a fake engine
// registration (fake_engine_registration.cc) standing in for libcuda.so.1. Every test ends with
// cuptiFinalize so the next one starts from the initial state.
#include <cupti.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "client_clock.h"
#include "fake_buffer_client.h"
#include "fake_engine_registration.h"

namespace simcuda::cupti {
namespace {

using testing::As;
using testing::KindOf;
using testing::RegisteredSink;
using testing::ReturnedRecords;

uint64_t FixedClock() { return 777; }

class CuptiApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::ResetFakeClient({.buffer_size = 4096});
    ASSERT_EQ(cuptiActivityRegisterCallbacks(&testing::RequestBuffer, &testing::CompleteBuffer),
              CUPTI_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuptiFinalize(), CUPTI_SUCCESS); }
};

TEST_F(CuptiApiTest, VersionAndResultStrings) {
  uint32_t version = 0;
  ASSERT_EQ(cuptiGetVersion(&version), CUPTI_SUCCESS);
  EXPECT_EQ(version, static_cast<uint32_t>(CUPTI_API_VERSION));
  EXPECT_EQ(cuptiGetVersion(nullptr), CUPTI_ERROR_INVALID_PARAMETER);
  const char* str = nullptr;
  ASSERT_EQ(cuptiGetResultString(CUPTI_ERROR_NOT_COMPATIBLE, &str), CUPTI_SUCCESS);
  EXPECT_EQ(std::string(str), "CUPTI_ERROR_NOT_COMPATIBLE");
  EXPECT_EQ(cuptiGetResultString(static_cast<CUptiResult>(1234), &str),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiGetResultString(CUPTI_SUCCESS, nullptr), CUPTI_ERROR_INVALID_PARAMETER);
  ASSERT_EQ(cuptiGetErrorMessage(CUPTI_ERROR_QUEUE_EMPTY, &str), CUPTI_SUCCESS);
  EXPECT_EQ(std::string(str), "CUPTI_ERROR_QUEUE_EMPTY");
}

// From the first enabled kind on, and after every kind went off again: work queued while its kind
// was on still reaches the recorder when it completes (real CUPTI decides at launch).
TEST_F(CuptiApiTest, SinkIsRegisteredOnceAKindWasEnabled) {
  EXPECT_EQ(RegisteredSink(), nullptr);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_NE(RegisteredSink(), nullptr);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  const int calls = testing::SinkRegistrationCalls();
  ASSERT_EQ(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_NE(RegisteredSink(), nullptr);
  EXPECT_EQ(testing::SinkRegistrationCalls(), calls);  // no re-registration while still enabled
  ASSERT_EQ(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  EXPECT_NE(RegisteredSink(), nullptr);
  EXPECT_EQ(testing::SinkRegistrationCalls(), calls);
}

TEST_F(CuptiApiTest, UnsupportedKindsDoNotRegisterTheSink) {
  EXPECT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_PC_SAMPLING), CUPTI_ERROR_NOT_COMPATIBLE);
  EXPECT_EQ(cuptiActivityEnable(static_cast<CUpti_ActivityKind>(5000)), CUPTI_ERROR_INVALID_KIND);
  EXPECT_EQ(RegisteredSink(), nullptr);
}

TEST_F(CuptiApiTest, EngineEventsBecomeRecordsOnFlush) {
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), CUPTI_SUCCESS);
  ActivitySink* sink = RegisteredSink();
  ASSERT_NE(sink, nullptr);
  ASSERT_EQ(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 42),
            CUPTI_SUCCESS);
  sink->OnApiExit(ApiEvent{.domain = ApiDomain::kDriver, .cbid = 1, .correlation_id = 5});
  uint64_t popped = 0;
  ASSERT_EQ(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped),
            CUPTI_SUCCESS);
  EXPECT_EQ(popped, 42u);
  EXPECT_EQ(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped),
            CUPTI_ERROR_QUEUE_EMPTY);
  sink->OnKernel(KernelEvent{.name = "k", .correlation_id = 5, .start_ns = 10, .end_ns = 20});

  EXPECT_TRUE(ReturnedRecords().empty());
  ASSERT_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const auto records = ReturnedRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(KindOf(records[0]), CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  EXPECT_EQ(As<CUpti_ActivityExternalCorrelation>(records[0]).externalId, 42u);
  EXPECT_EQ(KindOf(records[1]), CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(KindOf(records[2]), CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[2]).queued,
            static_cast<uint64_t>(CUPTI_TIMESTAMP_UNKNOWN));
}

TEST_F(CuptiApiTest, DefaultFlushAlsoDeliversPartialBuffers) {
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), CUPTI_SUCCESS);
  RegisteredSink()->OnMemset(MemsetEvent{.correlation_id = 3});
  ASSERT_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  EXPECT_EQ(ReturnedRecords().size(), 1u);
}

TEST_F(CuptiApiTest, DroppedRecordsAreCountedAndReset) {
  testing::ResetFakeClient({.buffer_size = 0});
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), CUPTI_SUCCESS);
  RegisteredSink()->OnMemset(MemsetEvent{.correlation_id = 1});
  RegisteredSink()->OnMemset(MemsetEvent{.correlation_id = 2});
  size_t dropped = 0;
  ASSERT_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), CUPTI_SUCCESS);
  EXPECT_EQ(dropped, 2u);
  ASSERT_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), CUPTI_SUCCESS);
  EXPECT_EQ(dropped, 0u);
  EXPECT_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, nullptr), CUPTI_ERROR_INVALID_PARAMETER);
}

TEST_F(CuptiApiTest, TimestampCallbackBeforeEnableDrivesGetTimestampAndRecords) {
  ASSERT_EQ(cuptiActivityRegisterTimestampCallback(&FixedClock), CUPTI_SUCCESS);
  uint64_t now = 0;
  ASSERT_EQ(cuptiGetTimestamp(&now), CUPTI_SUCCESS);
  EXPECT_EQ(now, 777u);
  EXPECT_EQ(cuptiGetTimestamp(nullptr), CUPTI_ERROR_INVALID_PARAMETER);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiActivityRegisterTimestampCallback(&FixedClock), CUPTI_ERROR_NOT_COMPATIBLE);
}

TEST_F(CuptiApiTest, FinalizeRestoresTheDefaultClock) {
  ASSERT_EQ(cuptiActivityRegisterTimestampCallback(&FixedClock), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  uint64_t now = 0;
  ASSERT_EQ(cuptiGetTimestamp(&now), CUPTI_SUCCESS);
  EXPECT_GT(now, 1'500'000'000'000'000'000ull);  // CLOCK_REALTIME: after 2017
}

TEST_F(CuptiApiTest, LatencyTimestampsSwitch) {
  ASSERT_EQ(cuptiActivityEnableLatencyTimestamps(1), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL), CUPTI_SUCCESS);
  const uint64_t now = MonotonicNowNs();  // engine time: queued while the kind is on
  RegisteredSink()->OnKernel(KernelEvent{
      .name = "k", .queued_ns = now, .submitted_ns = now + 1, .start_ns = now + 2, .end_ns = now + 3});
  ASSERT_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  const auto records = ReturnedRecords();
  ASSERT_EQ(records.size(), 1u);
  const auto kernel = As<CUpti_ActivityKernel10>(records[0]);
  EXPECT_EQ(kernel.kind, CUPTI_ACTIVITY_KIND_KERNEL);
  EXPECT_NE(kernel.queued, 0u);
  EXPECT_EQ(kernel.start - kernel.queued, 2u);
}

// As the real ones (tools/gpu/workloads/attach_probe.cu on an H100): cuptiSubscribe and
// cuptiFinalize wait for the device's queued work, enabling a kind and a flush do not.
TEST_F(CuptiApiTest, SubscribeAndFinalizeWaitForQueuedWork) {
  const int before = testing::QueuedWorkWaits();
  CUpti_SubscriberHandle subscriber = nullptr;
  ASSERT_EQ(cuptiSubscribe(&subscriber, nullptr, nullptr), CUPTI_SUCCESS);
  EXPECT_EQ(testing::QueuedWorkWaits(), before + 1);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  EXPECT_EQ(testing::QueuedWorkWaits(), before + 1);
  ASSERT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  EXPECT_EQ(testing::QueuedWorkWaits(), before + 2);
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  ASSERT_EQ(cuptiSubscribe_v2(&subscriber, nullptr, nullptr, &params), CUPTI_SUCCESS);
  EXPECT_EQ(testing::QueuedWorkWaits(), before + 3);
  ASSERT_EQ(cuptiUnsubscribe(subscriber), CUPTI_SUCCESS);
}

int64_t MonotonicNs() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// What an idle attach and detach take on a real driver (16 ms and 2 ms on an H200), where the
// environment asks for it: cuptiSubscribe, cuptiSubscribe_v2 and cuptiFinalize take that much
// longer; a value over 1 s is ignored.
TEST_F(CuptiApiTest, SubscribeAndFinalizeTakeTheIdleCostsAskedFor) {
  const auto timed = [](auto&& call) {
    const int64_t t0 = MonotonicNs();
    EXPECT_EQ(call(), CUPTI_SUCCESS);
    return MonotonicNs() - t0;
  };
  CUpti_SubscriberHandle subscriber = nullptr;
  ::setenv("SIMCUDA_CUPTI_SUBSCRIBE_NS", "30000000", 1);
  ::setenv("SIMCUDA_CUPTI_FINALIZE_NS", "20000000", 1);
  EXPECT_GE(timed([&] { return cuptiSubscribe(&subscriber, nullptr, nullptr); }), 30'000'000);
  EXPECT_GE(timed([] { return cuptiFinalize(); }), 20'000'000);
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  EXPECT_GE(timed([&] { return cuptiSubscribe_v2(&subscriber, nullptr, nullptr, &params); }),
            30'000'000);
  ::setenv("SIMCUDA_CUPTI_FINALIZE_NS", "5000000000", 1);  // 5 s: out of range
  EXPECT_LT(timed([] { return cuptiFinalize(); }), 2'000'000'000);
  ::unsetenv("SIMCUDA_CUPTI_SUBSCRIBE_NS");
  ::unsetenv("SIMCUDA_CUPTI_FINALIZE_NS");
}

TEST_F(CuptiApiTest, OneSubscriberAtATime) {
  CUpti_SubscriberHandle first = nullptr;
  CUpti_SubscriberHandle second = nullptr;
  ASSERT_EQ(cuptiSubscribe(&first, nullptr, nullptr), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiSubscribe(&second, nullptr, nullptr),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "second";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof(old_name);
  EXPECT_EQ(cuptiSubscribe_v2(&second, nullptr, nullptr, &params),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(std::string(old_name).rfind("CUPTI for ", 0), 0u);

  EXPECT_EQ(cuptiEnableDomain(1, first, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiEnableDomain(1, first, CUPTI_CB_DOMAIN_INVALID), CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiEnableCallback(1, first, CUPTI_CB_DOMAIN_DRIVER_API, 1), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiEnableAllDomains(1, first), CUPTI_SUCCESS);

  ASSERT_EQ(cuptiUnsubscribe(first), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiEnableDomain(1, first, CUPTI_CB_DOMAIN_RUNTIME_API),
            CUPTI_ERROR_INVALID_PARAMETER);
  ASSERT_EQ(cuptiSubscribe_v2(&second, nullptr, nullptr, &params), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiUnsubscribe(second), CUPTI_SUCCESS);
}

TEST_F(CuptiApiTest, FinalizeFreesTheSubscriberSlotAndUnregistersTheSink) {
  CUpti_SubscriberHandle handle = nullptr;
  ASSERT_EQ(cuptiSubscribe(&handle, nullptr, nullptr), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  EXPECT_EQ(RegisteredSink(), nullptr);
  ASSERT_EQ(cuptiSubscribe(&handle, nullptr, nullptr), CUPTI_SUCCESS);
}

TEST_F(CuptiApiTest, CallbackSinkIsRegisteredWhileASubscriberHasApiCallbacksEnabled) {
  CUpti_SubscriberHandle handle = nullptr;
  ASSERT_EQ(cuptiSubscribe(&handle, nullptr, nullptr), CUPTI_SUCCESS);
  EXPECT_EQ(testing::RegisteredApiCallbackSink(), nullptr);
  ASSERT_EQ(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API,
                                CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020),
            CUPTI_SUCCESS);
  EXPECT_NE(testing::RegisteredApiCallbackSink(), nullptr);
  EXPECT_EQ(RegisteredSink(), nullptr) << "callbacks need no activity recording";
  uint32_t state = 0;
  ASSERT_EQ(cuptiGetCallbackState(&state, handle, CUPTI_CB_DOMAIN_RUNTIME_API,
                                  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020),
            CUPTI_SUCCESS);
  EXPECT_EQ(state, 1u);
  ASSERT_EQ(cuptiUnsubscribe(handle), CUPTI_SUCCESS);
  EXPECT_EQ(testing::RegisteredApiCallbackSink(), nullptr);

  ASSERT_EQ(cuptiSubscribe(&handle, nullptr, nullptr), CUPTI_SUCCESS);
  ASSERT_EQ(cuptiGetCallbackState(&state, handle, CUPTI_CB_DOMAIN_RUNTIME_API,
                                  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020),
            CUPTI_SUCCESS);
  EXPECT_EQ(state, 0u) << "a new subscriber starts with nothing enabled";
  ASSERT_EQ(cuptiEnableDomain(1, handle, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  EXPECT_NE(testing::RegisteredApiCallbackSink(), nullptr);
  ASSERT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  EXPECT_EQ(testing::RegisteredApiCallbackSink(), nullptr);
}

TEST_F(CuptiApiTest, CallbackNamesCarryTheVersionSuffix) {
  const char* name = nullptr;
  ASSERT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API,
                                 CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, &name),
            CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cudaMemcpy_v3020");
  ASSERT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API,
                                 CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, &name),
            CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cuStreamSynchronize");
  EXPECT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 0, &name),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RESOURCE, 1, &name),
            CUPTI_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 1, nullptr),
            CUPTI_ERROR_INVALID_PARAMETER);
}

TEST_F(CuptiApiTest, GetNextRecordIsExported) {
  CUpti_ActivityAPI record{};
  record.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  auto* buffer = reinterpret_cast<uint8_t*>(&record);
  CUpti_Activity* it = nullptr;
  ASSERT_EQ(cuptiActivityGetNextRecord(buffer, sizeof(record), &it), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiActivityGetNextRecord(buffer, sizeof(record), &it), CUPTI_ERROR_MAX_LIMIT_REACHED);
  record.kind = static_cast<CUpti_ActivityKind>(0x7777);
  it = nullptr;
  EXPECT_EQ(cuptiActivityGetNextRecord(buffer, sizeof(record), &it), CUPTI_ERROR_INVALID_KIND);
}

TEST(CuptiApiExitTest, ProcessExitWithBuffersPendingAndADeliveryInFlightExitsCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // A slow client: one full buffer is inside bufferCompleted on CUPTI's worker, another
        // waits in the queue, a partial one is still being filled when the process exits.
        testing::ResetFakeClient(
            {.buffer_size = 2 * sizeof(CUpti_ActivityAPI) + 8, .complete_delay_ms = 2000});
        cuptiActivityRegisterCallbacks(&testing::RequestBuffer, &testing::CompleteBuffer);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
        for (uint32_t id = 1; id <= 5; ++id) {
          RegisteredSink()->OnApiExit(
              ApiEvent{.domain = ApiDomain::kRuntime, .correlation_id = id});
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace simcuda::cupti
