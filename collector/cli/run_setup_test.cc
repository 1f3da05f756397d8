// Tests of `brrr run`'s geometry and child environment.
#include "collector/cli/run_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace brrr::cli {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

GetEnv FakeEnv(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(RunGeometryTest, OptionBeatsEnvironmentAndBadValuesWarn) {
  std::vector<std::string> warnings;
  const auto warn = [&](const std::string& w) { warnings.push_back(w); };
  RunOptions options;
  options.ring_records = 256;
  auto g = RunGeometry(options, FakeEnv({{"BRRR_RING_RECORDS", "64"}}), warn);
  EXPECT_EQ(g.ring_capacity, 256u);
  g = RunGeometry(RunOptions{}, FakeEnv({{"BRRR_RING_RECORDS", "64"}, {"BRRR_MAX_THREADS", "8"}}),
                  warn);
  EXPECT_EQ(g.ring_capacity, 64u);
  EXPECT_EQ(g.max_threads, 8u);
  EXPECT_TRUE(warnings.empty());
  g = RunGeometry(RunOptions{}, FakeEnv({{"BRRR_RING_RECORDS", "63"}, {"BRRR_MAX_THREADS", "0"}}),
                  warn);
  EXPECT_EQ(g.ring_capacity, ring::kDefaultRingCapacity);
  EXPECT_EQ(g.max_threads, ring::kDefaultMaxThreads);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("BRRR_RING_RECORDS=63"));
  EXPECT_THAT(warnings[0], HasSubstr("using the default"));
  EXPECT_THAT(warnings[1], HasSubstr("BRRR_MAX_THREADS=0"));
}

TEST(RunGeometryTest, DeviceRecordsFromEnvironment) {
  std::vector<std::string> warnings;
  const auto warn = [&](const std::string& w) { warnings.push_back(w); };
  EXPECT_EQ(
      RunGeometry(RunOptions{}, FakeEnv({{"BRRR_DEVICE_RECORDS", "4096"}}), warn).device_capacity,
      4096u);
  EXPECT_TRUE(warnings.empty());
  for (const char* bad : {"4095", "4", "abc", "8388608"}) {
    EXPECT_EQ(
        RunGeometry(RunOptions{}, FakeEnv({{"BRRR_DEVICE_RECORDS", bad}}), warn).device_capacity,
        ring::kDefaultDeviceCapacity)
        << bad;
  }
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_THAT(warnings[0], HasSubstr("BRRR_DEVICE_RECORDS=4095"));
}

TEST(RunGeometryTest, TooBigTogetherFallsBackToDefaults) {
  std::vector<std::string> warnings;
  RunOptions options;
  options.ring_records = ring::kMaxRingCapacity;
  auto g = RunGeometry(options, FakeEnv({{"BRRR_MAX_THREADS", "4096"}}),
                       [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_TRUE(ring::IsValidGeometry(g));
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(ChildEnvironmentTest, PrependsTheShimAndSetsTheSegment) {
  RunOptions options;
  options.no_stacks = true;
  const auto env = ChildEnvironment(
      {"HOME=/root", "LD_PRELOAD=/other.so", "BRRR_SHM=/stale", "BRRR_STACKS=1", "PATH=/bin"},
      "/brrr-1-2", "/opt/brrr/libbrrr.so", options);
  EXPECT_THAT(env, Contains("LD_PRELOAD=/opt/brrr/libbrrr.so:/other.so"));
  EXPECT_THAT(env, Contains("BRRR_SHM=/brrr-1-2"));
  EXPECT_THAT(env, Contains("BRRR_STACKS=0"));
  EXPECT_THAT(env, Not(Contains("BRRR_STACKS=1")));
  EXPECT_THAT(env, Not(Contains("BRRR_SHM=/stale")));
  EXPECT_THAT(env, Contains("HOME=/root"));
  EXPECT_THAT(env, Contains("PATH=/bin"));
  EXPECT_THAT(env, Not(Contains("BRRR_CUPTI=0")));
  const auto sanitized = ChildEnvironment(
      {"LD_PRELOAD=/usr/lib/libfoo.so /usr/lib/gcc/libasan.so.8"}, "/s", "/l.so", RunOptions{});
  EXPECT_THAT(sanitized, Contains("LD_PRELOAD=/usr/lib/gcc/libasan.so.8:/l.so:/usr/lib/libfoo.so"));
  const auto plain = ChildEnvironment({"A=1"}, "/s", "/l.so", RunOptions{});
  EXPECT_THAT(plain, Contains("LD_PRELOAD=/l.so"));
}

TEST(ChildEnvironmentTest, PythonDirectoryGoesFirstOnPythonPath) {
  EXPECT_THAT(WithPythonDirectory({"A=1"}, "/opt/brrr/python"),
              ElementsAre("A=1", "PYTHONPATH=/opt/brrr/python"));
  EXPECT_THAT(WithPythonDirectory({"PYTHONPATH=/mine:/theirs", "B=2"}, "/p"),
              ElementsAre("PYTHONPATH=/p:/mine:/theirs", "B=2"));
  // An empty PYTHONPATH adds nothing: "/p:" would add the working directory.
  EXPECT_THAT(WithPythonDirectory({"PYTHONPATH="}, "/p"), ElementsAre("PYTHONPATH=/p"));
}

TEST(ChildEnvironmentTest, OverheadBudgetOptionReplacesTheUsersVariable) {
  RunOptions options;
  options.overhead_budget = "1.5%";
  const auto env = ChildEnvironment({"BRRR_OVERHEAD_BUDGET=5%"}, "/s", "/l.so", options);
  EXPECT_THAT(env, Contains("BRRR_OVERHEAD_BUDGET=1.5%"));
  EXPECT_THAT(env, Not(Contains("BRRR_OVERHEAD_BUDGET=5%")));
  EXPECT_THAT(ChildEnvironment({"BRRR_OVERHEAD_BUDGET=5%"}, "/s", "/l.so", RunOptions{}),
              Contains("BRRR_OVERHEAD_BUDGET=5%"));
}

TEST(ChildEnvironmentTest, CaptureRangeOptionReplacesTheUsersVariable) {
  RunOptions options;
  options.capture_range = "nvtx:step";
  const auto env = ChildEnvironment({"BRRR_CAPTURE_RANGE=cudaProfilerApi"}, "/s", "/l.so", options);
  EXPECT_THAT(env, Contains("BRRR_CAPTURE_RANGE=nvtx:step"));
  EXPECT_THAT(env, Not(Contains("BRRR_CAPTURE_RANGE=cudaProfilerApi")));
  const auto kept =
      ChildEnvironment({"BRRR_CAPTURE_RANGE=cudaProfilerApi"}, "/s", "/l.so", RunOptions{});
  EXPECT_THAT(kept, Contains("BRRR_CAPTURE_RANGE=cudaProfilerApi"));
}

TEST(ChildEnvironmentTest, CountersOptionSetsBrrrCounters) {
  RunOptions options;
  options.counters = true;
  const auto env = ChildEnvironment({"BRRR_COUNTERS=0"}, "/s", "/l.so", options);
  EXPECT_THAT(env, Contains("BRRR_COUNTERS=1"));
  EXPECT_THAT(env, Not(Contains("BRRR_COUNTERS=0")));
  const auto kept = ChildEnvironment({"BRRR_COUNTERS=1"}, "/s", "/l.so", RunOptions{});
  EXPECT_THAT(kept, Contains("BRRR_COUNTERS=1"));
}

TEST(ChildEnvironmentTest, PointsNvtxAtTheShimUnlessTheUserChoseATool) {
  const auto env = ChildEnvironment({"A=1"}, "/s", "/opt/brrr/libbrrr.so", RunOptions{});
  EXPECT_THAT(env, Contains("NVTX_INJECTION64_PATH=/opt/brrr/libbrrr.so"));
  const auto own = ChildEnvironment({"NVTX_INJECTION64_PATH=/opt/tool/libtool.so", "A=1"}, "/s",
                                    "/opt/brrr/libbrrr.so", RunOptions{});
  EXPECT_THAT(own, Contains("NVTX_INJECTION64_PATH=/opt/tool/libtool.so"));
  EXPECT_THAT(own, Not(Contains("NVTX_INJECTION64_PATH=/opt/brrr/libbrrr.so")));
  EXPECT_EQ(
      std::count_if(own.begin(), own.end(),
                    [](const std::string& e) { return e.rfind("NVTX_INJECTION64_PATH=", 0) == 0; }),
      1);
}

}  // namespace
}  // namespace brrr::cli
