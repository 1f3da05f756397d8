// Per-kernel counters through the whole analysis: kernels are held for the join only once the
// reader said counters were asked for; aligned samples give the top kernels their figures and
// the report its join summary; unaligned ones give only the summary; without counters the report
// has none of it. Expected values worked out by hand in the comments.
#include <string>

#include "collector/analysis/analysis.h"
#include "collector/analysis/event_builders_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using testing::Kernel;
using testing::MakeRun;

CounterSampleEvent Sample(int64_t start, int64_t end, double sm, double dram, double active,
                          bool aligned = true) {
  CounterSampleEvent s;
  s.start_ns = start;
  s.end_ns = end;
  s.sm_pct = sm;
  s.dram_pct = dram;
  s.active_pct = active;
  s.aligned = aligned;
  s.clock_basis = aligned ? CounterClockBasis::kRealtime : CounterClockBasis::kUndecided;
  return s;
}

// gemm [1.0, 1.4) ms, then add [1.4, 1.6) ms; samples [1.0, 1.5) SM 90 DRAM 20 active 100 and
// [1.5, 2.0) SM 20 DRAM 70 active 40 (-> SM 50, DRAM 100 over the active part).
// gemm: 0.4 ms in the first sample only -> SM 90, DRAM 20, coverage 1, shared 1 (add is in it too).
// add: 0.1 ms in each -> SM (90 + 50) / 2 = 70, DRAM (20 + 100) / 2 = 60, coverage 1, shared 1.
void Feed(Analysis& a, bool requested) {
  a.SetRunInfo(MakeRun(0, 10'000'000));
  if (requested) a.OnCountersRequested();
  a.OnDeviceOp(Kernel("gemm", 1, 1'000'000, 1'400'000));
  a.OnDeviceOp(Kernel("add", 2, 1'400'000, 1'600'000));
}

TEST(AnalysisCounters, TopKernelsGetTheirFiguresAndTheReportTheJoin) {
  Analysis a;
  Feed(a, /*requested=*/true);
  a.OnCounterSample(Sample(1'000'000, 1'500'000, 90, 20, 100));
  a.OnCounterSample(Sample(1'500'000, 2'000'000, 20, 70, 40));
  a.OnCounterSample(Sample(50, 60, 20, 70, 40, /*aligned=*/false));
  const Report r = a.Finish({});
  ASSERT_EQ(r.kernels.top.size(), 2u);
  const KernelStat& gemm = r.kernels.top[0];
  const KernelStat& add = r.kernels.top[1];
  ASSERT_EQ(gemm.name, "gemm");
  ASSERT_TRUE(gemm.achieved_sm_pct.has_value());
  EXPECT_DOUBLE_EQ(*gemm.achieved_sm_pct, 90.0);
  EXPECT_DOUBLE_EQ(*gemm.achieved_dram_pct, 20.0);
  EXPECT_DOUBLE_EQ(*gemm.counter_coverage, 1.0);
  EXPECT_DOUBLE_EQ(*gemm.counter_shared, 1.0);
  EXPECT_DOUBLE_EQ(*add.achieved_sm_pct, 70.0);
  EXPECT_DOUBLE_EQ(*add.achieved_dram_pct, 60.0);
  ASSERT_TRUE(r.kernels.counters.has_value());
  EXPECT_EQ(r.kernels.counters->samples, 2u);
  EXPECT_EQ(r.kernels.counters->samples_unaligned, 1u);
  EXPECT_EQ(r.kernels.counters->clock, CounterClockBasisText(CounterClockBasis::kRealtime));
}

TEST(AnalysisCounters, OnlyUnalignedSamplesGiveTheSummaryButNoFigures) {
  Analysis a;
  Feed(a, true);
  a.OnCounterSample(Sample(50, 60, 20, 70, 40, /*aligned=*/false));
  const Report r = a.Finish({});
  ASSERT_TRUE(r.kernels.counters.has_value());
  EXPECT_EQ(r.kernels.counters->samples, 0u);
  EXPECT_EQ(r.kernels.counters->samples_unaligned, 1u);
  for (const KernelStat& k : r.kernels.top) EXPECT_FALSE(k.counter_coverage.has_value());
}

TEST(AnalysisCounters, WithoutCountersNothingChanges) {
  Analysis a;
  Feed(a, /*requested=*/false);
  Analysis with;
  Feed(with, /*requested=*/true);
  // The same events with counters hold the two kernels for the join; without, none.
  EXPECT_EQ(with.RetainedItemsForTest(), a.RetainedItemsForTest() + 2);
  const Report r = a.Finish({});
  EXPECT_FALSE(r.kernels.counters.has_value());
  for (const KernelStat& k : r.kernels.top) {
    EXPECT_FALSE(k.achieved_sm_pct.has_value());
    EXPECT_FALSE(k.counter_coverage.has_value());
  }
}

// Whatever the verdict, a report of a run that asked for counters says whether they were used:
// why not, or what they measured run-wide while the device was busy.
TEST(AnalysisCounters, CountersAskedForButRefusedSayWhyWithoutAnySample) {
  Analysis a;
  Feed(a, /*requested=*/true);
  a.OnDeviceOp(Kernel("late", 3, 9'000'000, 9'100'000));  // 7.4 ms idle between: not device-bound
  a.SetCounterOutcome(std::nullopt, "not permitted: ERR_NVGPUCTRPERM");
  const Report r = a.Finish({});
  ASSERT_TRUE(r.kernels.counters.has_value());
  EXPECT_EQ(r.kernels.counters->unavailable, "not permitted: ERR_NVGPUCTRPERM");
  EXPECT_EQ(r.kernels.counters->samples, 0u);
  EXPECT_EQ(r.kernels.counters->clock, "no PM sample reached the collector: not joined");
  EXPECT_FALSE(r.kernels.counters->busy_sm_pct.has_value());
  EXPECT_FALSE(r.kernels.counters->busy_dram_pct.has_value());
  EXPECT_NE(r.verdict.regime, "device-bound");
}

TEST(AnalysisCounters, RunWideFiguresWhileBusyAreReportedWhateverTheVerdict) {
  Analysis a;
  Feed(a, /*requested=*/true);
  a.OnDeviceOp(Kernel("late", 3, 9'000'000, 9'100'000));  // 7.4 ms idle between: not device-bound
  a.SetCounterOutcome(CounterThroughput{70.0, 16.7, 40}, "");
  const Report r = a.Finish({});
  ASSERT_TRUE(r.kernels.counters.has_value());
  EXPECT_EQ(r.kernels.counters->unavailable, "");
  ASSERT_TRUE(r.kernels.counters->busy_sm_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.kernels.counters->busy_sm_pct, 70.0);
  EXPECT_DOUBLE_EQ(*r.kernels.counters->busy_dram_pct, 16.7);
  EXPECT_EQ(r.kernels.counters->busy_samples, 40u);
  EXPECT_NE(r.verdict.regime, "device-bound");
}

// A device-bound process whose kernels ran on device 3 while the counters measured device 0 (a
// job's rank 3): the run-wide figures are not used for its regime, which falls back to kernel
// classes and says why; the report says how many kernels had no figures.
TEST(AnalysisCounters, CountersOfAnotherDeviceDoNotJudgeThisProcess) {
  for (const uint32_t device : {0u, 3u}) {
    Analysis a;
    a.SetRunInfo(MakeRun(0, 10'000'000));
    a.OnCountersRequested();
    for (int i = 0; i < 9; ++i) {  // back to back: device-bound
      a.OnDeviceOp(Kernel("gemm", i + 1, 1'000'000 * (i + 1), 1'000'000 * (i + 2), device));
    }
    a.OnCounterSample(Sample(1'000'000, 2'000'000, 20, 85, 100));  // device 0's
    a.SetCounterOutcome(CounterThroughput{20.0, 85.0, 40}, "");
    const Report r = a.Finish({});
    ASSERT_TRUE(r.kernels.counters.has_value()) << device;
    EXPECT_EQ(r.kernels.counters->device, 0u);
    ASSERT_TRUE(r.verdict.device_regime.has_value()) << r.verdict.regime;
    if (device == 0) {
      EXPECT_EQ(r.kernels.counters->other_device_kernels, 0u);
      EXPECT_EQ(r.kernels.counters->unavailable, "");
      EXPECT_EQ(r.verdict.device_regime->basis, "hardware counters");
      EXPECT_EQ(r.verdict.device_regime->regime, "bandwidth");
    } else {
      EXPECT_EQ(r.kernels.counters->other_device_kernels, 9u);
      EXPECT_EQ(r.kernels.counters->other_device_ns, 9'000'000);
      EXPECT_EQ(r.kernels.counters->unavailable,
                "they measure device 0, and 100% of this process's kernel time ran on other "
                "devices");
      EXPECT_EQ(r.verdict.device_regime->basis, "kernel classes");
      EXPECT_EQ(r.verdict.device_regime->regime, "compute");  // gemm: a matmul
      EXPECT_THAT(r.verdict.device_regime->why, HasSubstr("they measure device 0"));
      ASSERT_FALSE(r.kernels.top.empty());
      EXPECT_FALSE(r.kernels.top[0].achieved_sm_pct.has_value());
    }
  }
}

TEST(AnalysisCounters, ASnapshotKeepsTheJoin) {
  Analysis a;
  Feed(a, true);
  a.OnCounterSample(Sample(1'000'000, 1'500'000, 90, 20, 100));
  const Report snap = a.Snapshot(MakeRun(0, 5'000'000), {});
  ASSERT_TRUE(snap.kernels.top[0].achieved_sm_pct.has_value());
  EXPECT_DOUBLE_EQ(*snap.kernels.top[0].achieved_sm_pct, 90.0);
}

}  // namespace
}  // namespace brrr
