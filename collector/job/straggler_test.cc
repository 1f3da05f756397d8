// The straggler rule on hand-worked figures: who is named, when the ranks are even, and the
// numbers in the sentence.
#include "collector/job/straggler.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::job {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kMs = 1'000'000;

ProcessRow Rank(int64_t rank, double host_outside_ms, int64_t wall_ms = 1000) {
  ProcessRow row;
  row.rank = rank;
  row.pid = static_cast<uint32_t>(100 + rank);
  row.wall_ns = wall_ms * kMs;
  DeviceBreakdown d;
  d.wall_ns = row.wall_ns;
  d.idle.host_outside_cuda_ns = static_cast<int64_t>(host_outside_ms * 1e6 + 0.5);
  d.busy_ns = d.wall_ns - d.idle.host_outside_cuda_ns;
  row.devices.push_back(d);
  return row;
}

TEST(StragglerTest, NamesTheRankFarAboveTheMedian) {
  // Figures 10, 12, 11, 40 ms: median (11 + 12) / 2 = 11.5 ms; 40 >= 1.25 x 11.5 = 14.375 and
  // 40 - 11.5 >= 10 ms.
  const auto s = FindStraggler({Rank(0, 10), Rank(1, 12), Rank(2, 11), Rank(3, 40, 1500)});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 3);
  EXPECT_EQ(s->pid, 103u);
  EXPECT_THAT(s->why, HasSubstr("rank 3 spent 40.0 ms on the host outside CUDA"));
  EXPECT_THAT(s->why, HasSubstr("3.48x the median rank's 11.5 ms"));
  EXPECT_THAT(s->why, HasSubstr("wall 1.50 s against the median's 1.00 s"));
}

TEST(StragglerTest, EvenRanksHaveNone) {
  // 12.4 ms < 1.25 x 11.5 ms: within 25% of the median.
  EXPECT_FALSE(FindStraggler({Rank(0, 10), Rank(1, 12), Rank(2, 11), Rank(3, 12.4)}));
  // Median 44 ms: 56 ms >= 1.25 x 44 = 55 ms and 12 ms over it: named.
  ProcessRow a = Rank(0, 40), b = Rank(1, 44), c = Rank(2, 56);
  EXPECT_TRUE(FindStraggler({a, b, c}).has_value());
  c = Rank(2, 54);  // 54 ms < 55 ms: even
  EXPECT_FALSE(FindStraggler({a, b, c}).has_value());
}

TEST(StragglerTest, SmallGapsAreEven) {
  // 0.5 ms against a median of 0.1 ms: 5x, but less than 10 ms more; so is 19 ms against 10 ms.
  EXPECT_FALSE(FindStraggler({Rank(0, 10), Rank(1, 10), Rank(2, 19.9)}));
  EXPECT_TRUE(FindStraggler({Rank(0, 10), Rank(1, 10), Rank(2, 20.1)}));
  ProcessRow a = Rank(0, 0), b = Rank(1, 0), c = Rank(2, 0);
  a.devices[0].idle.host_outside_cuda_ns = 100'000;
  b.devices[0].idle.host_outside_cuda_ns = 100'000;
  c.devices[0].idle.host_outside_cuda_ns = 500'000;
  EXPECT_FALSE(FindStraggler({a, b, c}).has_value());
}

TEST(StragglerTest, TiesAndSingleProcessesHaveNone) {
  EXPECT_FALSE(FindStraggler({Rank(0, 10), Rank(1, 10), Rank(2, 40), Rank(3, 40)}));
  EXPECT_FALSE(FindStraggler({Rank(0, 40)}));
  EXPECT_FALSE(FindStraggler({}));
}

TEST(StragglerTest, WallTimesWhenNoDeviceTimeWasRecorded) {
  ProcessRow a, b, c;
  a.rank = 0;
  b.rank = 1;
  c.pid = 77;  // no rank: named by pid
  a.wall_ns = 100 * kMs;
  b.wall_ns = 100 * kMs;
  c.wall_ns = 300 * kMs;
  const auto s = FindStraggler({a, b, c});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, -1);
  EXPECT_EQ(s->pid, 77u);
  EXPECT_THAT(s->why, HasSubstr("pid 77 ran 300 ms, 3.00x the median process's 100 ms"));
}

// Processes without ranks (sh -c 'a & b') are processes: nothing is said of ranks or collectives.
TEST(StragglerTest, ProcessesWithoutRanksAreNotSpokenOfAsRanks) {
  ProcessRow a = Rank(0, 10), b = Rank(1, 12), c = Rank(2, 40);
  const auto ranked = FindStraggler({a, b, c});
  ASSERT_TRUE(ranked.has_value());
  EXPECT_THAT(ranked->why, HasSubstr("rank 2 spent 40.0 ms"));
  EXPECT_THAT(ranked->why, HasSubstr("the median rank's 12.0 ms"));
  // Collectives name their own straggler (collective_waits.h): host time says nothing of them.
  EXPECT_THAT(ranked->why, Not(HasSubstr("collective")));
  EXPECT_EQ(ranked->basis, "host_outside_cuda");
  a.rank = b.rank = c.rank = -1;
  const auto s = FindStraggler({a, b, c});
  ASSERT_TRUE(s.has_value());
  EXPECT_THAT(s->why, HasSubstr("pid 102 spent 40.0 ms"));
  EXPECT_THAT(s->why, HasSubstr("the median process's 12.0 ms"));
  EXPECT_THAT(s->why, Not(HasSubstr("rank")));
  EXPECT_THAT(s->why, Not(HasSubstr("collective")));
}

TEST(StragglerTest, LargeRatiosAreShortAndAZeroMedianIsFarOver) {
  auto s = FindStraggler({Rank(0, 0.15), Rank(1, 0.15), Rank(2, 300)});
  ASSERT_TRUE(s.has_value());
  EXPECT_THAT(s->why, HasSubstr("2000x the median rank's 150 us"));
  s = FindStraggler({Rank(0, 1), Rank(1, 1), Rank(2, 45)});
  ASSERT_TRUE(s.has_value());
  EXPECT_THAT(s->why, HasSubstr("45.0x"));
  s = FindStraggler({Rank(0, 0), Rank(1, 0), Rank(2, 20)});
  ASSERT_TRUE(s.has_value());
  EXPECT_THAT(s->why, HasSubstr("far over the median rank's 0 ns"));
}

TEST(StragglerTest, FigureSumsTheProcessDevicesAndSaturates) {
  ProcessRow row = Rank(0, 5);
  row.devices.push_back(row.devices[0]);
  EXPECT_EQ(StragglerFigure(row, true), 10 * kMs);
  EXPECT_EQ(StragglerFigure(row, false), 1000 * kMs);
  row.devices[0].idle.host_outside_cuda_ns = INT64_MAX;
  EXPECT_EQ(StragglerFigure(row, true), INT64_MAX);
  row.devices[1].idle.host_outside_cuda_ns = -5;  // hostile: ignored
  EXPECT_EQ(StragglerFigure(row, true), INT64_MAX);
}

}  // namespace
}  // namespace brrr::job
