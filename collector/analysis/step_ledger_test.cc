// StepLedger on hand-built NVTX ranges, calls and breakdown pieces: which ranges are steps, what
// falls in each, the percentiles, the outlier rule and its cause, the caps.
#include "collector/analysis/step_ledger.h"

#include "collector/analysis/event_builders_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;
using testing::NvtxAt;
using Part = DeviceTimeBreakdown::PartListener::Part;

constexpr int64_t kMs = 1'000'000;

// Steps of `walls` ms back to back from t = 0 on thread 1, each busy 8 ms and host outside CUDA
// for the rest (so a long step's extra time is host time); swept at the end.
StepLedger Loop(const std::vector<int64_t>& walls_ms, StepLedger::Options options = {}) {
  StepLedger ledger(options);
  int64_t t = 0;
  for (size_t i = 0; i < walls_ms.size(); ++i) {
    const int64_t end = t + walls_ms[i] * kMs;
    ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, t, "ProfilerStep#" + std::to_string(i)));
    ledger.OnNvtx(
        NvtxAt(ring::NvtxOp::kPush, 1, t + 1, "fwd"));  // another range inside: not a step
    ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, t + 2));
    ledger.OnPart(0, Part::kBusy, t, t + 8 * kMs);
    ledger.OnPart(0, Part::kHostOutsideCuda, t + 8 * kMs, end);
    ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, end));
    t = end;
  }
  ledger.OnSwept(t);
  return ledger;
}

// Ten steps of 10 ms, the 4th and the 10th 30 ms. Median 10 ms, MAD 0: outliers are the steps
// over 10 ms and at least 12 ms, i.e. exactly the two, each grown in host time (+20 ms).
TEST(StepLedgerTest, SlowStepsAreTheOutliersWithTheirCause) {
  StepLedger ledger = Loop({10, 10, 10, 30, 10, 10, 10, 10, 10, 30});
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->source, "nvtx:ProfilerStep#N");
  EXPECT_EQ(s->count, 10u);
  EXPECT_EQ(s->kept, 10u);
  EXPECT_FALSE(s->estimated);
  EXPECT_EQ(s->wall_ns.p50, 10 * kMs);
  EXPECT_EQ(s->wall_ns.p90, 30 * kMs);  // nearest rank: the 9th of 10 sorted
  EXPECT_EQ(s->wall_ns.max, 30 * kMs);
  EXPECT_DOUBLE_EQ(s->wall_ns.mean, 14.0 * kMs);
  EXPECT_DOUBLE_EQ(s->per_step.busy_ns, 8.0 * kMs);
  EXPECT_DOUBLE_EQ(s->per_step.host_outside_cuda_ns, 6.0 * kMs);  // (8 x 2 + 2 x 22) / 10
  EXPECT_EQ(s->outliers_total, 2u);
  ASSERT_EQ(s->outliers.size(), 2u);
  EXPECT_EQ(s->outliers[0].index, 3u);
  EXPECT_EQ(s->outliers[0].name, "ProfilerStep#3");
  EXPECT_EQ(s->outliers[0].wall_ns, 30 * kMs);
  EXPECT_EQ(s->outliers[0].cause, "host_outside_cuda_ns");
  EXPECT_EQ(s->outliers[1].index, 9u);
  EXPECT_THAT(s->wall_samples_ns, ElementsAre(10 * kMs, 10 * kMs, 10 * kMs, 30 * kMs, 10 * kMs,
                                              10 * kMs, 10 * kMs, 10 * kMs, 10 * kMs, 30 * kMs));
}

// Outliers come longest first: a planted 50 ms step before the 13 and 14 ms noise that preceded
// it (issue 47: it was listed last, in step order).
TEST(StepLedgerTest, OutliersComeLongestFirst) {
  StepLedger ledger = Loop({10, 10, 13, 10, 10, 10, 14, 10, 10, 50, 10, 10});
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->outliers.size(), 3u);
  EXPECT_EQ(s->outliers[0].index, 9u);
  EXPECT_EQ(s->outliers[1].index, 6u);
  EXPECT_EQ(s->outliers[2].index, 2u);
}

// A steady loop with jitter has no outlier: 10.0 to 10.9 ms, none 20 % over the median.
TEST(StepLedgerTest, ASteadyLoopHasNone) {
  StepLedger ledger(StepLedger::Options{});
  int64_t t = 0;
  for (int i = 0; i < 50; ++i) {
    const int64_t wall = 10 * kMs + (i * 37 % 10) * 100'000;
    ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, t, "ProfilerStep#" + std::to_string(i)));
    ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, t + wall));
    t += wall;
  }
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count, 50u);
  EXPECT_EQ(s->outliers_total, 0u);
  EXPECT_TRUE(s->outliers.empty());
}

// Calls, stalls and copies go to the step whose interval holds them; outside any step, nowhere.
TEST(StepLedgerTest, EventsFallInTheStepThatHoldsThem) {
  StepLedger ledger;
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 100, "ProfilerStep#0"));
  ledger.AddLaunch(150);
  ledger.AddLaunch(160);
  ledger.AddStall(170, 20, [] { return std::string("cudaMemcpy d2h_copy 20 ns"); });
  ledger.AddStall(180, 5, [] { return std::string("cudaStreamSynchronize stream_sync 5 ns"); });
  ledger.AddCopy(175, 1, 4096);  // H2D
  ledger.AddCopy(176, 2, 8);     // D2H
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 200));
  ledger.AddLaunch(250);  // between steps
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 300, "ProfilerStep#1"));
  ledger.AddLaunch(320);
  ledger.AddCopy(90, 1, 1);  // before any step
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 400));
  ledger.OnSwept(1'000);
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count, 2u);
  EXPECT_DOUBLE_EQ(s->per_step.launches, 1.5);
  EXPECT_DOUBLE_EQ(s->per_step.stall_calls, 1.0);
  EXPECT_DOUBLE_EQ(s->per_step.stall_ns, 12.5);
  EXPECT_DOUBLE_EQ(s->per_step.h2d_bytes, 2048.0);
  EXPECT_DOUBLE_EQ(s->per_step.d2h_bytes, 4.0);
}

// Only top-level occurrences are steps; a chosen name (with its domain) replaces the default;
// start/end ranges count too; a step still open at the end is unfinished, not counted.
TEST(StepLedgerTest, WhichRangesAreSteps) {
  StepLedger::Options options;
  options.range_name = "train:iter";
  StepLedger ledger(options);
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 0, "ProfilerStep#0"));  // not the chosen name
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 5));
  EXPECT_FALSE(ledger.active());
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 10, "iter", "train"));
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 12, "iter", "train"));  // nested: inside the step
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 14));
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 2, 15, "iter", "train"));  // another thread, inside
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 2, 16, ""));
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 20));  // ends step 0: [10, 20)
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kStart, 3, 30, "iter", "train", 77));
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kEnd, 4, 45, "", "", 77));        // another thread ends it
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 50, "iter", "train"));  // never ends
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->source, "nvtx:train:iter");
  EXPECT_EQ(s->count, 2u);
  EXPECT_EQ(s->unfinished, 1u);
  EXPECT_THAT(s->wall_samples_ns, ElementsAre(10, 15));
}

// Past max_kept, steps are summed and their walls go to a histogram: percentiles estimated.
TEST(StepLedgerTest, PastTheCapPercentilesAreEstimated) {
  StepLedger::Options options;
  options.max_kept = 4;
  StepLedger ledger = Loop({10, 10, 10, 10, 10, 10, 10, 40}, options);
  const std::optional<StepsSummary> s = ledger.Finish();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count, 8u);
  EXPECT_EQ(s->kept, 4u);
  EXPECT_TRUE(s->estimated);
  EXPECT_EQ(s->wall_samples_ns.size(), 4u);
  EXPECT_EQ(s->wall_ns.max, 40 * kMs);
  EXPECT_DOUBLE_EQ(s->wall_ns.mean, 110.0 * kMs / 8);
  EXPECT_NEAR(static_cast<double>(s->wall_ns.p50), 10.0 * kMs, 0.02 * 10 * kMs);
}

TEST(StepLedgerTest, NoStepNoSummary) {
  StepLedger ledger;
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPush, 1, 0, "fwd"));
  ledger.OnNvtx(NvtxAt(ring::NvtxOp::kPop, 1, 5));
  ledger.AddLaunch(1);
  EXPECT_FALSE(ledger.Finish().has_value());
}

}  // namespace
}  // namespace brrr
