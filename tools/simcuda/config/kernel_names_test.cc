// Tests of kernel name matching for BRRR_SIM_KERNELS: which key of a mangled name wins.
#include "kernel_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace simcuda::config {
namespace {

using ::testing::ElementsAre;

SimConfig WithOverrides(std::vector<KernelOverride> overrides) {
  SimConfig config;
  config.kernel_ns = 7;
  config.kernel_overrides = std::move(overrides);
  return config;
}

TEST(KernelNamesTest, DemanglesOrPassesThrough) {
  EXPECT_EQ(Demangle("_Z4tinyPf"), "tiny(float*)");
  EXPECT_EQ(Demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(Demangle(nullptr), "");
}

TEST(KernelNamesTest, KeysOfATemplateKernel) {
  EXPECT_THAT(KernelNameKeys("void ns::foo<float>(float*, int)"),
              ElementsAre("ns::foo<float>", "ns::foo", "foo"));
}

TEST(KernelNamesTest, KeysOfAPlainKernelHaveNoDuplicates) {
  EXPECT_THAT(KernelNameKeys("tiny(float*)"), ElementsAre("tiny"));
}

TEST(KernelNamesTest, KeysHandleFunctionPointerParameters) {
  EXPECT_THAT(KernelNameKeys("a::k(void (*)(int), int)"), ElementsAre("a::k", "k"));
}

TEST(KernelNamesTest, DefaultWhenNothingMatches) {
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"other", 1}}), "_Z4tinyPf"), 7u);
}

TEST(KernelNamesTest, MatchesByStrippedDemangledName) {
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"tiny", 11}}), "_Z4tinyPf"), 11u);
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"ns::foo", 12}}), "_ZN2ns3fooEi"), 12u);
}

TEST(KernelNamesTest, MatchesByUnqualifiedName) {
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"foo", 13}}), "_ZN2ns3fooEi"), 13u);
}

TEST(KernelNamesTest, MatchesByMangledName) {
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"_Z4tinyPf", 14}}), "_Z4tinyPf"), 14u);
}

TEST(KernelNamesTest, MoreSpecificKeyWinsOverEntryOrder) {
  const SimConfig config = WithOverrides({{"foo", 1}, {"ns::foo", 2}, {"ns::foo<float>", 3}});
  EXPECT_EQ(KernelDurationNs(config, "_ZN2ns3fooIfEEvPT_i"), 3u);
  EXPECT_EQ(KernelDurationNs(config, "_ZN2ns3fooIiEEvPT_i"), 2u);
  EXPECT_EQ(KernelDurationNs(config, "_ZN5other3fooEv"), 1u);
}

TEST(KernelNamesTest, PlainCNameMatchesItself) {
  EXPECT_EQ(KernelDurationNs(WithOverrides({{"ckern", 15}}), "ckern"), 15u);
}

}  // namespace
}  // namespace simcuda::config
