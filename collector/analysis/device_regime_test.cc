// Tests of the device regime with hand-worked shares: by kernel classes (compute, bandwidth,
// mixed, no kernels) and by hardware counters, and the reason counters were not used.
#include "collector/analysis/device_regime.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

DeviceRegime ByClasses(std::vector<KernelClassStat> classes) {
  DeviceRegimeInputs in;
  in.classes = std::move(classes);
  return DecideDeviceRegime(in);
}

TEST(DeviceRegimeTest, GemmAndAttentionDominatingIsCompute) {
  // 500 + 300 of 1000 ns compute-capable (80%), 150 + 50 bandwidth-bound (20%).
  const DeviceRegime r = ByClasses(
      {{"matmul", 10, 500}, {"attention", 5, 300}, {"pointwise", 40, 150}, {"reduction", 8, 50}});
  EXPECT_EQ(r.regime, "compute");
  EXPECT_EQ(r.basis, "kernel classes");
  EXPECT_THAT(r.why, HasSubstr("inferred from kernel names, not measured"));
  EXPECT_THAT(r.why, HasSubstr("matmul/convolution/attention 80.0% of kernel time"));
  EXPECT_THAT(r.why, HasSubstr("pointwise/reduction/copy 20.0%"));
  EXPECT_THAT(r.why, Not(HasSubstr("communication")));
}

TEST(DeviceRegimeTest, PointwiseAndReductionsDominatingIsBandwidth) {
  // 520 + 280 of 1000 ns bandwidth-bound (80%).
  const DeviceRegime r =
      ByClasses({{"pointwise", 100, 520}, {"reduction", 30, 280}, {"matmul", 2, 200}});
  EXPECT_EQ(r.regime, "bandwidth");
  EXPECT_THAT(r.why, HasSubstr("pointwise/reduction/copy 80.0%"));
}

TEST(DeviceRegimeTest, NeitherSideAtSixtyPercentIsMixed) {
  // compute 500 (50%), bandwidth 400 (40%), communication 100 (10%).
  const DeviceRegime r =
      ByClasses({{"matmul", 1, 500}, {"pointwise", 1, 400}, {"communication", 1, 100}});
  EXPECT_EQ(r.regime, "mixed");
  EXPECT_THAT(r.why, HasSubstr("communication 10.0%"));
  // Exactly 60% decides.
  EXPECT_EQ(ByClasses({{"matmul", 1, 600}, {"other", 1, 400}}).regime, "compute");
  EXPECT_EQ(ByClasses({{"matmul", 1, 599}, {"other", 1, 401}}).regime, "mixed");
}

TEST(DeviceRegimeTest, NamesThatSayNeitherAreSaidSo) {
  // compute 20%, bandwidth 20%, other 60%: mixed, and the names say little.
  const DeviceRegime r = ByClasses({{"matmul", 1, 200}, {"pointwise", 1, 200}, {"other", 1, 600}});
  EXPECT_EQ(r.regime, "mixed");
  EXPECT_THAT(r.why, HasSubstr("most kernel time is in kernels whose names say neither"));
  EXPECT_THAT(r.why, HasSubstr("other 60.0%"));
  EXPECT_THAT(ByClasses({{"matmul", 1, 500}, {"other", 1, 500}}).why,
              Not(HasSubstr("say neither")));
}

TEST(DeviceRegimeTest, NoKernelTimeMeansCopies) {
  const DeviceRegime r = ByClasses({});
  EXPECT_EQ(r.regime, "bandwidth");
  EXPECT_THAT(r.why, HasSubstr("copy engines"));
}

TEST(DeviceRegimeTest, CountersDecideWhenPresent) {
  DeviceRegimeInputs in;
  in.classes = {{"pointwise", 1, 1000}};  // would say bandwidth
  in.counters = CounterThroughput{72.0, 30.0, 118};
  DeviceRegime r = DecideDeviceRegime(in);
  EXPECT_EQ(r.regime, "compute");
  EXPECT_EQ(r.basis, "hardware counters");
  EXPECT_THAT(r.why, HasSubstr("118 samples"));
  EXPECT_THAT(r.why, HasSubstr("SM throughput 72.0% of peak, DRAM throughput 30.0%"));
  in.counters = CounterThroughput{20.0, 85.0, 5};
  EXPECT_EQ(DecideDeviceRegime(in).regime, "bandwidth");
  in.counters = CounterThroughput{40.0, 45.0, 5};
  EXPECT_EQ(DecideDeviceRegime(in).regime, "mixed");
}

TEST(DeviceRegimeTest, CountersNotUsedSaysWhyAndFallsBackToClasses) {
  DeviceRegimeInputs in;
  in.classes = {{"matmul", 1, 900}, {"pointwise", 1, 100}};
  in.counters_unavailable = "not permitted (ERR_NVGPUCTRPERM)";
  const DeviceRegime r = DecideDeviceRegime(in);
  EXPECT_EQ(r.regime, "compute");
  EXPECT_EQ(r.basis, "kernel classes");
  EXPECT_THAT(r.why, HasSubstr("hardware counters not used: not permitted (ERR_NVGPUCTRPERM)"));
}

}  // namespace
}  // namespace brrr
