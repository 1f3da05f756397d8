// Tests of Analysis::Snapshot: a report of a run still going, taken without finishing the
// analysis. The snapshot holds the events seen so far (end "running", exit code unknown), and the
// analysis goes on to a final report equal to that of an analysis never snapshotted.
#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using namespace brrr::testing;  // NOLINT

// Iterations [from, to) of a loop: a launch (host call, runtime record, 2 us kernel) every 10 us,
// with a slow cudaMemcpy (a stall) every 100th iteration.
void Feed(Analysis& a, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) {
    const int64_t t0 = i * 10'000;
    const uint32_t corr = static_cast<uint32_t>(i + 1);
    a.OnHostCall(Host(Api::kCudaLaunchKernelInternal, t0, t0 + 3'000, 1));
    a.OnApiActivity(Runtime(kRuntimeLaunchCbid, corr, t0 + 20, t0 + 2'980));
    a.OnDeviceOp(Kernel("_Z4stepPfS_i", corr, t0 + 4'000, t0 + 6'000));
    if (i % 100 == 99) {
      a.OnHostCall(Copy(Api::kCudaMemcpy, t0 + 3'000, t0 + 9'000 + 50'000, CopyKind::kDtoH,
                        HostMemory::kPageable, 2));
    }
  }
}

TEST(AnalysisSnapshotTest, SnapshotSaysSoFarAndLeavesTheFinalReportUnchanged) {
  Analysis snapped, plain;
  snapped.SetRunInfo(MakeRun(0, 0));
  plain.SetRunInfo(MakeRun(0, 0));
  Feed(snapped, 0, 1000);
  Feed(plain, 0, 1000);

  RunInfo now = MakeRun(0, 1000 * 10'000);
  const Report first = snapped.Snapshot(now, nullptr);
  EXPECT_EQ(first.end, "running");
  EXPECT_FALSE(first.exit_code_known);
  EXPECT_EQ(first.kernels.launches, 1000u);
  EXPECT_EQ(first.kernels.launch_calls, 1000u);
  EXPECT_EQ(first.kernels.device_ns, 1000 * 2'000);

  Feed(snapped, 1000, 3000);
  Feed(plain, 1000, 3000);
  const Report second = snapped.Snapshot(MakeRun(0, 3000 * 10'000), nullptr);
  EXPECT_EQ(second.kernels.launches, 3000u);
  EXPECT_EQ(first.kernels.launches, 1000u);  // a snapshot is a copy, not a view

  const RunInfo end = MakeRun(0, 3000 * 10'000);
  snapped.SetRunInfo(end);
  plain.SetRunInfo(end);
  const Report final_snapped = snapped.Finish(nullptr);
  const Report final_plain = plain.Finish(nullptr);
  EXPECT_EQ(final_snapped.end, "exited");
  EXPECT_EQ(final_snapped.kernels.launches, 3000u);
  EXPECT_EQ(final_snapped.kernels.device_ns, final_plain.kernels.device_ns);
  EXPECT_EQ(final_snapped.wall_ns, final_plain.wall_ns);
  ASSERT_EQ(final_snapped.devices.size(), final_plain.devices.size());
  EXPECT_EQ(final_snapped.devices[0].busy_ns, final_plain.devices[0].busy_ns);
  EXPECT_EQ(final_snapped.launch_latency_ns.count, final_plain.launch_latency_ns.count);
  ASSERT_EQ(final_snapped.api.size(), final_plain.api.size());
  for (size_t i = 0; i < final_plain.api.size(); ++i) {
    EXPECT_EQ(final_snapped.api[i].calls, final_plain.api[i].calls);
  }
  ASSERT_EQ(final_snapped.stalls.size(), final_plain.stalls.size());
  EXPECT_EQ(final_snapped.stalls[0].calls, final_plain.stalls[0].calls);
  // The snapshot at the same point in time shows the same totals as the final report.
  EXPECT_EQ(second.kernels.device_ns, final_plain.kernels.device_ns);
  ASSERT_FALSE(final_plain.stalls.empty());
  ASSERT_FALSE(second.stalls.empty());
  EXPECT_EQ(second.stalls[0].calls, final_plain.stalls[0].calls);
}

}  // namespace
}  // namespace brrr
