// Tests kernel statistics: demangling, per-name totals, top ordering, the distinct-name cap.
#include "collector/analysis/kernel_stats.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(KernelStatsTest, Demangles) {
  EXPECT_EQ(DemangleKernelName("_Z6squarePfi"), "square(float*, int)");
  EXPECT_EQ(DemangleKernelName("_Z3addIfEvPT_S1_i"), "void add<float>(float*, float*, int)");
  EXPECT_EQ(DemangleKernelName("plain_kernel"), "plain_kernel");
  EXPECT_EQ(DemangleKernelName("_Znot a valid mangling"), "_Znot a valid mangling");
  EXPECT_EQ(DemangleKernelName(""), "");
}

TEST(KernelStatsTest, TotalsAndTopOrder) {
  KernelStats k;
  for (int i = 0; i < 10; ++i) k.Add("_Z1av", 100);  // 1000 ns total
  for (int i = 0; i < 2; ++i) k.Add("_Z1bv", 900);   // 1800 ns total
  k.Add("c", 50);
  EXPECT_EQ(k.launches(), 13u);
  EXPECT_EQ(k.device_ns(), 2850);
  std::vector<KernelStat> top = k.Top(2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "b()");
  EXPECT_EQ(top[0].launches, 2u);
  EXPECT_EQ(top[0].device_ns, 1800);
  EXPECT_EQ(top[0].mean_ns, 900);
  EXPECT_EQ(top[1].name, "a()");
  EXPECT_EQ(top[1].mean_ns, 100);
}

TEST(KernelStatsTest, MangledAndPlainSpellingsMerge) {
  KernelStats k;
  k.Add("_Z6squarePfi", 10);
  k.Add("square(float*, int)", 30);
  std::vector<KernelStat> top = k.Top(20);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].launches, 2u);
  EXPECT_EQ(top[0].device_ns, 40);
}

TEST(KernelStatsTest, NamesBeyondTheCapFoldIntoOther) {
  KernelStats k(/*max_names=*/3);
  k.Add("k1", 1);
  k.Add("k2", 2);
  k.Add("k3", 3);
  k.Add("k4", 40);
  k.Add("k5", 50);
  k.Add("k1", 1);
  EXPECT_EQ(k.launches(), 6u);
  EXPECT_EQ(k.folded_launches(), 2u);
  EXPECT_LE(k.distinct_names(), 4u);
  std::vector<KernelStat> top = k.Top(20);
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top[0].name, "<other>");
  EXPECT_EQ(top[0].launches, 2u);
  EXPECT_EQ(top[0].device_ns, 90);
}

// The segment's name ids (DeviceOp.name_id) find a name without hashing it: launches under an id
// land on the name first seen with it, and a name folded into <other> is still counted as folded
// at each launch.
TEST(KernelStatsTest, NameIdsFindTheirNameAndFoldedLaunchesAreStillCounted) {
  KernelStats k(/*max_names=*/2);
  k.Add("k1", 10, /*name_id=*/7);
  k.Add("k2", 20, /*name_id=*/3);
  k.Add("k1", 1, 7);
  k.Add("k3", 300, /*name_id=*/9);  // over the cap
  k.Add("k3", 300, 9);
  k.Add("k2", 2);  // no id: by name, the same row
  EXPECT_EQ(k.folded_launches(), 2u);
  std::vector<KernelStat> top = k.Top(20);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].name, "<other>");
  EXPECT_EQ(top[0].launches, 2u);
  EXPECT_EQ(top[1].name, "k2");
  EXPECT_EQ(top[1].launches, 2u);
  EXPECT_EQ(top[1].device_ns, 22);
  EXPECT_EQ(top[2].name, "k1");
  EXPECT_EQ(top[2].launches, 2u);
  EXPECT_EQ(top[2].device_ns, 11);
}

}  // namespace
}  // namespace brrr

namespace brrr {
namespace {

// Similar names (same length, same last and middle bytes), passed from one reused buffer and
// from their own storage, interleaved: each launch must land on its own name.
TEST(KernelStatsTest, InterleavedSimilarNamesStayApart) {
  KernelStats k;
  const std::vector<std::string> names = {
      "kAx_1", "kBx_1", "kCx_1", "kAy_2", "kBy_2", "longer_kernel_name", "kAx_1z"};
  std::string reused;  // one buffer holding a different name each time
  for (int round = 0; round < 50; ++round) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (round % 2 == 0) {
        k.Add(names[i], static_cast<int64_t>(i + 1));
      } else {
        reused.assign(names[i]);
        k.Add(reused, static_cast<int64_t>(i + 1));
      }
    }
  }
  EXPECT_EQ(k.distinct_names(), names.size());
  std::vector<KernelStat> top = k.Top(names.size());
  ASSERT_EQ(top.size(), names.size());
  for (const KernelStat& stat : top) {
    const auto it = std::find(names.begin(), names.end(), stat.name);
    ASSERT_NE(it, names.end()) << stat.name;
    const int64_t per_launch = (it - names.begin()) + 1;
    EXPECT_EQ(stat.launches, 50u) << stat.name;
    EXPECT_EQ(stat.device_ns, 50 * per_launch) << stat.name;
  }
}

TEST(KernelStatsTest, ClassesAddUpToTheKernelsAndTopRowsCarryTheirClass) {
  KernelStats k(/*max_names=*/3);
  for (int i = 0; i < 4; ++i) k.Add("ampere_sgemm_128x64_nn", 1'000);  // matmul 4000
  k.Add(
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEE"
      "EviT0_T1_",
      300);                                   // pointwise 300
  k.Add("triton_red_fused__softmax_0", 200);  // reduction 200
  k.Add("flash_fwd_kernel", 5'000);           // over the cap: folded into <other>
  k.Add("triton_poi_fused_add_0", 7);         // folded too
  const std::vector<KernelClassStat> classes = k.Classes();
  ASSERT_EQ(classes.size(), 4u);
  EXPECT_EQ(classes[0].kernel_class, "other");  // the folded names: 5007 ns, 2 launches
  EXPECT_EQ(classes[0].device_ns, 5'007);
  EXPECT_EQ(classes[0].launches, 2u);
  EXPECT_EQ(classes[1].kernel_class, "matmul");
  EXPECT_EQ(classes[1].device_ns, 4'000);
  EXPECT_EQ(classes[1].launches, 4u);
  EXPECT_EQ(classes[2].kernel_class, "pointwise");
  EXPECT_EQ(classes[2].device_ns, 300);
  EXPECT_EQ(classes[3].kernel_class, "reduction");
  int64_t ns = 0;
  uint64_t launches = 0;
  for (const KernelClassStat& c : classes) {
    ns += c.device_ns;
    launches += c.launches;
  }
  EXPECT_EQ(ns, k.device_ns());
  EXPECT_EQ(launches, k.launches());
  const std::vector<KernelStat> top = k.Top(10);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].name, "<other>");
  EXPECT_EQ(top[0].kernel_class, "other");
  EXPECT_EQ(top[1].kernel_class, "matmul");
  EXPECT_EQ(top[2].name.rfind("void at::native::vectorized_elementwise_kernel<4,", 0), 0u)
      << top[2].name;
  EXPECT_EQ(top[2].kernel_class, "pointwise");
}

}  // namespace
}  // namespace brrr
