// Tests the joiner: host<->CUPTI matching in both arrival orders, thread-id aliases, CUPTI-only
// decisions, nested driver records, launch latency from either arrival order.
#include "collector/analysis/call_joiner.h"

#include <vector>

#include "collector/analysis/event_builders_for_test.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

class Recorder : public CallJoiner::Listener {
 public:
  void OnCuptiOnlyCall(const ApiActivity& call, const CorrelationFlags& flags) override {
    cupti_only.push_back(call);
    last_flags = flags;
  }
  void OnLaunchLatency(int64_t latency_ns) override { latencies.push_back(latency_ns); }
  void OnLaunchedKernel(int64_t /*launcher_enter_ns*/, int64_t /*device_ns*/, bool first,
                        int64_t start_ns) override {
    if (first) first_starts.push_back(start_ns);
  }
  std::vector<ApiActivity> cupti_only;
  CorrelationFlags last_flags;
  std::vector<int64_t> latencies;
  std::vector<int64_t> first_starts;  // the start of each launch's first kernel
};

class CallJoinerTest : public ::testing::Test {
 protected:
  Recorder rec;
  CallJoiner joiner{CallJoiner::Options{}, &rec};
};

TEST_F(CallJoinerTest, HostFirstThenCuptiJoinsAndLatencyUsesHostEnter) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 4900));
  joiner.AddDeviceOp(Kernel("k", 1, 8000, 9000));
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 8000 - 1000);
  EXPECT_EQ(rec.first_starts, std::vector<int64_t>{8000});
}

TEST_F(CallJoinerTest, KernelAndCuptiBeforeHostStillJoin) {
  joiner.AddDeviceOp(Kernel("k", 7, 8000, 9000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 7, 1100, 4900));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 7000);
  EXPECT_EQ(rec.first_starts, std::vector<int64_t>{8000});
}

TEST_F(CallJoinerTest, PthreadIdMatchesToo) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(
      Runtime(kRuntimeLaunchCbid, 1, 1100, 4900, static_cast<uint32_t>(kPthread)));
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
}

TEST_F(CallJoinerTest, SlackAllowsSlightlyOutsideRecords) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 500, 5400));   // 500 ns out each side
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 2, 3000, 7000));  // 2 us out: not this call
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 2u);
}

TEST_F(CallJoinerTest, ARecordComingAfterItsSpanWasGivenUpOnIsCountedLate) {
  // Call A, then call B 2.5 s later. B's record comes first (CUPTI buffers out of order): the
  // joiner gives up on A, still unmatched more than the decide lag (1 s) before B. A's record then
  // comes: no span holds it, so it is a CUPTI-only call (A counts twice), and the joiner says so.
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 2000));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 2'500'000'000, 2'500'001'000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 2, 2'500'000'100, 2'500'000'900));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 1900));
  // A record in no given-up span (after the host moved past it, no host call held it): CUPTI-only,
  // and not late.
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 3, 2'600'000'000, 2'600'000'500));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 2'700'000'000, 2'700'001'000));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.cupti_only.size(), 2u);
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 1u);
  EXPECT_EQ(rec.cupti_only[1].correlation_id, 3u);
  EXPECT_EQ(joiner.counters().api_records_late, 1u);
}

TEST_F(CallJoinerTest, AHostCallComingAfterItsRecordWasDecidedIsCountedLate) {
  // A's record comes; its host call does not come within the decide lag (1 s of event time, here
  // from other threads' records), so it is decided CUPTI-only. Then A's host call comes.
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 500, 600));  // the thread is known
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 1900));
  joiner.AddApiActivity(
      Runtime(kRuntimeLaunchCbid, 2, 2'000'000'000, 2'000'001'000, /*thread=*/kTid + 1));
  joiner.AddApiActivity(
      Runtime(kRuntimeLaunchCbid, 3, 2'100'000'000, 2'100'001'000, /*thread=*/kTid + 1));
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_EQ(joiner.counters().api_records_late, 0u);
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 2000));
  EXPECT_EQ(joiner.counters().api_records_late, 1u);
  // A later host call not containing it is not.
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 3000, 4000));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().api_records_late, 1u);
}

TEST_F(CallJoinerTest, InOrderRecordsAreNeverLate) {
  for (int64_t i = 0; i < 100; ++i) {
    const int64_t t = 1000 + i * 30'000'000;  // 3 s of calls, each record after its call
    joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, t, t + 1000));
    joiner.AddApiActivity(
        Runtime(kRuntimeLaunchCbid, static_cast<uint32_t>(i + 1), t + 100, t + 900));
  }
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 100u);
  EXPECT_EQ(joiner.counters().api_records_late, 0u);
}

TEST_F(CallJoinerTest, OtherThreadDoesNotMatch) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 4900, /*thread=*/kTid + 1));
  joiner.Finish();
  EXPECT_EQ(rec.cupti_only.size(), 1u);
}

TEST_F(CallJoinerTest, CuptiOnlyDecidedWhenTheThreadsHostCallsMovePast) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 2000));
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 5, 3000, 4000));  // not hooked (static lib)
  EXPECT_TRUE(rec.cupti_only.empty());  // its host call may still be on its way
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 6000, 7000));
  ASSERT_EQ(rec.cupti_only.size(), 1u);  // decided before Finish
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 5u);
}

TEST_F(CallJoinerTest, CuptiOnlyDecidedByLagWithoutAnyHostCall) {
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 5, 3000, 4000));
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 6, 500'000'000, 500'000'100));
  EXPECT_TRUE(rec.cupti_only.empty());
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 7, 1'100'000'000, 1'100'000'100));
  ASSERT_GE(rec.cupti_only.size(), 1u);  // > 1 s of newer event time passed the first
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 5u);
  joiner.Finish();
  EXPECT_EQ(rec.cupti_only.size(), 3u);
}

TEST_F(CallJoinerTest, DriverRecordsInsideACuptiOnlyRuntimeCallAreNotCounted) {
  // cudaMemcpy (runtime, not hooked) calling cuMemcpyDtoH inside; CUPTI writes the inner first.
  joiner.AddApiActivity(Driver(278, 11, 1200, 1800));
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 10, 1000, 2000));
  // A driver call of its own (a library calling the driver directly).
  joiner.AddApiActivity(Driver(kDriverCtxSyncCbid, 12, 3000, 3500));
  joiner.Finish();
  ASSERT_EQ(rec.cupti_only.size(), 2u);
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 10u);
  EXPECT_EQ(rec.cupti_only[1].correlation_id, 12u);
  EXPECT_EQ(joiner.counters().nested_driver, 1u);
}

TEST_F(CallJoinerTest, DriverRecordsInsideAHookedCallAreNotCounted) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(Driver(kDriverLaunchCbid, 2, 1500, 4000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 4900));
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 2u);
}

TEST_F(CallJoinerTest, CuptiOnlyCallGetsSyncAndCopyFlags) {
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyAsyncCbid, 20, 1000, 90'000));
  joiner.AddDeviceOp(Memcpy(20, 2000, 80'000, /*DTOH*/ 2, /*DEVICE*/ 3, /*PAGEABLE*/ 1));
  SyncActivity sync;
  sync.correlation_id = 20;
  sync.start_ns = 1500;
  sync.end_ns = 85'000;
  joiner.AddSyncActivity(sync);
  joiner.Finish();
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_TRUE(rec.last_flags.pageable_copy);
  EXPECT_TRUE(rec.last_flags.d2h_copy);
  EXPECT_TRUE(rec.last_flags.sync_record);
  EXPECT_EQ(rec.last_flags.sync_ns, 83'500);
}

TEST_F(CallJoinerTest, GraphLaunchLatencyOncePerCall) {
  joiner.AddHostCall(Host(Api::kCudaGraphLaunch, 1000, 2000));
  joiner.AddApiActivity(Runtime(311, 30, 1100, 1900));  // cudaGraphLaunch
  joiner.AddDeviceOp(Kernel("a", 30, 5000, 6000));
  joiner.AddDeviceOp(Kernel("b", 30, 6000, 7000));
  joiner.Finish();
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 4000);
}

TEST_F(CallJoinerTest, KernelWithoutLaunchRecordIsCountedUnjoined) {
  joiner.AddDeviceOp(Kernel("k", 99, 5000, 6000));
  joiner.Finish();
  EXPECT_TRUE(rec.latencies.empty());
  EXPECT_EQ(joiner.counters().kernels_unjoined, 1u);
}

TEST_F(CallJoinerTest, HostOnlyRunKeepsNoSpans) {
  joiner.SetCuptiExpected(false);
  for (int i = 0; i < 1000; ++i) joiner.AddHostCall(Host(Api::kCudaMalloc, i * 10, i * 10 + 5));
  EXPECT_EQ(joiner.RetainedItemsForTest(), 0u);
}

TEST_F(CallJoinerTest, FailedLaunchWaitsForNoKernel) {
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  ApiActivity failed = Runtime(kRuntimeLaunchCbid, 3, 1100, 4900);
  failed.result = 1;  // cudaErrorInvalidValue: no kernel will come
  joiner.AddApiActivity(failed);
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  EXPECT_EQ(joiner.RetainedItemsForTest(), 1u);  // only the host span; no launch entry
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 6000, 9000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 4, 6100, 8900));
  EXPECT_EQ(joiner.RetainedItemsForTest(), 3u);  // two spans and the launch waiting for a kernel
}

TEST_F(CallJoinerTest, UnhookedRuntimeCallRightAfterAHookedOneIsItsOwnCall) {
  constexpr uint32_t kGetLastErrorCbid = 10;  // cudaGetLastError: not hooked
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 1000, 5000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 4900));
  // Starts and ends within the launch's slack (a 30 ns call right after it).
  joiner.AddApiActivity(Runtime(kGetLastErrorCbid, 2, 4950, 4980));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 9000, 12000));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_EQ(rec.cupti_only[0].cbid, kGetLastErrorCbid);
}

HostCall CallbackCall(bool driver, uint32_t cbid, uint32_t corr, int64_t enter, int64_t exit) {
  HostCall c = Host(Api::kUnknown, enter, exit);
  c.source = CallSource::kCuptiCallback;
  c.driver = driver;
  c.cbid = cbid;
  c.correlation_id = corr;
  return c;
}

// A hooked launch whose record carries its id (the driver callback inside it gave it:
// with BRRR_LAUNCH_RECORDS=0, CUPTI writes no RUNTIME record for it).
HostCall LaunchWithId(uint32_t id, int64_t enter, int64_t exit,
                      Api api = Api::kCudaLaunchKernelInternal) {
  HostCall c = Host(api, enter, exit);
  c.correlation_id = id;
  return c;
}

TEST_F(CallJoinerTest, ALaunchCarryingItsIdJoinsItsKernelWithNoRuntimeRecord) {
  joiner.AddHostCall(LaunchWithId(7, 1000, 5000));
  joiner.AddDeviceOp(Kernel("k", 7, 8000, 9000));
  joiner.AddDeviceOp(Kernel("stray", 8, 8500, 9500));  // no call carried 8
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().launches_by_id, 1u);
  EXPECT_EQ(joiner.counters().host_calls_unmatched, 0u);  // no record was to come
  EXPECT_EQ(joiner.counters().kernels_unjoined, 1u);
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 8000 - 1000);
}

TEST_F(CallJoinerTest, AKernelBeforeItsIdCarryingLaunchStillJoins) {
  joiner.AddDeviceOp(Kernel("k", 7, 8000, 9000));
  joiner.AddHostCall(LaunchWithId(7, 1000, 5000));
  joiner.Finish();
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 7000);
  EXPECT_EQ(joiner.counters().kernels_unjoined, 0u);
}

TEST_F(CallJoinerTest, ALaunchCarryingItsIdOwnsItsRuntimeAndDriverRecordsIfTheyComeAndWaitsOnce) {
  // CUPTI without cuptiActivityEnableRuntimeApi (or by default: BRRR_LAUNCH_RECORDS=1) still writes
  // the RUNTIME record; CUPTI's own driver calls (cuKernelGetName) may be inside too.
  joiner.AddHostCall(LaunchWithId(7, 1000, 5000));
  joiner.AddDeviceOp(Kernel("k", 7, 8000, 9000));
  joiner.AddApiActivity(Driver(kDriverLaunchCbid, 6, 1200, 1300));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 7, 1100, 4900));
  EXPECT_EQ(joiner.RetainedItemsForTest(), 1u);  // its span; nothing waits for a second kernel
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 2u);
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 7000);
}

TEST_F(CallJoinerTest, AFailedLaunchCarryingAnIdWaitsForNoKernel) {
  HostCall failed = LaunchWithId(7, 1000, 5000);
  failed.result = 1;
  joiner.AddHostCall(failed);
  EXPECT_EQ(joiner.counters().launches_by_id, 0u);
  EXPECT_EQ(joiner.RetainedItemsForTest(), 1u);  // its span only
}

TEST_F(CallJoinerTest, AGraphLaunchCarryingItsIdJoinsAllItsKernelsWithOneLatency) {
  joiner.AddHostCall(LaunchWithId(30, 1000, 2000, Api::kCudaGraphLaunch));
  joiner.AddDeviceOp(Kernel("a", 30, 5000, 6000));
  joiner.AddDeviceOp(Kernel("b", 30, 6000, 7000));
  joiner.Finish();
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 4000);
  EXPECT_EQ(joiner.counters().kernels_unjoined, 0u);
}

TEST_F(CallJoinerTest, RecordsOfCallsBetweenIdCarryingLaunchesFindTheirSpans) {
  // Copies every 1..40 calls, launches carrying their id between: a copy's record is found past
  // launches that took no record, however many.
  // Half the records come right after their call, half in one late buffer.
  std::vector<ApiActivity> late;
  int copies = 0;
  int64_t t = 1000;
  for (int i = 0; i < 400; ++i) {
    const uint32_t id = static_cast<uint32_t>(i + 1);
    if (i % 7 == 0 || i % 11 == 0) {
      joiner.AddHostCall(Host(Api::kCudaMemcpyAsync, t, t + 500));
      const ApiActivity record = Runtime(kRuntimeMemcpyAsyncCbid, id, t + 100, t + 400);
      if (i < 200) {
        joiner.AddApiActivity(record);
      } else {
        late.push_back(record);
      }
      ++copies;
    } else {
      joiner.AddHostCall(LaunchWithId(id, t, t + 500));
    }
    t += 1000;
  }
  for (const ApiActivity& record : late) joiner.AddApiActivity(record);
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, static_cast<uint64_t>(copies));
  EXPECT_EQ(joiner.counters().host_calls_unmatched, 0u);
}

TEST_F(CallJoinerTest, ALaunchCarryingItsIdStillWaitsForARecordDeliveredOutOfOrder) {
  // Launch A, then launch B 200 ms later; CUPTI hands over B's buffer before A's (within the
  // decide lag). A's span must still be there for its record: else A counts twice.
  joiner.AddHostCall(LaunchWithId(1, 1000, 2000));
  joiner.AddHostCall(LaunchWithId(2, 200'000'000, 200'001'000));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 2, 200'000'100, 200'000'900));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1100, 1900));
  joiner.Finish();
  EXPECT_TRUE(rec.cupti_only.empty());
  EXPECT_EQ(joiner.counters().joined_to_host, 2u);
  EXPECT_EQ(joiner.counters().api_records_late, 0u);
}

TEST_F(CallJoinerTest, SpansOfIdCarryingLaunchesOnAThreadWithNoApiRecordsAreNotKept) {
  // 3 s of launches, each carrying its id and followed by its kernel; no API record at all: the
  // spans go once the decide lag (1 s) has passed, without a loss counted.
  constexpr int kLaunches = 3000;
  for (int i = 0; i < kLaunches; ++i) {
    const int64_t t = 1000 + int64_t{i} * 1'000'000;
    joiner.AddHostCall(LaunchWithId(static_cast<uint32_t>(i + 1), t, t + 500));
    joiner.AddDeviceOp(Kernel("k", static_cast<uint32_t>(i + 1), t + 2000, t + 3000));
  }
  EXPECT_LT(joiner.RetainedItemsForTest(), 1300u);  // about 1.05 s of spans, at most 1.2 s
  joiner.Finish();
  EXPECT_EQ(rec.latencies.size(), size_t{kLaunches});
  EXPECT_EQ(joiner.counters().dropped_over_cap, 0u);
  EXPECT_EQ(joiner.counters().host_calls_unmatched, 0u);
}

TEST_F(CallJoinerTest, CallbackSpanOwnsItsRecordAndItsDriverWorkOnly) {
  // A static-cudart cudaMemcpy seen through a callback, with the driver call it made inside.
  joiner.AddHostCall(CallbackCall(false, kRuntimeMemcpyCbid, 5, 1000, 9000));
  joiner.AddApiActivity(Driver(kDriverCtxSyncCbid, 6, 2000, 3000));
  joiner.AddApiActivity(Runtime(kRuntimeMemcpyCbid, 5, 1100, 8900));
  // Another runtime record inside the span but with another correlation id is not its own.
  joiner.AddApiActivity(Runtime(kRuntimeStreamSyncCbid, 7, 4000, 4500));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 20000, 21000));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 2u);  // its record and the nested driver record
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 7u);
}

TEST_F(CallJoinerTest, DriverCallbackSpanJoinsByCorrelationId) {
  joiner.AddHostCall(CallbackCall(true, kDriverLaunchCbid, 9, 1000, 5000));
  joiner.AddApiActivity(Driver(kDriverLaunchCbid, 8, 1200, 1300));  // not its record
  joiner.AddApiActivity(Driver(kDriverLaunchCbid, 9, 1400, 4800));
  joiner.AddDeviceOp(Kernel("k", 9, 7000, 8000));
  joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, 20000, 21000));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 1u);
  ASSERT_EQ(rec.cupti_only.size(), 1u);
  EXPECT_EQ(rec.cupti_only[0].correlation_id, 8u);
  ASSERT_EQ(rec.latencies.size(), 1u);
  EXPECT_EQ(rec.latencies[0], 7000 - 1000);  // from the callback span's enter
}

TEST_F(CallJoinerTest, RecordsDeliveredOutOfOrderStillFindTheirSpans) {
  // Two CUPTI buffers of one thread delivered in the wrong order, 200 ms apart (more than the
  // trim margin): the late, older records must still join their host calls.
  constexpr int64_t kMs = 1'000'000;
  for (int i = 0; i < 4; ++i) {
    const int64_t t0 = (i < 2 ? 0 : 200 * kMs) + i * 10'000;
    joiner.AddHostCall(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 4'000));
  }
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 3, 200 * kMs + 20'100, 200 * kMs + 23'900));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 4, 200 * kMs + 30'100, 200 * kMs + 33'900));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 1, 100, 3'900));
  joiner.AddApiActivity(Runtime(kRuntimeLaunchCbid, 2, 10'100, 13'900));
  joiner.Finish();
  EXPECT_EQ(joiner.counters().joined_to_host, 4u);
  EXPECT_TRUE(rec.cupti_only.empty());
}

}  // namespace
}  // namespace brrr
