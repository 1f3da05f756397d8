// Tests of the BRRR_SIM_* parser: defaults, good values, and every kind of malformed value
// producing an error that names the variable and the value.
#include "sim_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace simcuda::config {
namespace {

using ::testing::HasSubstr;

Parsed<SimConfig> ParseWith(const std::map<std::string, std::string>& env) {
  return ParseSimConfig([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(SimConfigTest, UnsetVariablesGiveDefaults) {
  const auto parsed = ParseWith({});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value->kernel_ns, 5000u);
  EXPECT_EQ(parsed.value->launch_ns, 2000u);
  EXPECT_EQ(parsed.value->queue_depth, 1024u);
  EXPECT_DOUBLE_EQ(parsed.value->copy_gbps, 20.0);
  EXPECT_TRUE(parsed.value->kernel_overrides.empty());
}

TEST(SimConfigTest, ReadsAllVariables) {
  const auto parsed = ParseWith({{"BRRR_SIM_KERNEL_NS", "123"},
                                 {"BRRR_SIM_LAUNCH_NS", "0"},
                                 {"BRRR_SIM_QUEUE_DEPTH", "0"},
                                 {"BRRR_SIM_COPY_GBPS", "2.5"},
                                 {"BRRR_SIM_KERNELS", "tiny=10,ns::foo<int, 2>=20"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value->kernel_ns, 123u);
  EXPECT_EQ(parsed.value->launch_ns, 0u);
  EXPECT_EQ(parsed.value->queue_depth, 0u);
  EXPECT_DOUBLE_EQ(parsed.value->copy_gbps, 2.5);
  ASSERT_EQ(parsed.value->kernel_overrides.size(), 2u);
  EXPECT_EQ(parsed.value->kernel_overrides[0].name, "tiny");
  EXPECT_EQ(parsed.value->kernel_overrides[0].duration_ns, 10u);
  EXPECT_EQ(parsed.value->kernel_overrides[1].name, "ns::foo<int, 2>");
  EXPECT_EQ(parsed.value->kernel_overrides[1].duration_ns, 20u);
}

TEST(SimConfigTest, CollectiveGroupNeedsNameAndSize) {
  auto parsed = ParseWith({{"BRRR_SIM_NCCL_GROUP", "job-7.a_b"},
                           {"BRRR_SIM_NCCL_SIZE", "4"},
                           {"BRRR_SIM_NCCL_RANK", "3"},
                           {"BRRR_SIM_NCCL_TIMEOUT_MS", "250"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value->nccl_group, "job-7.a_b");
  EXPECT_EQ(parsed.value->nccl_size, 4u);
  EXPECT_EQ(parsed.value->nccl_rank, 3u);
  EXPECT_EQ(parsed.value->nccl_timeout_ns, 250'000'000u);
  parsed = ParseWith({});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_TRUE(parsed.value->nccl_group.empty());
  EXPECT_FALSE(parsed.value->nccl_rank.has_value());
  EXPECT_EQ(parsed.value->nccl_timeout_ns, 60'000'000'000u);

  EXPECT_THAT(ParseWith({{"BRRR_SIM_NCCL_GROUP", "g"}}).error,
              HasSubstr("BRRR_SIM_NCCL_GROUP is set but BRRR_SIM_NCCL_SIZE is not"));
  EXPECT_THAT(ParseWith({{"BRRR_SIM_NCCL_SIZE", "2"}}).error,
              HasSubstr("BRRR_SIM_NCCL_SIZE is set but BRRR_SIM_NCCL_GROUP is not"));
  for (const char* bad_name : {"", "a/b", "has space", "../x"}) {
    EXPECT_THAT(ParseWith({{"BRRR_SIM_NCCL_GROUP", bad_name}, {"BRRR_SIM_NCCL_SIZE", "2"}}).error,
                HasSubstr("is not a group name"))
        << bad_name;
  }
  for (const char* bad_size : {"1", "65", "x", "-2"}) {
    EXPECT_THAT(ParseWith({{"BRRR_SIM_NCCL_GROUP", "g"}, {"BRRR_SIM_NCCL_SIZE", bad_size}}).error,
                HasSubstr("is not a group size (2 to 64)"))
        << bad_size;
  }
  EXPECT_THAT(
      ParseWith(
          {{"BRRR_SIM_NCCL_GROUP", "g"}, {"BRRR_SIM_NCCL_SIZE", "2"}, {"BRRR_SIM_NCCL_RANK", "2"}})
          .error,
      HasSubstr("'2' is not a rank of a group of 2"));
  EXPECT_THAT(ParseWith({{"BRRR_SIM_NCCL_GROUP", "g"},
                         {"BRRR_SIM_NCCL_SIZE", "2"},
                         {"BRRR_SIM_NCCL_TIMEOUT_MS", "0"}})
                  .error,
              HasSubstr("is not a timeout in milliseconds"));
}

TEST(SimConfigTest, NanosecondsAcceptsTheFullRange) {
  EXPECT_EQ(*ParseNanoseconds("V", "0").value, 0u);
  EXPECT_EQ(*ParseNanoseconds("V", "18446744073709551615").value, UINT64_MAX);
}

TEST(SimConfigTest, NanosecondsRejectsMalformedValues) {
  for (const char* text : {"", " ", "12x", "-1", "+5", " 5", "5 ", "1.5", "0x10", "abc"}) {
    const auto parsed = ParseNanoseconds("BRRR_SIM_KERNEL_NS", text);
    EXPECT_FALSE(parsed.ok()) << "'" << text << "'";
    EXPECT_THAT(parsed.error, HasSubstr("BRRR_SIM_KERNEL_NS")) << text;
    EXPECT_THAT(parsed.error, HasSubstr(std::string("'") + text + "'"));
  }
}

TEST(SimConfigTest, NanosecondsErrorMessageIsExact) {
  EXPECT_EQ(ParseNanoseconds("BRRR_SIM_KERNEL_NS", "12x").error,
            "BRRR_SIM_KERNEL_NS: '12x' is not a non-negative integer number of nanoseconds");
}

TEST(SimConfigTest, NanosecondsRejectsOverflow) {
  const auto parsed = ParseNanoseconds("BRRR_SIM_LAUNCH_NS", "18446744073709551616");
  EXPECT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error, HasSubstr("too large"));
}

TEST(SimConfigTest, GbpsAcceptsPositiveDecimals) {
  EXPECT_DOUBLE_EQ(*ParseGbps("V", "20").value, 20.0);
  EXPECT_DOUBLE_EQ(*ParseGbps("V", "0.5").value, 0.5);
  EXPECT_DOUBLE_EQ(*ParseGbps("V", ".25").value, 0.25);
  EXPECT_DOUBLE_EQ(*ParseGbps("V", "1e3").value, 1000.0);
}

TEST(SimConfigTest, GbpsRejectsNonPositiveAndJunk) {
  for (const char* text : {"", "0", "0.0", "-1", "inf", "nan", "1e999", "3GB", " 3", "x"}) {
    const auto parsed = ParseGbps("BRRR_SIM_COPY_GBPS", text);
    EXPECT_FALSE(parsed.ok()) << "'" << text << "'";
    EXPECT_THAT(parsed.error, HasSubstr("BRRR_SIM_COPY_GBPS: '"));
  }
}

TEST(SimConfigTest, KernelOverridesTrimSpacesAroundNames) {
  const auto parsed = ParseKernelOverrides("K", "a=1, b=2");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  ASSERT_EQ(parsed.value->size(), 2u);
  EXPECT_EQ((*parsed.value)[1].name, "b");
  EXPECT_EQ((*parsed.value)[1].duration_ns, 2u);
}

TEST(SimConfigTest, KernelOverridesRejectMalformedLists) {
  const std::map<std::string, std::string> cases = {
      {"", "empty"},
      {"  ", "empty"},
      {"tiny", "no '='"},
      {"=5", "empty kernel name"},
      {"tiny=", "'' is not"},
      {"tiny=-3", "'-3' is not"},
      {"tiny=5x", "'5x' is not"},
      {"a=1,,b=2", "empty entry"},
      {"a=1,", "empty entry"},
      {"a=1,a=2", "more than once"},
  };
  for (const auto& [text, expected] : cases) {
    const auto parsed = ParseKernelOverrides("BRRR_SIM_KERNELS", text);
    EXPECT_FALSE(parsed.ok()) << "'" << text << "'";
    EXPECT_THAT(parsed.error, HasSubstr("BRRR_SIM_KERNELS")) << text;
    EXPECT_THAT(parsed.error, HasSubstr(expected)) << text;
  }
}

TEST(SimConfigTest, FirstMalformedVariableMakesTheWholeConfigAnError) {
  const auto parsed = ParseWith({{"BRRR_SIM_KERNEL_NS", "5"}, {"BRRR_SIM_COPY_GBPS", "-2"}});
  EXPECT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error, HasSubstr("BRRR_SIM_COPY_GBPS: '-2'"));
}

TEST(SimConfigTest, SetButEmptyVariableIsAnError) {
  const auto parsed = ParseWith({{"BRRR_SIM_LAUNCH_NS", ""}});
  EXPECT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error, HasSubstr("BRRR_SIM_LAUNCH_NS: ''"));
}

}  // namespace
}  // namespace simcuda::config
