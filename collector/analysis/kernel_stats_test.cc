// Tests kernel statistics: demangling, per-name totals, top ordering, the distinct-name cap.
#include "collector/analysis/kernel_stats.h"

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

}  // namespace
}  // namespace brrr
