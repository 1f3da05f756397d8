// End-to-end tests of the analysis on hand-built event sequences that model the regimes: a
// launch-bound loop, a device-bound run, a D2H-copy-per-iteration loop (sync-bound), an
// input-bound loop, and the hidden synchronizations (pageable async copy, cudaFree, polling).
// Every expected number is computed from the constructed timeline in the comments.
#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

const ApiStat* FindApi(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

int64_t Sum(const DeviceBreakdown& d) {
  return d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns +
         d.startup_ns + d.teardown_ns;
}

std::vector<std::string> FakeSymbolize(uint32_t id) {
  return {"frame" + std::to_string(id) + " (app)", "main (app)"};
}

// Host calls arrive first (drained from the rings), CUPTI's records later in one batch.
struct Timeline {
  std::vector<HostCall> host;
  std::vector<ApiActivity> api;
  std::vector<DeviceOp> ops;
  void FeedTo(Analysis& a) const {
    for (const HostCall& c : host) a.OnHostCall(c);
    for (const ApiActivity& r : api) a.OnApiActivity(r);
    for (const DeviceOp& op : ops) a.OnDeviceOp(op);
  }
};

TEST(AnalysisScenarioTest, LaunchBoundLoop) {
  // 100 iterations of 10 us: an 8 us launch call, its 1 us kernel starting 9 us after entry.
  constexpr int kIters = 100;
  Timeline t;
  for (int i = 0; i < kIters; ++i) {
    const int64_t t0 = i * 10'000;
    const auto corr = static_cast<uint32_t>(i + 1);
    t.host.push_back(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 8'000, /*stack_id=*/3));
    t.api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 100, t0 + 7'900));
    t.ops.push_back(Kernel("_Z6squarePfi", corr, t0 + 9'000, t0 + 10'000));
  }
  Analysis a;
  a.SetRunInfo(MakeRun(0, kIters * 10'000));
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);

  EXPECT_EQ(r.wall_ns, 1'000'000);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, 100'000);
  // The first launch call is start-up: CUDA creates its context in the process's first call.
  EXPECT_EQ(r.devices[0].startup_ns, 8'000);
  EXPECT_EQ(r.devices[0].idle.launch_bound_ns, 892'000);
  EXPECT_EQ(r.devices[0].idle.sync_drain_ns, 0);
  EXPECT_EQ(r.devices[0].idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(Sum(r.devices[0]), r.devices[0].wall_ns);

  ASSERT_EQ(r.api.size(), 1u);  // host + CUPTI record of each call counted once
  EXPECT_EQ(r.api[0].name, "__cudaLaunchKernel");
  EXPECT_EQ(r.api[0].category, "launch");
  EXPECT_EQ(r.api[0].calls, 100u);
  EXPECT_EQ(r.api[0].total_ns, 800'000);
  EXPECT_EQ(r.api[0].p50_ns, 8'000);
  EXPECT_EQ(r.api[0].p99_ns, 8'000);

  EXPECT_EQ(r.kernels.launches, 100u);
  EXPECT_EQ(r.kernels.device_ns, 100'000);
  ASSERT_EQ(r.kernels.top.size(), 1u);
  EXPECT_EQ(r.kernels.top[0].name, "square(float*, int)");
  EXPECT_EQ(r.kernels.top[0].mean_ns, 1'000);

  EXPECT_EQ(r.launch_latency_ns.count, 100u);
  EXPECT_EQ(r.launch_latency_ns.p50, 9'000);
  EXPECT_EQ(r.launch_latency_ns.p99, 9'000);
  EXPECT_EQ(r.launch_latency_ns.max, 9'000);

  EXPECT_TRUE(r.stalls.empty());
  EXPECT_EQ(r.verdict.regime, "launch-bound");
  EXPECT_NE(r.verdict.why.find("device busy 10.1%"), std::string::npos) << r.verdict.why;
  EXPECT_NE(r.verdict.why.find("median kernel 1.00 us vs median launch call 8.00 us"),
            std::string::npos)
      << r.verdict.why;
  EXPECT_EQ(r.events.recorded, 300u);  // no RunInfo counts: the events the analysis saw
}

TEST(AnalysisScenarioTest, DeviceBoundFewLongKernels) {
  // Five 5 us launches, then cudaDeviceSynchronize while five 190 us kernels run back to back
  // from 10 us to 960 us; the run ends at 1 ms.
  Timeline t;
  for (int i = 0; i < 5; ++i) {
    const auto corr = static_cast<uint32_t>(i + 1);
    t.host.push_back(Host(Api::kCudaLaunchKernelInternal, i * 5'000, i * 5'000 + 5'000));
    t.api.push_back(Runtime(kRuntimeLaunchCbid, corr, i * 5'000 + 10, i * 5'000 + 4'990));
    t.ops.push_back(Kernel("_Z4gemmv", corr, 10'000 + i * 190'000, 200'000 + i * 190'000));
  }
  t.host.push_back(Host(Api::kCudaDeviceSynchronize, 25'000, 960'000, /*stack_id=*/9));
  Analysis a;
  a.SetRunInfo(MakeRun(0, 1'000'000));
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, 950'000);
  EXPECT_EQ(r.devices[0].idle.launch_bound_ns, 5'000);  // [5, 10 us): launching
  // After the sync returns at 960 us nothing more happens: [960, 1000) is teardown, not drain.
  EXPECT_EQ(r.devices[0].idle.sync_drain_ns, 0);
  EXPECT_EQ(r.devices[0].idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(r.devices[0].startup_ns, 5'000);  // the first launch call, where CUDA initializes
  EXPECT_EQ(r.devices[0].teardown_ns, 40'000);
  EXPECT_EQ(Sum(r.devices[0]), 1'000'000);
  EXPECT_EQ(r.verdict.regime, "device-bound");
  // Busy 950 of the 955 us steady state.
  EXPECT_NE(r.verdict.why.find("99.5% of the steady state"), std::string::npos) << r.verdict.why;
  ASSERT_EQ(r.stalls.size(), 1u);
  EXPECT_EQ(r.stalls[0].api, "cudaDeviceSynchronize");
  EXPECT_EQ(r.stalls[0].reason, "device_sync");
  EXPECT_EQ(r.stalls[0].calls, 1u);
  EXPECT_EQ(r.stalls[0].total_ns, 935'000);
  EXPECT_EQ(r.stalls[0].stack, FakeSymbolize(9));
  // Latency: kernel i starts at 10 + 190 i us, its launch entered at 5 i us.
  EXPECT_EQ(r.launch_latency_ns.count, 5u);
  EXPECT_EQ(r.launch_latency_ns.max, 770'000 - 20'000);
}

TEST(AnalysisScenarioTest, D2hCopyPerIterationIsSyncBound) {
  // Each 100 us iteration: launch [0,5), kernel [6,16), cudaMemcpy D2H [5,40) on the host with
  // the copy on the device at [16,36), then 60 us of host time before the next launch.
  constexpr int kIters = 50;
  constexpr uint32_t kCopyStack = 42;
  Timeline t;
  for (int i = 0; i < kIters; ++i) {
    const int64_t t0 = i * 100'000;
    const auto corr = static_cast<uint32_t>(2 * i + 1);
    t.host.push_back(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 5'000, 7));
    t.host.push_back(Copy(Api::kCudaMemcpy, t0 + 5'000, t0 + 40'000, CopyKind::kDtoH,
                          HostMemory::kPageable, kCopyStack));
    t.api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 100, t0 + 4'900));
    t.api.push_back(Runtime(kRuntimeMemcpyCbid, corr + 1, t0 + 5'100, t0 + 39'900));
    t.ops.push_back(Kernel("_Z4stepv", corr, t0 + 6'000, t0 + 16'000));
    t.ops.push_back(Memcpy(corr + 1, t0 + 16'000, t0 + 36'000, 2, 3, 1));
  }
  Analysis a;
  a.SetRunInfo(MakeRun(0, kIters * 100'000));
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceBreakdown& d = r.devices[0];
  EXPECT_EQ(d.busy_ns, kIters * 30'000);
  // The very first 5 us, the first launch call, are start-up (CUDA initializes in the process's
  // first call); nothing is launch-bound after it (a sync has happened). Each iteration idles
  // 70 us as drain: [36,40) inside the copy call, [40,100) refilling after it, and (after the
  // first) the next [0,6) before its kernel; the first iteration's [5,6) is inside the copy call.
  // The last iteration's [40,100) follows the last CUDA work: teardown.
  EXPECT_EQ(d.idle.launch_bound_ns, 0);
  EXPECT_EQ(d.idle.sync_drain_ns, kIters * 70'000 - 5'000 - 60'000);
  EXPECT_EQ(d.idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(d.startup_ns, 5'000);
  EXPECT_EQ(d.teardown_ns, 60'000);
  EXPECT_EQ(Sum(d), 5'000'000);
  ASSERT_EQ(r.stalls.size(), 1u);
  EXPECT_EQ(r.stalls[0].api, "cudaMemcpy");
  EXPECT_EQ(r.stalls[0].reason, "d2h_copy");
  EXPECT_EQ(r.stalls[0].calls, 50u);
  EXPECT_EQ(r.stalls[0].total_ns, 50 * 35'000);
  EXPECT_EQ(r.stalls[0].stack, FakeSymbolize(kCopyStack));
  EXPECT_EQ(r.verdict.regime, "sync-bound");
  EXPECT_NE(r.verdict.why.find("cudaMemcpy (d2h_copy), 50 calls, 1.75 ms"), std::string::npos)
      << r.verdict.why;
  const ApiStat* memcpy = FindApi(r, "cudaMemcpy");
  ASSERT_NE(memcpy, nullptr);
  EXPECT_EQ(memcpy->calls, 50u);
  EXPECT_EQ(memcpy->category, "copy");
  EXPECT_EQ(r.api[0].name, "cudaMemcpy");  // sorted by total time: 1.75 ms vs 0.25 ms
}

// Each 1 ms iteration: launch [0,5 us), kernel [6,56 us), then the host is outside CUDA (after
// brrr's `capture_ns` of stack capture following the launch call, if any).
Timeline InputBoundLoop(int iterations, int64_t capture_ns) {
  Timeline t;
  for (int i = 0; i < iterations; ++i) {
    const int64_t t0 = i * 1'000'000;
    const auto corr = static_cast<uint32_t>(i + 1);
    HostCall launch = Host(Api::kCudaLaunchKernelInternal, t0, t0 + 5'000);
    launch.capture_ns = capture_ns;
    t.host.push_back(launch);
    t.api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 100, t0 + 4'900));
    t.ops.push_back(Kernel("_Z4loadv", corr, t0 + 6'000, t0 + 56'000));
  }
  return t;
}

TEST(AnalysisScenarioTest, LongHostGapsAreInputBound) {
  constexpr int kIters = 20;
  const Timeline t = InputBoundLoop(kIters, 0);
  Analysis a;  // host_gap_ns = 100 us
  a.SetRunInfo(MakeRun(0, kIters * 1'000'000));
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceBreakdown& d = r.devices[0];
  EXPECT_EQ(d.busy_ns, kIters * 50'000);
  // [0,6) and [56,105) launching, [105,1000) outside CUDA; but the first launch call [0,5) is
  // start-up, and after the last kernel ends at 19.056 ms the rest of the run is teardown.
  EXPECT_EQ(d.startup_ns, 5'000);
  EXPECT_EQ(d.idle.launch_bound_ns, kIters * (6'000 + 49'000) - 49'000 - 5'000);
  EXPECT_EQ(d.idle.host_outside_cuda_ns, (kIters - 1) * 895'000);
  EXPECT_EQ(d.idle.sync_drain_ns, 0);
  EXPECT_EQ(d.teardown_ns, 944'000);
  EXPECT_EQ(Sum(d), kIters * 1'000'000);
  EXPECT_EQ(r.verdict.regime, "input-bound");
  // 17.005 ms of the 19.051 ms steady state.
  EXPECT_NE(r.verdict.why.find("89.3% idle while the host was outside CUDA"), std::string::npos)
      << r.verdict.why;
}

// The loop above with brrr's stack capture after each launch call (600 us, as the shim timed it):
// that time is brrr's, not the app's outside CUDA. Each call's host time runs to 605 us, the
// 100 us host gap to 705 us; only [705, 1000) of each iteration is outside CUDA. The overhead
// counts the captures with the record path (20 calls x 20 ns).
TEST(AnalysisScenarioTest, BrrrsStackCaptureAfterACallIsNotTheAppsTimeOutsideCuda) {
  constexpr int kIters = 20;
  const Timeline t = InputBoundLoop(kIters, 600'000);
  Analysis a;  // host_gap_ns = 100 us
  RunInfo info = MakeRun(0, kIters * 1'000'000);
  info.hook_record_ns = 20;
  a.SetRunInfo(info);
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceBreakdown& d = r.devices[0];
  EXPECT_EQ(d.busy_ns, kIters * 50'000);
  EXPECT_EQ(d.idle.host_outside_cuda_ns, (kIters - 1) * 295'000);
  EXPECT_EQ(Sum(d), kIters * 1'000'000);
  EXPECT_NE(r.verdict.regime, "input-bound") << r.verdict.why;
  ASSERT_TRUE(r.overhead.has_value());
  EXPECT_EQ(r.overhead->hooks_ns, kIters * 20 + kIters * 600'000);
  EXPECT_NE(r.overhead->basis.find("plus 12.0 ms of stack captures (20 of stalls, sampled "
                                   "launches and CUPTI-callback calls)"),
            std::string::npos)
      << r.overhead->basis;
  // The calls' own durations are unchanged.
  EXPECT_EQ(a.counters().timed_captures, static_cast<uint64_t>(kIters));
  const ApiStat* launch = FindApi(r, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->total_ns, kIters * 5'000);
}

TEST(AnalysisScenarioTest, HiddenSynchronizations) {
  Timeline t;
  // A pageable "async" copy that blocked 50 us.
  t.host.push_back(
      Copy(Api::kCudaMemcpyAsync, 0, 50'000, CopyKind::kHtoD, HostMemory::kPageable, 11));
  // A pinned async copy that returned at once: no stall.
  t.host.push_back(
      Copy(Api::kCudaMemcpyAsync, 60'000, 62'000, CopyKind::kHtoD, HostMemory::kPinned, 12));
  // cudaFree of a buffer waiting 80 us for the device, twice from one site.
  for (int64_t enter : {100'000, 190'000}) {
    HostCall free_call = Host(Api::kCudaFree, enter, enter + 80'000, 13);
    free_call.target = 0x7f0000001000;  // a free of NULL would wait for nothing
    t.host.push_back(free_call);
  }
  // Polling: five NotReady answers 10 us apart, then success: one 51 us stall.
  for (int k = 0; k < 5; ++k) {
    HostCall q = Host(Api::kCudaEventQuery, 300'000 + k * 10'000, 301'000 + k * 10'000, 14);
    q.result = 600;
    t.host.push_back(q);
  }
  t.host.push_back(Host(Api::kCudaEventQuery, 350'000, 351'000, 14));
  // A short cudaStreamSynchronize (the device was idle): below the threshold, not a stall.
  t.host.push_back(Host(Api::kCudaStreamSynchronize, 400'000, 405'000, 15));
  Analysis a;
  a.SetRunInfo(MakeRun(0, 500'000, /*host_only=*/true));
  t.FeedTo(a);
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.stalls.size(), 3u);
  EXPECT_EQ(r.stalls[0].api, "cudaFree");
  EXPECT_EQ(r.stalls[0].reason, "free_syncs_device");
  EXPECT_EQ(r.stalls[0].calls, 2u);
  EXPECT_EQ(r.stalls[0].total_ns, 160'000);
  EXPECT_EQ(r.stalls[0].stack, FakeSymbolize(13));
  EXPECT_EQ(r.stalls[1].api, "cudaEventQuery");
  EXPECT_EQ(r.stalls[1].reason, "query_poll");
  EXPECT_EQ(r.stalls[1].calls, 1u);
  EXPECT_EQ(r.stalls[1].total_ns, 51'000);
  EXPECT_EQ(r.stalls[1].stack, FakeSymbolize(14));
  EXPECT_EQ(r.stalls[2].api, "cudaMemcpyAsync");
  EXPECT_EQ(r.stalls[2].reason, "pageable_async_copy");
  EXPECT_EQ(r.stalls[2].calls, 1u);
  EXPECT_EQ(r.stalls[2].total_ns, 50'000);
  EXPECT_EQ(r.stalls[2].stack, FakeSymbolize(11));
  const ApiStat* query = FindApi(r, "cudaEventQuery");
  ASSERT_NE(query, nullptr);
  EXPECT_EQ(query->calls, 6u);
  EXPECT_EQ(query->category, "query");
  // Host-only: no devices; the verdict is inferred. Host time in stalls: 50+160+51 = 261 us;
  // in or near other calls: [50,100) [180,190) [270,300) [351,500) = 239 us; outside: none (no
  // gap reaches 100 us). Stalls are the largest part.
  EXPECT_TRUE(r.devices.empty());
  EXPECT_TRUE(r.host_only);
  EXPECT_EQ(r.verdict.regime, "sync-bound");
  EXPECT_NE(r.verdict.why.find("inferred from host timing only"), std::string::npos);
}

// The top stall rows are cut at top_stalls; stall_reasons counts every stall by reason.
TEST(AnalysisScenarioTest, StallReasonsCountStallsPastTheTopRows) {
  Analysis::Options options;
  options.top_stalls = 1;
  Analysis a(options);
  a.SetRunInfo(MakeRun(0, 10'000'000));
  a.OnHostCall(Host(Api::kCudaDeviceSynchronize, 100'000, 900'000, /*stack_id=*/1));
  a.OnHostCall(Host(Api::kCudaDeviceSynchronize, 1'000'000, 1'300'000, /*stack_id=*/2));
  a.OnHostCall(Host(Api::kCudaStreamSynchronize, 2'000'000, 2'100'000, /*stack_id=*/3));
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.stalls.size(), 1u);
  ASSERT_EQ(r.stall_reasons.size(), 2u);
  EXPECT_EQ(r.stall_reasons[0].reason, "device_sync");
  EXPECT_EQ(r.stall_reasons[0].calls, 2u);
  EXPECT_EQ(r.stall_reasons[0].total_ns, 800'000 + 300'000);
  EXPECT_EQ(r.stall_reasons[1].reason, "stream_sync");
  EXPECT_EQ(r.stall_reasons[1].calls, 1u);
}

TEST(AnalysisScenarioTest, CuptiOnlyPageableCopyStallHasNoStack) {
  // A static-cudart app: CUPTI sees a cudaMemcpyAsync from pageable memory that blocked 40 us.
  Analysis a;
  a.SetRunInfo(MakeRun(0, 100'000));
  a.OnApiActivity(Runtime(kRuntimeMemcpyAsyncCbid, 5, 10'000, 50'000));
  a.OnDeviceOp(Memcpy(5, 20'000, 45'000, /*HTOD*/ 1, /*PAGEABLE*/ 1, /*DEVICE*/ 3));
  const Report r = a.Finish(FakeSymbolize);
  ASSERT_EQ(r.stalls.size(), 1u);
  EXPECT_EQ(r.stalls[0].api, "cudaMemcpyAsync");
  EXPECT_EQ(r.stalls[0].reason, "pageable_async_copy");
  EXPECT_EQ(r.stalls[0].total_ns, 40'000);
  EXPECT_TRUE(r.stalls[0].stack.empty());
  const ApiStat* copy = FindApi(r, "cudaMemcpyAsync");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->calls, 1u);
  EXPECT_EQ(a.counters().join.cupti_only, 1u);
}

TEST(AnalysisScenarioTest, GarbageTimesAreDroppedNotTrusted) {
  Analysis a;
  a.SetRunInfo(MakeRun(0, 100'000));
  a.OnHostCall(Host(Api::kCudaMemcpy, 10, INT64_MAX));
  a.OnHostCall(Host(static_cast<Api>(9999), -5, 10));
  a.OnDeviceOp(Kernel("k", 1, INT64_MIN, 5));
  a.OnApiActivity(Runtime(kRuntimeLaunchCbid, 1, INT64_MAX - 1, INT64_MAX));
  a.OnHostCall(Host(static_cast<Api>(9999), 1'000, 2'000));  // unknown API: counted as such
  const Report r = a.Finish(nullptr);
  EXPECT_EQ(a.counters().invalid_times, 4u);
  ASSERT_EQ(r.api.size(), 1u);
  EXPECT_EQ(r.api[0].name, "unknown");
  EXPECT_EQ(r.api[0].calls, 1u);
  EXPECT_EQ(r.kernels.launches, 0u);
}

TEST(AnalysisScenarioTest, RunInfoCountsAndHostOnlyReasonReachTheReport) {
  Analysis a;
  RunInfo info = MakeRun(100, 200, true);
  info.host_only_reason = "CUPTI is busy (another profiler)";
  info.host_records = 10;
  info.host_dropped = 2;
  info.device_dropped = 3;
  info.exit_code = 137;
  a.SetRunInfo(info);
  const Report r = a.Finish(nullptr);
  EXPECT_EQ(r.command, "./app");
  EXPECT_EQ(r.wall_ns, 100);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_EQ(r.host_only_reason, "CUPTI is busy (another profiler)");
  EXPECT_EQ(r.events.recorded, 10u);
  EXPECT_EQ(r.events.dropped, 5u);
  EXPECT_EQ(r.schema, "brrr.report/1");
}

}  // namespace
}  // namespace brrr
