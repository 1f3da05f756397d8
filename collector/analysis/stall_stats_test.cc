// Tests for StallStats: grouping by site, merging sites that symbolize alike, ranking and limits.
#include "collector/analysis/stall_stats.h"

#include <string>
#include <vector>

#include "collector/analysis/api_stats.h"
#include "collector/analysis/stack_end.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

const CallKey kMemcpy = ApiStats::KeyForApi(Api::kCudaMemcpy);
const CallKey kFree = ApiStats::KeyForApi(Api::kCudaFree);

// Stack ids 1..3 are three return addresses of one unrolled loop: same function and line.
std::vector<std::string> Symbolize(uint32_t id) {
  if (id <= 3) return {"plant() (a.cu:10)", "main (a.cu:20)"};
  return {"other() (a.cu:" + std::to_string(id) + ")"};
}

TEST(StallStatsTest, SitesThatSymbolizeAlikeAreOneRow) {
  StallStats stats;
  ApiStats names;
  stats.Add(kMemcpy, StallReason::kD2hCopy, 1, 100);
  stats.Add(kMemcpy, StallReason::kD2hCopy, 2, 200);
  stats.Add(kMemcpy, StallReason::kD2hCopy, 3, 300);
  stats.Add(kMemcpy, StallReason::kD2hCopy, 3, 400);
  const std::vector<Stall> top = stats.Top(20, names, &Symbolize);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].calls, 4u);
  EXPECT_EQ(top[0].total_ns, 1000);
  EXPECT_EQ(top[0].reason, "d2h_copy");
  EXPECT_EQ(top[0].stack, Symbolize(1));
}

// A call seen only in CUPTI's records has no stack and says why; a hooked call without a stack
// (stack id 0) has none either but says nothing: two rows.
TEST(StallStatsTest, CallsSeenOnlyInCuptiRecordsSayWhyTheyHaveNoStack) {
  StallStats stats;
  ApiStats names;
  stats.Add(kFree, StallReason::kFreeSyncsDevice, StallStats::kCuptiRecordStack, 900);
  stats.Add(kFree, StallReason::kFreeSyncsDevice, 0, 100);
  const std::vector<Stall> top = stats.Top(20, names, &Symbolize);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_TRUE(top[0].stack.empty());
  EXPECT_EQ(top[0].total_ns, 900);
  EXPECT_EQ(top[0].ended_early, kCuptiRecordOnlyWhy);
  EXPECT_TRUE(top[1].stack.empty());
  EXPECT_EQ(top[1].ended_early, "");
}

TEST(StallStatsTest, DifferentReasonApiOrFramesStayApartAndRankByTotal) {
  StallStats stats;
  ApiStats names;
  stats.Add(kMemcpy, StallReason::kD2hCopy, 1, 100);
  stats.Add(kMemcpy, StallReason::kD2hCopy, 7, 500);  // other frames
  stats.Add(kFree, StallReason::kFreeSyncsDevice, 1, 300);
  stats.Add(kFree, StallReason::kFreeSyncsDevice, 2, 300);  // merges with the one above
  const std::vector<Stall> top = stats.Top(20, names, &Symbolize);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].total_ns, 600);
  EXPECT_EQ(top[0].calls, 2u);
  EXPECT_EQ(top[0].reason, "free_syncs_device");
  EXPECT_EQ(top[1].total_ns, 500);
  EXPECT_EQ(top[2].total_ns, 100);
  EXPECT_EQ(stats.Top(2, names, &Symbolize).size(), 2u);
}

}  // namespace
}  // namespace brrr
