// A malformed BRRR_SIM_* value stops a simulated-stack program with a clear message naming the
// variable, instead of running with a silently wrong device model. Runs sim_probe as a child
// process with one bad variable each; a control run with the good settings must succeed.
// Must never run the probe without a deadline.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "child_process.h"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

constexpr std::chrono::milliseconds kDeadline{30000};

TEST(BadSettingsTest, ProbeRunsWithTheGoodSettings) {
  const ChildResult result = RunChild({SIM_PROBE_PATH, "roundtrip"}, {}, kDeadline);
  ASSERT_TRUE(result.exited) << result.Describe();
  EXPECT_EQ(result.exit_code, 0) << result.Describe();
  EXPECT_NE(result.out.find("probe ok"), std::string::npos) << result.Describe();
}

struct BadSetting {
  const char* name;
  const char* value;
};

class BadSettingTest : public ::testing::TestWithParam<BadSetting> {};

TEST_P(BadSettingTest, StopsTheProgramNamingTheVariable) {
  const BadSetting& bad = GetParam();
  const ChildResult result =
      RunChild({SIM_PROBE_PATH, "roundtrip"}, {{bad.name, bad.value}}, kDeadline);
  ASSERT_TRUE(result.started) << result.Describe();
  EXPECT_FALSE(result.timed_out) << result.Describe();
  EXPECT_FALSE(result.exited && result.exit_code == 0)
      << bad.name << "=" << bad.value << " was accepted: " << result.Describe();
  EXPECT_TRUE(result.exited || result.signal == SIGABRT)
      << "crashed instead of stopping: " << result.Describe();
  EXPECT_NE(result.err.find(bad.name), std::string::npos)
      << "stderr does not name the variable: " << result.Describe();
  EXPECT_EQ(result.out.find("probe ok"), std::string::npos) << result.Describe();
}

INSTANTIATE_TEST_SUITE_P(Malformed, BadSettingTest,
                         ::testing::Values(BadSetting{"BRRR_SIM_KERNEL_NS", "abc"},
                                           BadSetting{"BRRR_SIM_KERNEL_NS", "12ms"},
                                           BadSetting{"BRRR_SIM_LAUNCH_NS", "-5"},
                                           BadSetting{"BRRR_SIM_COPY_GBPS", "fast"},
                                           BadSetting{"BRRR_SIM_COPY_GBPS", "0"},
                                           BadSetting{"BRRR_SIM_KERNELS", "tiny"},
                                           BadSetting{"BRRR_SIM_KERNELS", "tiny=soon"}),
                         [](const ::testing::TestParamInfo<BadSetting>& info) {
                           return std::string(info.param.name).substr(9) + "_" +
                                  std::to_string(info.index);
                         });

}  // namespace
}  // namespace brrr::simtest
