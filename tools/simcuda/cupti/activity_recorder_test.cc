// Tests for ActivityRecorder as the engine's sink: enabled/disabled kinds, kernel kinds, API
// domains, external correlation records, latency timestamps, the client clock mapping.
#include "activity_recorder.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "external_correlation.h"
#include "fake_buffer_client.h"

namespace simcuda::cupti {
namespace {

using testing::As;
using testing::KindOf;
using testing::ReturnedRecords;

constexpr uint64_t kClockAheadNs = 500'000'000'000'000ull;  // fake client clock: monotonic + 5e14
uint64_t FakeClientClock() { return MonotonicNowNs() + kClockAheadNs; }

ApiEvent Api(ApiDomain domain, uint32_t correlation_id) {
  ApiEvent e{};
  e.domain = domain;
  e.cbid = 13;
  e.correlation_id = correlation_id;
  e.process_id = 1;
  e.thread_id = 2;
  e.start_ns = 1000;
  e.end_ns = 2000;
  return e;
}

KernelEvent Kernel(uint32_t correlation_id) {
  KernelEvent e{};
  e.name = "k";
  e.correlation_id = correlation_id;
  // Engine time (CLOCK_MONOTONIC): a kernel is traced when its kind was on when it was queued.
  const uint64_t now = MonotonicNowNs();
  e.queued_ns = now;
  e.submitted_ns = now + 10'000;
  e.start_ns = now + 20'000;
  e.end_ns = now + 30'000;
  return e;
}

class ActivityRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::ResetFakeClient({.buffer_size = 1 << 16});
    ASSERT_EQ(
        recorder_.buffers().RegisterCallbacks(&testing::RequestBuffer, &testing::CompleteBuffer),
        CUPTI_SUCCESS);
  }
  std::vector<std::vector<uint8_t>> Flush() {
    EXPECT_EQ(recorder_.buffers().FlushAll(), CUPTI_SUCCESS);
    return ReturnedRecords();
  }
  void EmitOneOfEach() {
    recorder_.OnApiExit(Api(ApiDomain::kRuntime, 1));
    recorder_.OnApiExit(Api(ApiDomain::kDriver, 2));
    recorder_.OnKernel(Kernel(3));
    recorder_.OnMemcpy(MemcpyEvent{.correlation_id = 4, .start_ns = 1, .end_ns = 2});
    recorder_.OnMemset(MemsetEvent{.correlation_id = 5, .start_ns = 1, .end_ns = 2});
    recorder_.OnSynchronization(
        SynchronizationEvent{.correlation_id = 6, .start_ns = 1, .end_ns = 2});
  }
  ActivityRecorder recorder_;
};

TEST_F(ActivityRecorderTest, NothingIsRecordedWhileNoKindIsEnabled) {
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1), CUPTI_SUCCESS);
  EmitOneOfEach();
  EXPECT_TRUE(Flush().empty());
  EXPECT_EQ(recorder_.buffers().TakeDroppedCount(), 0u);
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            CUPTI_SUCCESS);
}

TEST_F(ActivityRecorderTest, OnlyEnabledKindsAreRecorded) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_DRIVER), CUPTI_SUCCESS);
  EmitOneOfEach();
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(KindOf(records[0]), CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[0]).correlationId, 2u);
  EXPECT_EQ(KindOf(records[1]), CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(As<CUpti_ActivityMemcpy6>(records[1]).correlationId, 4u);
}

// cuptiActivityEnableRuntimeApi / cuptiActivityEnableDriverApi, as cupti_activity.h documents
// them: one function off under its kind, or on without it; enabling the kind again overrides both.
TEST_F(ActivityRecorderTest, OneFunctionsApiRecordsGoOffUnderItsKindUntilTheKindIsEnabledAgain) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  ApiEvent off = Api(ApiDomain::kRuntime, 1);
  off.cbid = 211;
  ApiEvent kept = Api(ApiDomain::kRuntime, 2);
  ApiEvent driver_on = Api(ApiDomain::kDriver, 3);
  driver_on.cbid = 307;
  ASSERT_EQ(recorder_.EnableApi(/*runtime=*/true, 211, false), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.EnableApi(/*runtime=*/false, 307, true), CUPTI_SUCCESS);
  EXPECT_EQ(recorder_.EnableApi(/*runtime=*/true, 1u << 20, false), CUPTI_ERROR_INVALID_PARAMETER);
  recorder_.OnApiExit(off);
  recorder_.OnApiExit(kept);
  recorder_.OnApiExit(driver_on);
  auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[0]).correlationId, 2u);
  EXPECT_EQ(KindOf(records[1]), CUPTI_ACTIVITY_KIND_DRIVER);  // on although DRIVER is off
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[1]).correlationId, 3u);

  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);  // overrides
  recorder_.OnApiExit(off);
  records = Flush();  // every record returned so far
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[2]).correlationId, 1u);
}

TEST_F(ActivityRecorderTest, EveryKindProducesItsRecord) {
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}) {
    ASSERT_EQ(recorder_.Enable(kind), CUPTI_SUCCESS);
  }
  EmitOneOfEach();
  const auto records = Flush();
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(KindOf(records[0]), CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(KindOf(records[1]), CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(KindOf(records[2]), CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(KindOf(records[3]), CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(KindOf(records[4]), CUPTI_ACTIVITY_KIND_MEMSET);
  EXPECT_EQ(KindOf(records[5]), CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
}

TEST_F(ActivityRecorderTest, DisabledKindStopsRecording) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_MEMSET), CUPTI_SUCCESS);
  recorder_.OnMemset(MemsetEvent{.correlation_id = 1});
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_MEMSET), CUPTI_SUCCESS);
  EXPECT_FALSE(recorder_.AnyEnabled());
  recorder_.OnMemset(MemsetEvent{.correlation_id = 2});
  const auto records = Flush();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(As<CUpti_ActivityMemset4>(records[0]).correlationId, 1u);
}

TEST_F(ActivityRecorderTest, KernelRecordCarriesTheEnabledKernelKind) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(Kernel(1));
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(Kernel(2));  // both enabled: one record, CONCURRENT_KERNEL
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(KindOf(records[0]), CUPTI_ACTIVITY_KIND_KERNEL);
  EXPECT_EQ(KindOf(records[1]), CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_NE(As<CUpti_ActivityKernel10>(records[0]).gridId,
            As<CUpti_ActivityKernel10>(records[1]).gridId);
}

TEST_F(ActivityRecorderTest, UnknownAndUnsimulatedKindsAreRefused) {
  EXPECT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_INVALID), CUPTI_ERROR_INVALID_KIND);
  EXPECT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_COUNT), CUPTI_ERROR_INVALID_KIND);
  EXPECT_EQ(recorder_.Enable(static_cast<CUpti_ActivityKind>(9999)), CUPTI_ERROR_INVALID_KIND);
  EXPECT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_DEVICE), CUPTI_ERROR_NOT_COMPATIBLE);
  EXPECT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_OVERHEAD), CUPTI_ERROR_NOT_COMPATIBLE);
  EXPECT_FALSE(recorder_.AnyEnabled());
  EXPECT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_DEVICE), CUPTI_SUCCESS);
  EXPECT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_INVALID), CUPTI_ERROR_INVALID_KIND);
}

TEST_F(ActivityRecorderTest, ExternalCorrelationRecordsPrecedeApiRecordOnePerKind) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 100), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 101), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 200), CUPTI_SUCCESS);
  recorder_.OnApiExit(Api(ApiDomain::kRuntime, 7));
  // Another thread with nothing pushed: its API call gets no external correlation.
  std::thread other([this] { recorder_.OnApiExit(Api(ApiDomain::kRuntime, 8)); });
  other.join();
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, nullptr),
            CUPTI_SUCCESS);
  recorder_.OnApiExit(Api(ApiDomain::kDriver, 9));  // only CUSTOM0 left; DRIVER not enabled
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            CUPTI_SUCCESS);
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            CUPTI_SUCCESS);

  const auto records = Flush();
  ASSERT_EQ(records.size(), 5u);
  const auto first = As<CUpti_ActivityExternalCorrelation>(records[0]);
  EXPECT_EQ(first.kind, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  EXPECT_EQ(first.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  EXPECT_EQ(first.externalId, 101u);
  EXPECT_EQ(first.correlationId, 7u);
  const auto second = As<CUpti_ActivityExternalCorrelation>(records[1]);
  EXPECT_EQ(second.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
  EXPECT_EQ(second.externalId, 200u);
  EXPECT_EQ(second.correlationId, 7u);
  EXPECT_EQ(KindOf(records[2]), CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[2]).correlationId, 7u);
  EXPECT_EQ(KindOf(records[3]), CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(As<CUpti_ActivityAPI>(records[3]).correlationId, 8u);
  const auto last = As<CUpti_ActivityExternalCorrelation>(records[4]);
  EXPECT_EQ(last.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  EXPECT_EQ(last.externalId, 101u);
  EXPECT_EQ(last.correlationId, 9u);
}

TEST_F(ActivityRecorderTest, NoExternalCorrelationRecordsWhenKindDisabled) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  ASSERT_EQ(PushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1), CUPTI_SUCCESS);
  recorder_.OnApiExit(Api(ApiDomain::kRuntime, 1));
  ASSERT_EQ(PopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            CUPTI_SUCCESS);
  const auto records = Flush();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(KindOf(records[0]), CUPTI_ACTIVITY_KIND_RUNTIME);
}

TEST_F(ActivityRecorderTest, LatencyTimestampsOffMeansUnknownQueuedAndSubmitted) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(Kernel(1));
  recorder_.EnableLatencyTimestamps(true);
  recorder_.OnKernel(Kernel(2));
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  const auto off = As<CUpti_ActivityKernel10>(records[0]);
  EXPECT_EQ(off.queued, static_cast<uint64_t>(CUPTI_TIMESTAMP_UNKNOWN));
  EXPECT_EQ(off.submitted, static_cast<uint64_t>(CUPTI_TIMESTAMP_UNKNOWN));
  EXPECT_NE(off.start, 0u);
  const auto on = As<CUpti_ActivityKernel10>(records[1]);
  EXPECT_NE(on.queued, 0u);
  EXPECT_EQ(on.submitted - on.queued, 10'000u);
  EXPECT_EQ(on.start - on.submitted, 10'000u);
}

TEST_F(ActivityRecorderTest, TimestampCallbackClockShowsUpInRecords) {
  ASSERT_EQ(recorder_.RegisterTimestampCallback(&FakeClientClock), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  recorder_.OnKernel(Kernel(1));
  recorder_.OnApiExit(Api(ApiDomain::kRuntime, 2));
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  const auto kernel = As<CUpti_ActivityKernel10>(records[0]);
  // The offset is exact to within one bracketing pair of clock reads.
  EXPECT_NEAR(kernel.start, MonotonicNowNs() + kClockAheadNs, 100'000'000);
  EXPECT_EQ(kernel.end - kernel.start, 10'000u);
  const auto api = As<CUpti_ActivityAPI>(records[1]);
  EXPECT_NEAR(api.start, 1000 + kClockAheadNs, 100'000'000);
  const uint64_t before = FakeClientClock();
  const uint64_t now = recorder_.clock().Now();
  EXPECT_GE(now, before);
  EXPECT_LE(now, FakeClientClock());
}

TEST_F(ActivityRecorderTest, TimestampCallbackMustComeBeforeEnabling) {
  EXPECT_EQ(recorder_.RegisterTimestampCallback(nullptr), CUPTI_ERROR_INVALID_PARAMETER);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_EQ(recorder_.RegisterTimestampCallback(&FakeClientClock), CUPTI_ERROR_NOT_COMPATIBLE);
  EXPECT_FALSE(recorder_.clock().HasCallback());
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_EQ(recorder_.RegisterTimestampCallback(&FakeClientClock), CUPTI_SUCCESS);
}

TEST_F(ActivityRecorderTest, ConcurrentSinkCallsRecordEveryEventOnce) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  testing::ResetFakeClient({.buffer_size = 1024});
  constexpr uint32_t kPerThread = 1000;
  std::thread device([this] {
    for (uint32_t i = 1; i <= kPerThread; ++i) recorder_.OnKernel(Kernel(i));
  });
  std::thread host([this] {
    for (uint32_t i = 1; i <= kPerThread; ++i) recorder_.OnApiExit(Api(ApiDomain::kRuntime, i));
  });
  device.join();
  host.join();
  size_t kernels = 0;
  size_t apis = 0;
  for (const auto& record : Flush()) {
    kernels += KindOf(record) == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? 1 : 0;
    apis += KindOf(record) == CUPTI_ACTIVITY_KIND_RUNTIME ? 1 : 0;
  }
  EXPECT_EQ(kernels, kPerThread);
  EXPECT_EQ(apis, kPerThread);
}

// Device work is traced by the state of its kind when the host queued it, as real CUPTI decides at
// launch: a kernel queued while on and run after the kind went off keeps its record; one queued
// while off and run after the kind came back on has none.
TEST_F(ActivityRecorderTest, KernelsAreTracedByTheStateOfTheirKindWhenQueued) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  const KernelEvent queued_while_on = Kernel(1);
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(queued_while_on);
  const KernelEvent queued_while_off = Kernel(2);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(queued_while_off);
  recorder_.OnKernel(Kernel(3));
  MemcpyEvent copy_queued_while_off{.correlation_id = 4, .start_ns = 1, .end_ns = 2};
  copy_queued_while_off.queued_ns = MonotonicNowNs();
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  recorder_.OnMemcpy(copy_queued_while_off);
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[0]).correlationId, 1u);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[1]).correlationId, 3u);
}

// Sampled tracing switches kinds on and off many times while the device runs far behind: a
// kernel queued in an earlier on-period (not the latest) still has its record; one queued in a gap
// between two on-periods has none.
TEST_F(ActivityRecorderTest, KernelsQueuedInAnEarlierOnPeriodKeepTheirRecords) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  const KernelEvent first_window = Kernel(1);
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  const KernelEvent gap = Kernel(2);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  const KernelEvent second_window = Kernel(3);
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  for (const KernelEvent& k : {first_window, gap, second_window}) recorder_.OnKernel(k);
  const auto records = Flush();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[0]).correlationId, 1u);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[1]).correlationId, 3u);
}

// Real CUPTI's forced flush hands back the records of work still queued or running, with start and
// end 0, and never delivers them again (in_flight_work.h): so does the recorder. Work that
// completed first keeps its times; work queued while its kind was off is not tracked at all.
TEST_F(ActivityRecorderTest, AForcedFlushHandsBackUnfinishedWorkOnceWithoutTimestamps) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  const auto queued = [](KernelEvent e) {
    e.start_ns = e.end_ns = e.submitted_ns = 0;
    return e;
  };
  KernelEvent running = Kernel(1), done = Kernel(2);
  running.work_id = 11;
  done.work_id = 12;
  MemcpyEvent copy{.work_id = 13, .correlation_id = 3, .start_ns = 5, .end_ns = 6};
  copy.queued_ns = MonotonicNowNs();
  recorder_.OnKernelQueued(queued(running));
  recorder_.OnKernelQueued(queued(done));
  MemcpyEvent copy_queued = copy;
  copy_queued.start_ns = copy_queued.end_ns = 0;
  recorder_.OnMemcpyQueued(copy_queued);
  recorder_.OnKernel(done);
  EXPECT_EQ(recorder_.InFlightForTest(), 2u);
  recorder_.HandBackInFlight();
  const auto records = Flush();
  ASSERT_EQ(records.size(), 3u);
  const auto& first = As<CUpti_ActivityKernel10>(records[0]);
  EXPECT_EQ(first.correlationId, 2u);
  EXPECT_NE(first.start, 0u);
  EXPECT_NE(first.end, 0u);
  std::set<uint32_t> untimed;
  for (size_t i = 1; i < records.size(); ++i) {
    if (KindOf(records[i]) == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto& m = As<CUpti_ActivityMemcpy6>(records[i]);
      EXPECT_EQ(m.start, 0u);
      EXPECT_EQ(m.end, 0u);
      untimed.insert(m.correlationId);
    } else {
      const auto& k = As<CUpti_ActivityKernel10>(records[i]);
      EXPECT_EQ(k.start, 0u);
      EXPECT_EQ(k.end, 0u);
      EXPECT_STREQ(k.name, "k");
      untimed.insert(k.correlationId);
    }
  }
  EXPECT_EQ(untimed, (std::set<uint32_t>{1, 3}));
  // Their completions come later: never delivered again.
  recorder_.OnKernel(running);
  recorder_.OnMemcpy(copy);
  EXPECT_EQ(Flush().size(), 3u);  // the fake client keeps every record returned so far
  EXPECT_EQ(recorder_.InFlightForTest(), 0u);
  // Queued while its kind is off: not in flight for CUPTI, and no record when it completes.
  ASSERT_EQ(recorder_.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  KernelEvent off = Kernel(4);
  off.work_id = 14;
  recorder_.OnKernelQueued(queued(off));
  EXPECT_EQ(recorder_.InFlightForTest(), 0u);
}

// cuptiFinalize drops what it has not delivered: a kernel queued before it has no record, even when
// CUPTI is attached again (its kind on) by the time the kernel completes.
TEST_F(ActivityRecorderTest, WorkQueuedBeforeAFinalizeNeverHasARecord) {
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  KernelEvent before = Kernel(1);
  before.work_id = 21;
  KernelEvent queued = before;
  queued.start_ns = queued.end_ns = 0;
  recorder_.OnKernelQueued(queued);
  recorder_.DisableAll();
  recorder_.ForgetInFlight();
  EXPECT_EQ(recorder_.InFlightForTest(), 0u);
  ASSERT_EQ(recorder_.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  recorder_.OnKernel(before);
  recorder_.OnKernel(Kernel(2));  // queued after the attach: recorded
  const auto records = Flush();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(As<CUpti_ActivityKernel10>(records[0]).correlationId, 2u);
}

}  // namespace
}  // namespace simcuda::cupti
