// DiffReports on hand-built reports: the basis, counts exact, step times by the test, stalls
// matched by reason and stack (gone ones too), and no significant change between equal runs.
#include "collector/diff/report_diff.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::diff {
namespace {

constexpr int64_t kMs = 1'000'000;

// 30 steps of `step_ms` (+ up to 0.4 ms of jitter), 3 launches and `stalls` stalls each.
Report LoopReport(int64_t step_ms, double stalls, bool with_steps = true) {
  Report r;
  r.command = "./train";
  r.wall_ns = 30 * step_ms * kMs;
  r.kernels.launch_calls = 90;
  r.kernels.device_ns = 30 * 50 * kMs;
  r.kernels.top.push_back({"gemm", 90, 30 * 50 * kMs, 0});
  DeviceBreakdown d;
  d.wall_ns = r.wall_ns;
  d.busy_ns = 30 * 50 * kMs;
  d.idle.host_outside_cuda_ns = d.wall_ns - d.busy_ns;
  r.devices.push_back(d);
  if (stalls > 0) {
    r.stalls.push_back({"cudaMemcpy",
                        "d2h_copy",
                        static_cast<uint64_t>(30 * stalls),
                        static_cast<int64_t>(30 * stalls) * 5 * kMs,
                        {"loss_item (train.py:42)"}});
    r.stall_reasons.push_back({"d2h_copy", static_cast<uint64_t>(30 * stalls),
                               static_cast<int64_t>(30 * stalls) * 5 * kMs});
  }
  r.verdict.regime = "device-bound";
  if (!with_steps) return r;
  StepsSummary& s = r.steps.emplace();
  s.count = 30;
  s.kept = 30;
  for (int i = 0; i < 30; ++i) s.wall_samples_ns.push_back(step_ms * kMs + (i * 7919) % 400'000);
  std::vector<int64_t> sorted = s.wall_samples_ns;
  std::sort(sorted.begin(), sorted.end());
  s.wall_ns.p50 = sorted[14];
  s.wall_ns.p99 = sorted[29];
  s.per_step.launches = 3;
  s.per_step.stall_calls = stalls;
  s.per_step.stall_ns = stalls * 5 * kMs;
  s.per_step.d2h_bytes = stalls * 4;
  return r;
}

const DiffMetric& Find(const ReportDiff& d, const std::string& name) {
  for (const DiffMetric& m : d.metrics) {
    if (m.name == name) return m;
  }
  static const DiffMetric none;
  ADD_FAILURE() << "no metric " << name;
  return none;
}

TEST(ReportDiffTest, ARemovedReadBackIsOneStallFewerPerStepAndFasterSteps) {
  const ReportDiff d = DiffReports(LoopReport(60, 1), LoopReport(55, 0));
  EXPECT_EQ(d.basis, "steps");
  EXPECT_EQ(d.a_steps, 30u);
  const DiffMetric& stalls = Find(d, "stalls_per_step");
  EXPECT_TRUE(stalls.count);
  EXPECT_DOUBLE_EQ(stalls.delta, -1.0);
  EXPECT_TRUE(stalls.significant);
  EXPECT_DOUBLE_EQ(Find(d, "d2h_bytes_per_step").delta, -4.0);
  EXPECT_FALSE(Find(d, "launches_per_step").significant) << "3 launches per step in both";
  const DiffMetric& wall = Find(d, "step_wall_p50_ns");
  EXPECT_FALSE(wall.count);
  EXPECT_TRUE(wall.significant) << wall.test;
  EXPECT_LT(*wall.delta_pct, -5);
  EXPECT_THAT(wall.test, ::testing::HasSubstr("Mann-Whitney"));
  ASSERT_EQ(d.stalls.size(), 1u);
  EXPECT_EQ(d.stalls[0].reason, "d2h_copy");
  EXPECT_DOUBLE_EQ(d.stalls[0].a_calls_per_step, 1.0);
  EXPECT_DOUBLE_EQ(d.stalls[0].b_calls_per_step, 0.0);  // gone
  EXPECT_DOUBLE_EQ(d.stalls[0].a_ns_per_step, 5.0 * kMs);
  ASSERT_EQ(d.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(d.kernels[0].a_device_ns_per_step, 50.0 * kMs);
}

TEST(ReportDiffTest, EqualRunsChangeNothingSignificantly) {
  Report b = LoopReport(60, 1);
  // Another execution: the same counts, step times shuffled by up to half a millisecond.
  for (int64_t& w : b.steps->wall_samples_ns) w += 100'000;
  const ReportDiff d = DiffReports(LoopReport(60, 1), b);
  for (const DiffMetric& m : d.metrics) EXPECT_FALSE(m.significant) << m.name << ": " << m.test;
}

TEST(ReportDiffTest, WithoutStepsTheRunIsOneStep) {
  const ReportDiff d = DiffReports(LoopReport(60, 1, false), LoopReport(60, 2));
  EXPECT_EQ(d.basis, "run");
  EXPECT_EQ(d.a_steps, 1u);
  EXPECT_DOUBLE_EQ(Find(d, "launches_per_step").a, 90.0);
  EXPECT_DOUBLE_EQ(Find(d, "stalls_per_step").b, 60.0);
  EXPECT_EQ(Find(d, "h2d_bytes_per_step").test, "not known without steps");
  EXPECT_THAT(Find(d, "step_wall_p50_ns").test, ::testing::HasSubstr("no per-step samples"));
}

}  // namespace
}  // namespace brrr::diff
