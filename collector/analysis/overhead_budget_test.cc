// Tests of OverheadBudget with hand-worked values: the share that spends margin x budget, the
// step limits, no A/B yet (a pessimistic cost assumed), tracing that adds nothing, and hooks that spend the budget alone.
#include "collector/analysis/overhead_budget.h"

#include <gtest/gtest.h>

namespace brrr {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// A budget of 2 % (margin 0.8: 1.6 % aimed at), 20 ns per record; the clock started at 0 with
// nothing done, then one second with `records` and `launches`.
std::optional<OverheadBudget::StepResult> OneSecond(uint64_t records, uint64_t launches,
                                                    std::optional<int64_t> added, double current) {
  OverheadBudget b(OverheadBudget::Options{}, 20);
  EXPECT_FALSE(b.Step({0, 0, 0, std::nullopt}, current).has_value()) << "starts the clock";
  return b.Step({kSecond, records, launches, added}, current);
}

TEST(OverheadBudgetTest, PicksTheShareThatSpendsTheMarginOfTheBudget) {
  // hooks 100,000 x 20 ns = 2 ms; tracing 100,000 x 10 % x 1,000 ns = 10 ms: 1.2 % of the second.
  // share = (0.8 x 2 % x 1 s - 2 ms) / (100,000 x 1,000 ns) = 14 ms / 100 ms = 0.14.
  const auto r = OneSecond(100'000, 100'000, 1'000, 0.1);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->cost_share, 0.012);
  EXPECT_DOUBLE_EQ(r->share, 0.14);
}

TEST(OverheadBudgetTest, MovesAtMostTwiceUpAndAQuarterDownPerStep) {
  // Tracing adds 10 ns a call: the formula says 14 (1,400 %); the step allows 0.2.
  EXPECT_DOUBLE_EQ(OneSecond(100'000, 100'000, 10, 0.1)->share, 0.2);
  // Hooks alone spend 2 % (1,000,000 x 20 ns = 20 ms): the formula goes below 0; the step allows
  // a quarter of the current share.
  const auto r = OneSecond(1'000'000, 100'000, 1'000, 0.1);
  EXPECT_DOUBLE_EQ(r->share, 0.025);
  EXPECT_DOUBLE_EQ(r->cost_share, 0.03);  // 20 ms of hooks + 10 ms of tracing
}

TEST(OverheadBudgetTest, AssumesCostlyTracingWithoutAnAbAndGrowsWhenTracingAddsNothing) {
  // No A/B yet: 5,000 ns a call assumed. (16 ms - 2 ms) / (100,000 x 5,000 ns) = 0.028.
  EXPECT_DOUBLE_EQ(OneSecond(100'000, 100'000, std::nullopt, 0.1)->share, 0.028);
  // A slow loop (100 launches a second): room for far more; grows by the step's factor.
  EXPECT_DOUBLE_EQ(OneSecond(100, 100, std::nullopt, 0.02)->share, 0.04);
  EXPECT_DOUBLE_EQ(OneSecond(100'000, 100'000, 0, 0.1)->share, 0.2);
  EXPECT_DOUBLE_EQ(OneSecond(100'000, 0, 1'000, 0.6)->share, 0.9) << "capped at max_share";
}

TEST(OverheadBudgetTest, HooksThatSpendTheBudgetAloneStepItDownEvenWhenTracingAddsNothing) {
  // 1,000,000 x 20 ns = 20 ms of hooks: over the 16 ms aimed at. An A/B that sees nothing added
  // (0 ns, as a loaded machine's medians can) or none yet still steps down a quarter: 0.1 -> 0.025.
  EXPECT_DOUBLE_EQ(OneSecond(1'000'000, 100'000, 0, 0.1)->share, 0.025);
  EXPECT_DOUBLE_EQ(OneSecond(1'000'000, 100'000, std::nullopt, 0.1)->share, 0.025);
  EXPECT_DOUBLE_EQ(OneSecond(1'000'000, 0, 0, 0.1)->share, 0.025) << "nothing launched";
  // 800,000 x 20 ns = 16 ms: exactly the margin, no room left either.
  EXPECT_DOUBLE_EQ(OneSecond(800'000, 100'000, 0, 0.1)->share, 0.025);
}

TEST(OverheadBudgetTest, NeverLeavesItsBoundsAndWaitsForAWholeStep) {
  EXPECT_DOUBLE_EQ(OneSecond(10'000'000, 100'000, 1'000, 0.006)->share, 0.005);
  EXPECT_DOUBLE_EQ(OneSecond(100'000, 100'000, 1'000, 0.9)->share, 0.225) << "0.14, a quarter";
  OverheadBudget b(OverheadBudget::Options{}, 20);
  EXPECT_FALSE(b.Step({0, 0, 0, 1'000}, 0.1).has_value());
  EXPECT_FALSE(b.Step({kSecond / 2, 50, 50, 1'000}, 0.1).has_value());
  EXPECT_TRUE(b.Step({kSecond, 100, 100, 1'000}, 0.1).has_value());
  // Counters that went backwards (a damaged header) count as nothing done.
  const auto r = b.Step({2 * kSecond, 0, 0, 1'000}, 0.1);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->cost_share, 0);
}

}  // namespace
}  // namespace brrr
