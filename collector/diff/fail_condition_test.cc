// The --fail-if parser, every malformed form, and when a condition holds.
#include "collector/diff/fail_condition.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::diff {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kNames = {"step_wall_p50_ns", "stalls_per_step", "device_busy_pct"};

TEST(FailConditionTest, ParsesEveryForm) {
  auto c = ParseFailCondition("step_wall_p50_ns > +10%", kNames);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->metric, "step_wall_p50_ns");
  EXPECT_EQ(c->op, FailCondition::Op::kGreater);
  EXPECT_DOUBLE_EQ(c->value, 10);
  EXPECT_TRUE(c->percent);
  c = ParseFailCondition("stalls_per_step>=+0", kNames);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->op, FailCondition::Op::kGreaterEqual);
  EXPECT_FALSE(c->percent);
  c = ParseFailCondition("  device_busy_pct <  -5  ", kNames);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->op, FailCondition::Op::kLess);
  EXPECT_DOUBLE_EQ(c->value, -5);
  c = ParseFailCondition("device_busy_pct <= -2.5%", kNames);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->op, FailCondition::Op::kLessEqual);
  EXPECT_DOUBLE_EQ(c->value, -2.5);
  EXPECT_TRUE(ParseFailCondition("stalls_per_step > 3", kNames).ok());  // unsigned: fine
}

TEST(FailConditionTest, RefusesEveryMalformedForm) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"step_wall_p50_ns", "no comparison"},
      {"> +10%", "no metric"},
      {"step_wall_p50_ns >", "no value"},
      {"step_wall_p50_ns > %", "is not a number"},
      {"step_wall_p50_ns > ten%", "'ten' is not a number"},
      {"step_wall_p50_ns > +10%%", "is not a number"},
      {"step_wall_p50_ns > +1e400", "is not a number"},
      {"step_wall_p50_ns > nan", "is not a number"},
      {"step_wall_p50_ns >> 1", "more than one comparison"},
      {"step_wall_p50_ns > 1 < 2", "more than one comparison"},
      {"step_wall_p50_ns =< 1", "'step_wall_p50_ns =' is not a metric name"},
      {"step wall > 1", "'step wall' is not a metric name"},
      {"wall > +1%", "unknown metric 'wall' (one of step_wall_p50_ns, stalls_per_step,"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseFailCondition(c.text, kNames);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.says)) << c.text;
  }
}

ReportDiff Diff(double wall_a, double wall_b, bool wall_significant, double stalls_a,
                double stalls_b) {
  ReportDiff d;
  DiffMetric wall;
  wall.name = "step_wall_p50_ns";
  wall.a = wall_a;
  wall.b = wall_b;
  wall.delta = wall_b - wall_a;
  wall.delta_pct = 100 * (wall_b - wall_a) / wall_a;
  wall.significant = wall_significant;
  DiffMetric stalls;
  stalls.name = "stalls_per_step";
  stalls.count = true;
  stalls.a = stalls_a;
  stalls.b = stalls_b;
  stalls.delta = stalls_b - stalls_a;
  if (stalls_a != 0) stalls.delta_pct = 100 * (stalls_b - stalls_a) / stalls_a;
  d.metrics = {wall, stalls};
  return d;
}

// A timing holds only when significant; a count on any change the comparison accepts.
TEST(FailConditionTest, TimingsNeedSignificanceCountsAnyChange) {
  const auto slower = *ParseFailCondition("step_wall_p50_ns > +10%", kNames);
  EXPECT_TRUE(Holds(slower, Diff(100, 120, true, 1, 1)));
  EXPECT_FALSE(Holds(slower, Diff(100, 120, false, 1, 1))) << "noise";
  EXPECT_FALSE(Holds(slower, Diff(100, 105, true, 1, 1))) << "under the threshold";
  EXPECT_FALSE(Holds(slower, Diff(100, 80, true, 1, 1))) << "faster";
  const auto more_stalls = *ParseFailCondition("stalls_per_step > +0", kNames);
  EXPECT_TRUE(Holds(more_stalls, Diff(100, 100, false, 1, 2)));
  EXPECT_FALSE(Holds(more_stalls, Diff(100, 100, false, 1, 1)));
  EXPECT_FALSE(Holds(more_stalls, Diff(100, 100, false, 1, 0)));
  const auto fewer = *ParseFailCondition("stalls_per_step <= -50%", kNames);
  EXPECT_TRUE(Holds(fewer, Diff(100, 100, false, 2, 1)));
  // From zero: +inf%.
  const auto any_new = *ParseFailCondition("stalls_per_step > +100%", kNames);
  EXPECT_TRUE(Holds(any_new, Diff(100, 100, false, 0, 1)));
  EXPECT_FALSE(Holds(any_new, Diff(100, 100, false, 0, 0)));
}

}  // namespace
}  // namespace brrr::diff
