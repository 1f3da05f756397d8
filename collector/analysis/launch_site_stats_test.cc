// Tests for LaunchSiteStats and the report's launch sites: sampled launches counted per stack,
// estimated with the sample period, merged by symbolized stack, ranked, capped; through Analysis
// only flagged launches count, and the kernels they ran are put on their sites.
#include "collector/analysis/launch_site_stats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "collector/analysis/call_joiner.h"
#include "collector/analysis/event_builders_for_test.h"
#include "shim/ring_format.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;
using namespace ::brrr::testing;  // NOLINT: the event builders

// Stacks 1 and 2 read alike (two offsets of one Python line); 3 is another line.
std::vector<std::string> Symbolize(uint32_t id) {
  if (id <= 2) return {"launch (ext.cu:9)", "forward (model.py:12)", "step (train.py:30)"};
  return {"launch (ext.cu:9)", "forward (model.py:" + std::to_string(10 + id) + ")"};
}

TEST(LaunchSiteStatsTest, EstimatesAreSampledTimesPeriodMergedByStack) {
  LaunchSiteStats stats;
  for (int i = 0; i < 3; ++i) stats.Add(1);
  for (int i = 0; i < 2; ++i) stats.Add(2);
  for (int i = 0; i < 4; ++i) stats.Add(3);
  stats.Add(0);
  EXPECT_EQ(stats.sampled(), 10u);
  const std::vector<LaunchSite> top = stats.Top(10, 64, &Symbolize);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].launches, 5u * 64);
  EXPECT_EQ(top[0].stack, Symbolize(1));
  EXPECT_EQ(top[1].launches, 4u * 64);
  EXPECT_EQ(top[1].stack, Symbolize(3));
  EXPECT_EQ(top[2].launches, 64u);
  EXPECT_TRUE(top[2].stack.empty());  // sampled without a stack stored
  EXPECT_EQ(stats.Top(2, 64, &Symbolize).size(), 2u);
}

TEST(LaunchSiteStatsTest, NoSitesWithoutASamplePeriod) {
  LaunchSiteStats stats;
  stats.Add(1);
  EXPECT_TRUE(stats.Top(10, 0, &Symbolize).empty());
}

TEST(LaunchSiteStatsTest, SitesOverTheCapFoldIntoNoStack) {
  LaunchSiteStats stats(/*max_sites=*/2);
  stats.Add(1);
  stats.Add(3);
  stats.Add(4);  // a third distinct stack: over the cap
  stats.Add(5);
  EXPECT_EQ(stats.sites(), 3u);  // 1, 3 and the fold-in row 0
  const std::vector<LaunchSite> top = stats.Top(10, 1, &Symbolize);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].launches, 2u);
  EXPECT_TRUE(top[0].stack.empty());
}

TEST(LaunchSiteStatsTest, EstimateSaturates) {
  LaunchSiteStats stats;
  stats.Add(1);
  stats.Add(1);
  EXPECT_EQ(stats.Top(1, UINT32_MAX, &Symbolize)[0].launches, 2ull * UINT32_MAX);
}

HostCall Launch(int64_t at, uint32_t stack_id, uint32_t flags) {
  HostCall c;
  c.api = Api::kCudaLaunchKernel;
  c.tid = 7;
  c.enter_ns = at;
  c.exit_ns = at + 2'000;
  c.stack_id = stack_id;
  c.flags = flags;
  return c;
}

TEST(LaunchSiteStatsTest, AnalysisCountsOnlySampledLaunches) {
  Analysis analysis;
  RunInfo info;
  info.start_ns = 1;
  info.end_ns = 10'000'000;
  info.launch_sample_period = 100;
  analysis.SetRunInfo(info);
  int64_t t = 1'000;
  for (int i = 0; i < 30; ++i, t += 10'000) {
    analysis.OnHostCall(Launch(t, 1, ring::kRecordLaunchSample));
  }
  for (int i = 0; i < 10; ++i, t += 10'000) {
    analysis.OnHostCall(Launch(t, 3, ring::kRecordLaunchSample));
  }
  // Unsampled launches of another site, and a non-launch carrying the flag (damage): not sites.
  for (int i = 0; i < 50; ++i, t += 10'000) analysis.OnHostCall(Launch(t, 4, 0));
  HostCall copy = Launch(t, 4, ring::kRecordLaunchSample);
  copy.api = Api::kCudaMemcpyAsync;
  analysis.OnHostCall(copy);
  const Report report = analysis.Finish(&Symbolize);
  EXPECT_EQ(report.launch_sample_period, 100u);
  ASSERT_EQ(report.launch_sites.size(), 2u);
  EXPECT_EQ(report.launch_sites[0].launches, 3000u);
  EXPECT_THAT(report.launch_sites[0].stack,
              ElementsAre("launch (ext.cu:9)", "forward (model.py:12)", "step (train.py:30)"));
  EXPECT_EQ(report.launch_sites[1].launches, 1000u);
}

std::string KernelName(uint32_t name_id) {
  if (name_id == 7 || name_id == 8) return "square(float*, int)";  // two ids, one name
  if (name_id == 9) return "gemm";
  return "";
}

TEST(LaunchSiteStatsTest, KernelsOfSampledLaunchesByNameAndDeviceScaledByThePeriod) {
  LaunchSiteStats stats;
  stats.Add(1);
  stats.Add(2);
  stats.Add(3);
  stats.AddKernels(1, 7, 0, 1'000, 1);
  stats.AddKernels(2, 8, 0, 3'000, 1);  // same stack once symbolized, same name: one row
  stats.AddKernels(2, 9, 0, 500, 1);
  stats.AddKernels(1, 9, 1, 700, 1);  // same name on another device: its own row
  stats.AddKernels(3, CallJoiner::kSeveralKernelNames, 0, 2'000, 3);
  stats.AddKernels(3, 42, 0, 100, 1);  // a name id the kernel table never kept
  stats.AddKernels(3, 9, 0, -5, 1);    // a negative duration counts as 0 ns
  const std::vector<LaunchSite> top = stats.Top(10, 10, &Symbolize, &KernelName);
  ASSERT_EQ(top.size(), 2u);
  ASSERT_EQ(top[0].stack, Symbolize(1));
  ASSERT_EQ(top[0].kernels.size(), 3u);
  EXPECT_EQ(top[0].kernels[0].name, "square(float*, int)");
  EXPECT_EQ(top[0].kernels[0].device, 0u);
  EXPECT_EQ(top[0].kernels[0].kernels, 20u);
  EXPECT_EQ(top[0].kernels[0].device_ns, 40'000);
  EXPECT_EQ(top[0].kernels[1].name, "gemm");
  EXPECT_EQ(top[0].kernels[1].device, 1u);
  EXPECT_EQ(top[0].kernels[1].device_ns, 7'000);
  EXPECT_EQ(top[0].kernels[2].name, "gemm");
  EXPECT_EQ(top[0].kernels[2].device, 0u);
  EXPECT_EQ(top[0].kernels[2].device_ns, 5'000);
  ASSERT_EQ(top[1].kernels.size(), 3u);
  EXPECT_EQ(top[1].kernels[0].name, "(several kernels)");
  EXPECT_EQ(top[1].kernels[0].kernels, 30u);
  EXPECT_EQ(top[1].kernels[0].device_ns, 20'000);
  EXPECT_EQ(top[1].kernels[1].name, "(kernel name not kept)");
  EXPECT_EQ(top[1].kernels[2].name, "gemm");
  EXPECT_EQ(top[1].kernels[2].device_ns, 0);
}

TEST(LaunchSiteStatsTest, KernelRowsPastASitesTopAreOneOtherRowPerDevice) {
  LaunchSiteStats stats;
  stats.Add(3);
  const size_t rows = LaunchSiteStats::kKernelsPerSite + 3;
  for (uint32_t id = 1; id <= rows; ++id) {
    stats.AddKernels(3, id, id % 2, 1'000 * id, 1);
  }
  const auto named = [](uint32_t id) { return "k" + std::to_string(id); };
  const std::vector<LaunchSite> top = stats.Top(10, 1, &Symbolize, named);
  ASSERT_EQ(top.size(), 1u);
  const std::vector<LaunchKernel>& k = top[0].kernels;
  ASSERT_EQ(k.size(), LaunchSiteStats::kKernelsPerSite + 2);
  EXPECT_EQ(k[0].name, "k" + std::to_string(rows));
  // Left out: ids 1, 2, 3 (1 and 3 on device 1, 2 on device 0).
  EXPECT_EQ(k[k.size() - 2].name, "(other kernels)");
  EXPECT_EQ(k[k.size() - 2].device, 0u);
  EXPECT_EQ(k[k.size() - 2].device_ns, 2'000);
  EXPECT_EQ(k[k.size() - 1].device, 1u);
  EXPECT_EQ(k[k.size() - 1].kernels, 2u);
  EXPECT_EQ(k[k.size() - 1].device_ns, 4'000);
}

// Through Analysis: a sampled launch's kernel goes to its site whether it comes before or after
// the launch's API record; kernels of unsampled launches go nowhere.
TEST(LaunchSiteStatsTest, AnalysisPutsTheKernelsOfSampledLaunchesOnTheirSites) {
  Analysis analysis;
  RunInfo info = MakeRun(0, 100'000'000);
  info.launch_sample_period = 4;
  analysis.SetRunInfo(info);
  const auto kernel = [](uint32_t corr, int64_t start, int64_t end, uint32_t name_id) {
    DeviceOp op = Kernel(name_id == 1 ? "_Z6squarePfi" : "gemm_kernel", corr, start, end);
    op.name_id = name_id;
    return op;
  };
  int64_t t = 1'000'000;
  for (uint32_t i = 0; i < 8; ++i, t += 100'000) {
    HostCall call = Host(Api::kCudaLaunchKernel, t, t + 5'000, /*stack_id=*/i < 6 ? 1 : 3);
    const bool sampled = i % 2 == 0;
    if (sampled) call.flags = ring::kRecordLaunchSample;
    analysis.OnHostCall(call);
    const uint32_t corr = 100 + i;
    const ApiActivity record = Runtime(kRuntimeLaunchCbid, corr, t + 1'000, t + 4'000);
    const DeviceOp op = kernel(corr, t + 10'000, t + 10'000 + 1'000 * (i + 1), i < 6 ? 1 : 2);
    if (i % 4 == 0) {  // the kernel's record first
      analysis.OnDeviceOp(op);
      analysis.OnApiActivity(record);
    } else {
      analysis.OnApiActivity(record);
      analysis.OnDeviceOp(op);
    }
  }
  const Report report = analysis.Finish(&Symbolize);
  ASSERT_EQ(report.launch_sites.size(), 2u);
  // Stack 1: sampled launches 0, 2, 4 (1, 3 and 5 us of square), x4.
  EXPECT_EQ(report.launch_sites[0].launches, 12u);
  ASSERT_EQ(report.launch_sites[0].kernels.size(), 1u);
  EXPECT_EQ(report.launch_sites[0].kernels[0].name, "square(float*, int)");
  EXPECT_EQ(report.launch_sites[0].kernels[0].kernels, 12u);
  EXPECT_EQ(report.launch_sites[0].kernels[0].device_ns, 4 * 9'000);
  // Stack 3: sampled launch 6 (7 us of gemm_kernel).
  ASSERT_EQ(report.launch_sites[1].kernels.size(), 1u);
  EXPECT_EQ(report.launch_sites[1].kernels[0].name, "gemm_kernel");
  EXPECT_EQ(report.launch_sites[1].kernels[0].device_ns, 4 * 7'000);
}

}  // namespace
}  // namespace brrr
