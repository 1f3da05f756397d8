// Tests for LaunchSiteStats and the report's launch sites: sampled launches counted per stack,
// estimated with the sample period, merged by symbolized stack, ranked, capped; through Analysis
// only flagged launches count.
#include "collector/analysis/launch_site_stats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collector/analysis/analysis.h"
#include "shim/ring_format.h"

namespace brrr {
namespace {

using ::testing::ElementsAre;

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

}  // namespace
}  // namespace brrr
