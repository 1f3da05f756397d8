// Tests that the analysis' memory does not grow with the run's length: 10 million events of a
// repetitive loop (host call, runtime record, kernel per launch; CUPTI records delivered in
// batches, late), with the retained items checked all along, and the totals still exact.
#include <algorithm>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

struct LoopResult {
  size_t max_retained_first_half = 0;
  size_t max_retained_second_half = 0;
  Report report;
  Analysis::Counters counters;
};

// `iterations` launches of a 2 us kernel every 10 us; CUPTI records and kernels arrive in
// batches of `batch` iterations (batch * 10 us late); every 50th iteration also syncs.
LoopResult RunLoop(const AnalysisOptions& options, int64_t iterations, int batch) {
  Analysis a(options);
  a.SetRunInfo(MakeRun(0, iterations * 10'000));
  std::vector<ApiActivity> api;
  std::vector<DeviceOp> ops;
  api.reserve(static_cast<size_t>(batch) * 2);
  ops.reserve(static_cast<size_t>(batch));
  LoopResult out;
  uint32_t corr = 0;
  DeviceOp kernel = Kernel("_Z4stepPfS_i", 0, 0, 0);
  for (int64_t i = 0; i < iterations; ++i) {
    const int64_t t0 = i * 10'000;
    ++corr;
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 3'000, 1));
    api.push_back(Runtime(kRuntimeLaunchCbid, corr, t0 + 20, t0 + 2'980));
    kernel.correlation_id = corr;
    kernel.start_ns = t0 + 4'000;
    kernel.end_ns = t0 + 6'000;
    ops.push_back(kernel);
    if (i % 50 == 49) {  // a stream sync that waits 3 us (below the stall threshold)
      ++corr;
      a.OnHostCall(Host(Api::kCudaStreamSynchronize, t0 + 3'000, t0 + 6'000, 2));
      api.push_back(Runtime(kRuntimeStreamSyncCbid, corr, t0 + 3'020, t0 + 5'980));
    }
    if (static_cast<int>(ops.size()) == batch) {
      for (const ApiActivity& r : api) a.OnApiActivity(r);
      for (const DeviceOp& op : ops) a.OnDeviceOp(op);
      api.clear();
      ops.clear();
      size_t& max = i < iterations / 2 ? out.max_retained_first_half : out.max_retained_second_half;
      max = std::max(max, a.RetainedItemsForTest());
    }
  }
  for (const ApiActivity& r : api) a.OnApiActivity(r);
  for (const DeviceOp& op : ops) a.OnDeviceOp(op);
  out.report = a.Finish(nullptr);
  out.counters = a.counters();
  return out;
}

TEST(AnalysisMemoryTest, TenMillionEventsKeepBoundedState) {
  // 3.3 M iterations x (host + runtime record + kernel) + syncs (host + record) = 10.032 M events.
  constexpr int64_t kIters = 3'300'000;
  constexpr int kBatch = 1000;  // CUPTI 10 ms late
  AnalysisOptions options;
  options.reorder_window_ns = 50'000'000;  // 50 ms: the breakdown keeps ~5-8k iterations
  const LoopResult r = RunLoop(options, kIters, kBatch);
  const uint64_t events = r.counters.host_calls + r.counters.api_records + r.counters.device_ops;
  EXPECT_EQ(events, kIters * 3 + (kIters / 50) * 2);
  EXPECT_GE(events, 10'000'000u);
  // Bound from the windows: breakdown <= (1.5 x 50 ms + 10 ms lag) / 10 us x (span + op + sync)
  // ~ 17.4k; joiner host spans <= 50 ms trim margin / 10 us + one batch ~ 6.1k; in-flight
  // launches/kernels <= one batch. 40k is generous and far below 10 M.
  EXPECT_LE(r.max_retained_first_half, 40'000u);
  EXPECT_LE(r.max_retained_second_half, 40'000u);
  // Not growing: the second half of the run holds no more than the first (+1 batch of slack).
  EXPECT_LE(r.max_retained_second_half, r.max_retained_first_half + 3 * kBatch);

  // Totals are still exact.
  EXPECT_EQ(r.report.kernels.launches, static_cast<uint64_t>(kIters));
  EXPECT_EQ(r.report.kernels.device_ns, kIters * 2'000);
  EXPECT_EQ(r.report.launch_latency_ns.count, static_cast<uint64_t>(kIters));
  EXPECT_EQ(r.report.launch_latency_ns.max, 4'000);
  EXPECT_EQ(r.counters.join.joined_to_host, static_cast<uint64_t>(kIters + kIters / 50));
  EXPECT_EQ(r.counters.join.cupti_only, 0u);
  EXPECT_EQ(r.counters.breakdown_late, 0u);
  ASSERT_EQ(r.report.devices.size(), 1u);
  const DeviceBreakdown& d = r.report.devices[0];
  EXPECT_EQ(d.wall_ns, kIters * 10'000);
  EXPECT_EQ(d.busy_ns, kIters * 2'000);
  // The host is never more than 7 us away; the last 4 us (after the last kernel) are teardown,
  // the first launch call (3 us, where CUDA initializes) start-up.
  EXPECT_EQ(d.idle.launch_bound_ns + d.teardown_ns, kIters * 8'000 - 3'000);
  EXPECT_EQ(d.startup_ns, 3'000);
  EXPECT_EQ(r.report.verdict.regime, "launch-bound");
}

TEST(AnalysisMemoryTest, DefaultOptionsStayUnderTheCaps) {
  // With the default 3 s reorder window the breakdown holds up to ~4.5 s of this loop; the
  // per-queue cap (max_pending) bounds it regardless of how long the run is.
  AnalysisOptions options;
  options.max_pending = 50'000;
  const LoopResult r = RunLoop(options, 1'000'000, 1000);
  EXPECT_LE(r.max_retained_first_half, 4 * 50'000u + 3 * 1000u);
  EXPECT_LE(r.max_retained_second_half, 4 * 50'000u + 3 * 1000u);
  EXPECT_EQ(r.report.kernels.launches, 1'000'000u);
  ASSERT_EQ(r.report.devices.size(), 1u);
  const DeviceBreakdown& d = r.report.devices[0];
  EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns +
                d.startup_ns + d.teardown_ns,
            d.wall_ns);
}

}  // namespace
}  // namespace brrr
