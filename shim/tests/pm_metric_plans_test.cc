// Tests for the PM sampler's metric sets (shim/pm_metric_plans.h): every set yields all three
// figures, and the values combine as documented (SM: the largest, DRAM: the sum, a NaN stays).
#include "shim/pm_metric_plans.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace brrr::shim {
namespace {

TEST(PmMetricPlansTest, EverySetGivesEachFigureAndNamesItsMetrics) {
  ASSERT_GE(kMetricPlanCount, 2u);
  for (uint32_t p = 0; p < kMetricPlanCount; ++p) {
    const MetricPlan& plan = kMetricPlans[p];
    ASSERT_GE(plan.count, 3u) << plan.label;
    ASSERT_LE(plan.count, kMaxPlanMetrics) << plan.label;
    int sm = 0, dram = 0, active = 0;
    for (uint32_t i = 0; i < plan.count; ++i) {
      ASSERT_NE(plan.names[i], nullptr) << plan.label;
      EXPECT_NE(std::strstr(plan.names[i], ".avg.pct_of_peak_sustained_elapsed"), nullptr)
          << plan.names[i] << ": every figure is a share of peak";
      sm += plan.roles[i] == MetricRole::kSm;
      dram += plan.roles[i] == MetricRole::kDram;
      active += plan.roles[i] == MetricRole::kActive;
    }
    EXPECT_GE(sm, 1) << plan.label;
    EXPECT_GE(dram, 1) << plan.label;
    EXPECT_EQ(active, 1) << plan.label;
  }
  EXPECT_EQ(MetricPlanNumbered(0), nullptr);
  EXPECT_EQ(MetricPlanNumbered(1), &kMetricPlans[0]);
  EXPECT_EQ(MetricPlanNumbered(kMetricPlanCount + 1), nullptr);
}

TEST(PmMetricPlansTest, SmIsTheLargerShareAndDramTheSumOfReadsAndWrites) {
  const MetricPlan& plan = kMetricPlans[1];  // issue, tensor, read, write, active
  const double matmul[] = {22, 91, 7, 3, 99};
  CombinedFigures f = CombineFigures(plan, matmul);
  EXPECT_DOUBLE_EQ(f.sm, 91);
  EXPECT_DOUBLE_EQ(f.dram, 10);
  EXPECT_DOUBLE_EQ(f.active, 99);
  const double pointwise[] = {35, 0, 55, 30, 100};
  f = CombineFigures(plan, pointwise);
  EXPECT_DOUBLE_EQ(f.sm, 35);
  EXPECT_DOUBLE_EQ(f.dram, 85);
}

TEST(PmMetricPlansTest, ANanValueMakesItsFigureNanWhicheverPlaceItHas) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const MetricPlan& plan = kMetricPlans[1];
  const double first[] = {nan, 50, 1, 1, 90};
  const double second[] = {50, nan, 1, 1, 90};
  const double dram[] = {50, 40, nan, 1, 90};
  EXPECT_TRUE(std::isnan(CombineFigures(plan, first).sm));
  EXPECT_TRUE(std::isnan(CombineFigures(plan, second).sm));
  EXPECT_TRUE(std::isnan(CombineFigures(plan, dram).dram));
  EXPECT_DOUBLE_EQ(CombineFigures(plan, dram).sm, 50);
}

}  // namespace
}  // namespace brrr::shim
