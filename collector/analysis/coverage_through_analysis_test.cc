// Tests the report's coverage through the whole analysis: which mechanism each call is counted
// under (hooks, the shim's CUPTI callbacks, CUPTI records only), that a call seen twice counts
// once, how calls named only by a CUPTI callback id get their API row and stall reason, and the
// gaps of host-only and lossy runs.
#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// A call the shim recorded from a CUPTI API callback, named only by (driver, cbid).
HostCall Callback(bool driver, uint32_t cbid, uint32_t corr, int64_t enter, int64_t exit,
                  uint32_t stack_id = 0) {
  HostCall c = Host(Api::kUnknown, enter, exit, stack_id);
  c.source = CallSource::kCuptiCallback;
  c.driver = driver;
  c.cbid = cbid;
  c.correlation_id = corr;
  return c;
}

const ApiStat* FindApi(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const CallsWithoutStack* FindWithoutStack(const Coverage& c, const std::string& name) {
  for (const CallsWithoutStack& row : c.without_stack) {
    if (row.api == name) return &row;
  }
  return nullptr;
}

uint64_t SumOfApiCalls(const Report& r) {
  uint64_t sum = 0;
  for (const ApiStat& a : r.api) sum += a.calls;
  return sum;
}

TEST(CoverageThroughAnalysisTest, HookedCallsJoinedToTheirRecordsAreCompleteWithStacks) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  constexpr int kCalls = 50;
  for (int i = 0; i < kCalls; ++i) {
    const int64_t t = 1'000 + i * 10'000;
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t, t + 4'000, /*stack_id=*/7));
    a.OnApiActivity(Runtime(kRuntimeLaunchCbid, i + 1, t + 100, t + 3'900));
  }
  const Report r = a.Finish(nullptr);
  ASSERT_TRUE(r.coverage.has_value());
  const Coverage& c = *r.coverage;
  EXPECT_EQ(c.hooked_calls, uint64_t{kCalls});
  EXPECT_EQ(c.callback_calls, 0u);
  EXPECT_EQ(c.cupti_only_calls, 0u);
  EXPECT_EQ(c.calls_without_stack, 0u);
  EXPECT_THAT(c.without_stack, IsEmpty());
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(c.gaps, IsEmpty());
  EXPECT_EQ(SumOfApiCalls(r), uint64_t{kCalls});
}

TEST(CoverageThroughAnalysisTest, CuptiOnlyCallsAreCountedOnceAndListedWithoutStack) {
  // A static-cudart program: only CUPTI sees its calls.
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  for (int i = 0; i < 4; ++i) {
    const int64_t t = 1'000 + i * 20'000;
    a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 2 * i + 1, t, t + 3'000));
    a.OnApiActivity(Runtime(kRuntimeStreamSyncCbid, 2 * i + 2, t + 4'000, t + 5'000));
  }
  const Report r = a.Finish(nullptr);
  ASSERT_TRUE(r.coverage.has_value());
  const Coverage& c = *r.coverage;
  EXPECT_EQ(c.hooked_calls, 0u);
  EXPECT_EQ(c.cupti_only_calls, 8u);
  EXPECT_EQ(c.calls_without_stack, 8u);
  const CallsWithoutStack* sync = FindWithoutStack(c, "cudaStreamSynchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->calls, 4u);
  const CallsWithoutStack* launch = FindWithoutStack(c, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->calls, 4u);
  EXPECT_TRUE(c.complete) << c.gaps.size();
  EXPECT_EQ(SumOfApiCalls(r), 8u);
}

TEST(CoverageThroughAnalysisTest, CallbackCallNamedByCbidSharesTheRowAndCountsOnce) {
  // A driver-API library: the shim recorded cuLaunchKernel from its callback (with a stack for
  // the first call only), and CUPTI's DRIVER record of each call arrives too.
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  constexpr int kCalls = 6;
  for (int i = 0; i < kCalls; ++i) {
    const int64_t t = 1'000 + i * 10'000;
    a.OnHostCall(Callback(/*driver=*/true, kDriverLaunchCbid, i + 1, t, t + 3'000,
                          /*stack_id=*/i == 0 ? 9 : 0));
    a.OnApiActivity(Driver(kDriverLaunchCbid, i + 1, t + 100, t + 2'900));
  }
  const Report r = a.Finish(nullptr);
  const ApiStat* launch = FindApi(r, "cuLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->calls, uint64_t{kCalls});
  EXPECT_EQ(launch->category, "launch");
  EXPECT_EQ(SumOfApiCalls(r), uint64_t{kCalls});
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_EQ(r.coverage->callback_calls, uint64_t{kCalls});
  EXPECT_EQ(r.coverage->hooked_calls, 0u);
  EXPECT_EQ(r.coverage->cupti_only_calls, 0u);
  const CallsWithoutStack* no_stack = FindWithoutStack(*r.coverage, "cuLaunchKernel");
  ASSERT_NE(no_stack, nullptr);
  EXPECT_EQ(no_stack->calls, uint64_t{kCalls - 1});
}

TEST(CoverageThroughAnalysisTest, CallbackCallsThatBlockedAreStallsWithTheirStack) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 10'000'000));
  // cuCtxSynchronize (driver) blocked 1 ms; a static-cudart cudaStreamSynchronize blocked 2 ms,
  // named by its runtime cbid only.
  a.OnHostCall(Callback(/*driver=*/true, kDriverCtxSyncCbid, 1, 100'000, 1'100'000, 4));
  a.OnApiActivity(Driver(kDriverCtxSyncCbid, 1, 100'100, 1'099'900));
  a.OnHostCall(Callback(/*driver=*/false, kRuntimeStreamSyncCbid, 2, 2'000'000, 4'000'000, 5));
  a.OnApiActivity(Runtime(kRuntimeStreamSyncCbid, 2, 2'000'100, 3'999'900));
  const Report r = a.Finish([](uint32_t id) {
    return std::vector<std::string>{"planted" + std::to_string(id) + " (app)"};
  });
  ASSERT_THAT(r.stalls, SizeIs(2));
  EXPECT_EQ(r.stalls[0].api, "cudaStreamSynchronize");  // the hooked Api's own row
  EXPECT_EQ(r.stalls[0].reason, "stream_sync");
  EXPECT_EQ(r.stalls[0].total_ns, 2'000'000);
  EXPECT_THAT(r.stalls[0].stack, ::testing::ElementsAre("planted5 (app)"));
  EXPECT_EQ(r.stalls[1].api, "cuCtxSynchronize");
  EXPECT_EQ(r.stalls[1].reason, "device_sync");
  EXPECT_THAT(r.stalls[1].stack, ::testing::ElementsAre("planted4 (app)"));
  EXPECT_EQ(SumOfApiCalls(r), 2u);
  EXPECT_EQ(r.coverage->callback_calls, 2u);
  EXPECT_EQ(r.coverage->calls_without_stack, 0u);
}

TEST(CoverageThroughAnalysisTest, CallbackCallWithItsApiSetUsesThatApi) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  HostCall c = Callback(/*driver=*/false, kRuntimeMemcpyCbid, 1, 1'000, 101'000, 3);
  c.api = Api::kCudaMemcpy;
  c.copy_kind = CopyKind::kDtoH;
  a.OnHostCall(c);
  a.OnApiActivity(Runtime(kRuntimeMemcpyCbid, 1, 1'100, 100'900));
  const Report r = a.Finish(nullptr);
  const ApiStat* copy = FindApi(r, "cudaMemcpy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->calls, 1u);
  ASSERT_THAT(r.stalls, SizeIs(1));
  EXPECT_EQ(r.stalls[0].reason, "d2h_copy");
  EXPECT_EQ(r.coverage->callback_calls, 1u);
}

TEST(CoverageThroughAnalysisTest, HostOnlyRunIsIncomplete) {
  Analysis a;
  RunInfo info = MakeRun(0, 1'000'000, /*host_only=*/true);
  info.host_only_reason = "CUPTI is in use by another tool (one subscriber per process)";
  a.SetRunInfo(info);
  a.OnHostCall(Host(Api::kCudaMemcpy, 1'000, 2'000, 1));
  const Report r = a.Finish(nullptr);
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_EQ(r.coverage->hooked_calls, 1u);
  EXPECT_FALSE(r.coverage->complete);
  ASSERT_THAT(r.coverage->gaps, SizeIs(1));
  EXPECT_THAT(r.coverage->gaps[0],
              AllOf(HasSubstr("host-only"), HasSubstr("another tool"), HasSubstr("static")));
}

TEST(CoverageThroughAnalysisTest, DroppedRecordsAndAKilledAppAreGaps) {
  Analysis a;
  RunInfo info = MakeRun(0, 1'000'000);
  info.host_dropped = 5;
  info.device_dropped = 6;
  info.term_signal = 9;
  a.SetRunInfo(info);
  a.OnHostCall(Host(Api::kCudaMemcpy, 1'000, 2'000, 1));
  a.OnApiActivity(Runtime(kRuntimeMemcpyCbid, 1, 1'100, 1'900));
  a.OnHostCall(Host(Api::kCudaMemcpy, 3'000, INT64_MAX, 1));  // impossible time: ignored
  const Report r = a.Finish(nullptr);
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_FALSE(r.coverage->complete);
  EXPECT_THAT(r.coverage->gaps,
              ::testing::ElementsAre(
                  HasSubstr("5 host calls dropped"), HasSubstr("6 device records dropped"),
                  HasSubstr("1 events with impossible timestamps"), HasSubstr("signal 9")));
}

// Two launches: the first kernel has its times, the second came back from a forced flush without
// them (DeviceOp.untimed). The second is in no figure (kernel table, device time, latency) and the
// coverage counts it and says so.
TEST(CoverageThroughAnalysisTest, DeviceWorkWithoutTimestampsIsInNoFigureAndIsAGap) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, 1'000, 5'000, 1));
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 1, 1'100, 4'900));
  a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, 6'000, 10'000, 1));
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 2, 6'100, 9'900));
  a.OnDeviceOp(Kernel("k", 1, 20'000, 30'000));
  DeviceOp untimed = Kernel("k", 2, 0, 0);
  untimed.untimed = true;
  a.OnDeviceOp(untimed);
  const Report r = a.Finish(nullptr);
  EXPECT_EQ(r.kernels.launches, 1u);
  EXPECT_EQ(r.kernels.launch_calls, 2u);
  EXPECT_EQ(r.kernels.device_ns, 10'000);
  EXPECT_EQ(r.launch_latency_ns.count, 1u);
  EXPECT_EQ(r.launch_latency_ns.p50, 19'000);
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_EQ(r.coverage->untimed_device_ops, 1u);
  EXPECT_FALSE(r.coverage->complete);
  EXPECT_THAT(r.coverage->gaps,
              ::testing::ElementsAre(AllOf(HasSubstr("1 kernels, copies or memsets came from CUPTI "
                                                     "without timestamps"),
                                           HasSubstr("device time is unknown"))));
  EXPECT_EQ(a.counters().invalid_times, 0u);
  EXPECT_EQ(a.counters().untimed_device_ops, 1u);
}

TEST(CoverageThroughAnalysisTest, StacksOffListsEveryHookedCall) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  for (int i = 0; i < 3; ++i) {
    a.OnHostCall(Host(Api::kCudaMalloc, 1'000 + i * 10'000, 2'000 + i * 10'000));
    a.OnApiActivity(Runtime(/*cudaMalloc*/ 20, i + 1, 1'100 + i * 10'000, 1'900 + i * 10'000));
  }
  const Report r = a.Finish(nullptr);
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_EQ(r.coverage->hooked_calls, 3u);
  EXPECT_EQ(r.coverage->calls_without_stack, 3u);
  ASSERT_THAT(r.coverage->without_stack, SizeIs(1));
  EXPECT_EQ(r.coverage->without_stack[0].api, "cudaMalloc");
  EXPECT_TRUE(r.coverage->complete);
}

}  // namespace
}  // namespace brrr
