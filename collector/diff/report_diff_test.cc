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
  EXPECT_FALSE(stalls.count) << "whether a call stalls is timing";
  EXPECT_DOUBLE_EQ(stalls.delta, -1.0);
  EXPECT_TRUE(stalls.significant) << "-100%, past any minimum effect";
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
  // One value per run: no test can call the step times' change significant.
  for (const char* name : {"step_wall_p50_ns", "step_wall_p99_ns"}) {
    EXPECT_FALSE(Find(d, name).significant) << name;
    EXPECT_THAT(Find(d, name).test, ::testing::HasSubstr("n too small"));
  }
}

TEST(ReportDiffTest, TooFewStepsAreNotTested) {
  Report a = LoopReport(60, 1), b = LoopReport(80, 1);
  for (Report* r : {&a, &b}) r->steps->wall_samples_ns.resize(5);
  const ReportDiff d = DiffReports(a, b);
  EXPECT_FALSE(Find(d, "step_wall_p50_ns").significant);
  EXPECT_THAT(Find(d, "step_wall_p50_ns").test, ::testing::HasSubstr("n too small: 5 and 5"));
  EXPECT_THAT(d.significance_rule, ::testing::HasSubstr("p < 0.01"));
}

// A loop of `steps` steps whose syncing calls per step are one D2H copy at loss_item, plus
// `frees` cudaFree per step at extra_sync; stalls as timing would have it.
Report SyncReport(double frees, double d2h_stalls_per_step) {
  Report r = LoopReport(60, d2h_stalls_per_step);
  SyncCalls& s = r.sync_calls.emplace();
  s.rows.push_back({"cudaMemcpy", "d2h_copy", 30, 30 * kMs, {"loss_item (train.py:42)"}});
  if (frees > 0) {
    s.rows.push_back({"cudaFree", "free_syncs_device", static_cast<uint64_t>(30 * frees), kMs,
                      {"extra_sync (train.py:50)"}});
  }
  s.calls = 30 + static_cast<uint64_t>(30 * frees);
  s.sites = s.rows.size();
  r.steps->per_step.sync_calls = 1 + frees;
  return r;
}

TEST(ReportDiffTest, ANewHiddenSyncIsANewSiteAndMoreSyncingCallsWhateverTheStalls) {
  // The new cudaFree drains the device, so the D2H copy no longer waits: fewer stalls.
  const ReportDiff d = DiffReports(SyncReport(0, 1), SyncReport(1, 0.03));
  const DiffMetric& calls = Find(d, "sync_calls_per_step");
  EXPECT_TRUE(calls.count);
  EXPECT_DOUBLE_EQ(calls.a, 1.0);
  EXPECT_DOUBLE_EQ(calls.b, 2.0);
  EXPECT_TRUE(calls.significant);
  EXPECT_DOUBLE_EQ(Find(d, "new_sync_sites").b, 1.0);
  EXPECT_TRUE(Find(d, "new_sync_sites").significant);
  EXPECT_DOUBLE_EQ(Find(d, "gone_sync_sites").b, 0.0);
  EXPECT_FALSE(Find(d, "gone_sync_sites").significant);
  const DiffMetric& frees = Find(d, "sync_calls_per_step[cudaFree]");
  EXPECT_DOUBLE_EQ(frees.a, 0.0);
  EXPECT_DOUBLE_EQ(frees.b, 1.0);
  EXPECT_FALSE(Find(d, "sync_calls_per_step[cudaMemcpy]").significant);
  ASSERT_EQ(d.sync_sites.size(), 2u);
  EXPECT_EQ(d.sync_sites[0].api, "cudaFree");  // the largest change first
  EXPECT_DOUBLE_EQ(d.sync_sites[0].a_calls_per_step, 0.0);
  EXPECT_EQ(d.sync_sites_not_kept, 0u);
}

TEST(ReportDiffTest, UnchangedSyncingCallsAreNotAChangeWhateverTheStallsDid) {
  const ReportDiff d = DiffReports(SyncReport(1, 0.9), SyncReport(1, 0.2));
  for (const char* name : {"sync_calls_per_step", "new_sync_sites", "gone_sync_sites",
                           "sync_calls_per_step[cudaFree]", "sync_calls_per_step[cudaMemcpy]"}) {
    EXPECT_FALSE(Find(d, name).significant) << name;
    EXPECT_EQ(Find(d, name).delta, 0) << name;
  }
}

TEST(ReportDiffTest, NoSyncMetricsWhenAReportPredatesThem) {
  const ReportDiff d = DiffReports(LoopReport(60, 1), SyncReport(1, 0));
  for (const DiffMetric& m : d.metrics) EXPECT_EQ(m.name.find("sync_"), std::string::npos) << m.name;
  EXPECT_TRUE(d.sync_sites.empty());
}

TEST(ReportDiffTest, SitesBeyondTheKeptRowsAreSaid) {
  Report a = SyncReport(0, 0), b = SyncReport(1, 0);
  a.sync_calls->sites = kMaxSyncSitesKept + 5;
  const ReportDiff d = DiffReports(a, b);
  EXPECT_EQ(d.sync_sites_not_kept, kMaxSyncSitesKept + 5 - 1);
  EXPECT_THAT(Find(d, "new_sync_sites").test, ::testing::HasSubstr("most-called"));
}

}  // namespace
}  // namespace brrr::diff
