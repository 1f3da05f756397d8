// Tests of environment parsing: defaults, valid values, and every bad value falling back to the
// default (the app's behaviour never depends on brrr's settings being right).
#include "shim/shim_config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace brrr::shim {
namespace {

// Like the real environment, the strings outlive the config (shm_name points into them).
std::map<std::string, std::string> g_env;

const char* FakeGetEnv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

ShimConfig Read(std::map<std::string, std::string> env) {
  g_env = std::move(env);
  return ReadShimConfig(&FakeGetEnv);
}

TEST(ShimConfigTest, Defaults) {
  const ShimConfig c = Read({});
  EXPECT_EQ(c.geometry.ring_capacity, ring::kDefaultRingCapacity);
  EXPECT_EQ(c.geometry.max_threads, ring::kDefaultMaxThreads);
  EXPECT_TRUE(c.stacks);
  EXPECT_TRUE(c.cupti);
  EXPECT_TRUE(c.allow_tsc);
  EXPECT_EQ(c.report_wait_ms, 5000u);
  EXPECT_EQ(c.shm_name, nullptr);
}

TEST(ShimConfigTest, ValidValues) {
  const ShimConfig c = Read({{"BRRR_RING_RECORDS", "64"},
                             {"BRRR_MAX_THREADS", "3"},
                             {"BRRR_STACKS", "0"},
                             {"BRRR_CUPTI", "0"},
                             {"BRRR_CLOCK", "monotonic"},
                             {"BRRR_REPORT_WAIT_MS", "10"},
                             {"BRRR_SHM", "/brrr-1-abc"}});
  EXPECT_EQ(c.geometry.ring_capacity, 64u);
  EXPECT_EQ(c.geometry.max_threads, 3u);
  EXPECT_FALSE(c.stacks);
  EXPECT_FALSE(c.cupti);
  EXPECT_FALSE(c.allow_tsc);
  EXPECT_EQ(c.report_wait_ms, 10u);
  ASSERT_NE(c.shm_name, nullptr);
  EXPECT_STREQ(c.shm_name, "/brrr-1-abc");
}

TEST(ShimConfigTest, RingSizesMustBePowersOfTwoAsOnTheCommandLine) {
  // Not rounded up: `brrr run --ring-records 100` is refused, so the variable is too (warned).
  EXPECT_EQ(Read({{"BRRR_RING_RECORDS", "100"}}).geometry.ring_capacity,
            ring::kDefaultRingCapacity);
  EXPECT_EQ(Read({{"BRRR_RING_RECORDS", "128"}}).geometry.ring_capacity, 128u);
  EXPECT_EQ(Read({{"BRRR_DEVICE_RECORDS", "8192"}}).geometry.device_capacity, 8192u);
  EXPECT_EQ(Read({{"BRRR_DEVICE_RECORDS", "5000"}}).geometry.device_capacity,
            ring::kDefaultDeviceCapacity);
  EXPECT_EQ(Read({{"BRRR_DEVICE_RECORDS", "2"}}).geometry.device_capacity,
            ring::kDefaultDeviceCapacity);
  EXPECT_EQ(Read({{"BRRR_DEVICE_RECORDS", "x"}}).geometry.device_capacity,
            ring::kDefaultDeviceCapacity);
}

TEST(ShimConfigTest, EveryBooleanAcceptsTheSameWords) {
  // BRRR_COUNTERS=true used to be ignored while BRRR_STACKS=true was accepted.
  for (const char* on : {"1", "true", "on"}) {
    EXPECT_TRUE(Read({{"BRRR_COUNTERS", on}}).counters) << on;
    EXPECT_TRUE(Read({{"BRRR_STACKS", on}}).stacks) << on;
  }
  for (const char* off : {"0", "false", "off"}) {
    EXPECT_FALSE(Read({{"BRRR_COUNTERS", off}}).counters) << off;
    EXPECT_FALSE(Read({{"BRRR_CUPTI", off}}).cupti) << off;
  }
  EXPECT_FALSE(Read({}).counters);
  EXPECT_FALSE(Read({{"BRRR_COUNTERS", "yes"}}).counters);  // warned: the default
}

TEST(ShimConfigTest, JobDirectoryAndTestLibrary) {
  EXPECT_EQ(Read({}).job_dir, nullptr);
  EXPECT_EQ(Read({{"BRRR_JOB_DIR", ""}}).job_dir, nullptr);
  EXPECT_STREQ(Read({{"BRRR_JOB_DIR", "/run/brrr-job"}}).job_dir, "/run/brrr-job");
  EXPECT_EQ(Read({}).pm_sampling_library, nullptr);
  EXPECT_STREQ(Read({{"BRRR_PM_SAMPLING_LIBRARY", "/x/fake.so"}}).pm_sampling_library,
               "/x/fake.so");
}

TEST(ShimConfigTest, CallbacksOnByDefaultAndOffOnRequest) {
  EXPECT_TRUE(Read({}).callbacks);
  EXPECT_FALSE(Read({{"BRRR_CALLBACKS", "0"}}).callbacks);
  EXPECT_TRUE(Read({{"BRRR_CALLBACKS", "maybe"}}).callbacks);  // bad value: the default
}

TEST(ShimConfigTest, PythonSettings) {
  const ShimConfig d = Read({});
  EXPECT_TRUE(d.python);
  EXPECT_EQ(d.launch_sample_period, kDefaultLaunchSamplePeriod);
  EXPECT_EQ(d.python_stall_us, 5u);
  const ShimConfig c = Read(
      {{"BRRR_PYTHON", "0"}, {"BRRR_LAUNCH_SAMPLE", "1"}, {"BRRR_PY_STALL_US", "250"}});
  EXPECT_FALSE(c.python);
  EXPECT_EQ(c.launch_sample_period, 1u);
  EXPECT_EQ(c.python_stall_us, 250u);
  EXPECT_EQ(Read({{"BRRR_LAUNCH_SAMPLE", "0"}}).launch_sample_period, 0u);  // off
  EXPECT_EQ(Read({{"BRRR_PY_STALL_US", "0"}}).python_stall_us, 0u);         // every call
  // Bad values: the defaults.
  const ShimConfig bad = Read({{"BRRR_PYTHON", "yes please"},
                               {"BRRR_LAUNCH_SAMPLE", "-1"},
                               {"BRRR_PY_STALL_US", "99999999999"}});
  EXPECT_TRUE(bad.python);
  EXPECT_EQ(bad.launch_sample_period, kDefaultLaunchSamplePeriod);
  EXPECT_EQ(bad.python_stall_us, 5u);
}

TEST(ShimConfigTest, BadValuesFallBackToDefaults) {
  EXPECT_EQ(Read({{"BRRR_RING_RECORDS", "4"}}).geometry.ring_capacity, ring::kDefaultRingCapacity);
  EXPECT_EQ(Read({{"BRRR_MAX_THREADS", "5000"}}).geometry.max_threads, ring::kDefaultMaxThreads);
  for (const char* bad : {"", "abc", "-5", "12x", "0", "99999999999999999999999"}) {
    const ShimConfig c = Read({{"BRRR_RING_RECORDS", bad}, {"BRRR_MAX_THREADS", bad}});
    EXPECT_EQ(c.geometry.ring_capacity, ring::kDefaultRingCapacity) << bad;
    EXPECT_EQ(c.geometry.max_threads, ring::kDefaultMaxThreads) << bad;
  }
  const ShimConfig c = Read({{"BRRR_STACKS", "maybe"},
                             {"BRRR_CUPTI", "2"},
                             {"BRRR_CLOCK", "sundial"},
                             {"BRRR_SHM", "no-slash"}});
  EXPECT_TRUE(c.stacks);
  EXPECT_TRUE(c.cupti);
  EXPECT_TRUE(c.allow_tsc);
  EXPECT_EQ(c.shm_name, nullptr);
  // Too large together: both back to defaults.
  const ShimConfig big = Read({{"BRRR_RING_RECORDS", "4194304"}, {"BRRR_MAX_THREADS", "4096"}});
  EXPECT_TRUE(ring::IsValidGeometry(big.geometry));
  EXPECT_EQ(big.geometry.max_threads, ring::kDefaultMaxThreads);
}

TEST(ShimConfigTest, StartPausedAndFlushPeriod) {
  EXPECT_FALSE(Read({}).start_paused);
  EXPECT_EQ(Read({}).flush_ms, kDefaultFlushMs);
  EXPECT_TRUE(Read({{"BRRR_START", "paused"}}).start_paused);
  EXPECT_FALSE(Read({{"BRRR_START", "recording"}}).start_paused);
  EXPECT_FALSE(Read({{"BRRR_START", "pause"}}).start_paused);  // warned, recording
  EXPECT_EQ(Read({{"BRRR_FLUSH_MS", "0"}}).flush_ms, 0u);
  EXPECT_EQ(Read({{"BRRR_FLUSH_MS", "100"}}).flush_ms, 100u);
  EXPECT_EQ(Read({{"BRRR_FLUSH_MS", "-5"}}).flush_ms, kDefaultFlushMs);
  EXPECT_EQ(Read({{"BRRR_FLUSH_MS", "3600001"}}).flush_ms, kDefaultFlushMs);
}

TEST(ShimConfigTest, AnOverheadBudgetStartsDeviceTracingSampled) {
  EXPECT_EQ(Read({}).overhead_budget_permille, 0u);
  EXPECT_EQ(Read({}).sample_device_permille, 1000u);
  const ShimConfig budget = Read({{"BRRR_OVERHEAD_BUDGET", "2%"}});
  EXPECT_EQ(budget.overhead_budget_permille, 20u);
  EXPECT_EQ(budget.sample_device_permille, kBudgetStartPermille);
  // A share asked for is where it starts.
  EXPECT_EQ(Read({{"BRRR_OVERHEAD_BUDGET", "0.5%"}, {"BRRR_SAMPLE_DEVICE", "10%"}})
                .sample_device_permille,
            100u);
  // Garbage: no budget, full tracing, as without it.
  const ShimConfig bad = Read({{"BRRR_OVERHEAD_BUDGET", "0%"}});
  EXPECT_EQ(bad.overhead_budget_permille, 0u);
  EXPECT_EQ(bad.sample_device_permille, 1000u);
  EXPECT_EQ(Read({{"BRRR_OVERHEAD_BUDGET", "two"}}).overhead_budget_permille, 0u);
}

// BRRR_CUPTI_DETACH=auto (the default) detaches under a budget and under sampling (a share below
// 100 %); 1 and 0 are what they say
// whatever the budget; a value not in auto|1|0 is auto.
TEST(ShimConfigTest, CuptiDetachesBetweenWindowsUnderABudgetUnlessToldOtherwise) {
  EXPECT_FALSE(Read({}).cupti_detach);
  EXPECT_TRUE(Read({{"BRRR_OVERHEAD_BUDGET", "3%"}}).cupti_detach);
  EXPECT_TRUE(Read({{"BRRR_SAMPLE_DEVICE", "10%"}}).cupti_detach);  // sampled: detached
  EXPECT_FALSE(Read({{"BRRR_SAMPLE_DEVICE", "10%"}, {"BRRR_CUPTI_DETACH", "0"}}).cupti_detach);
  EXPECT_TRUE(Read({{"BRRR_SAMPLE_DEVICE", "10%"}, {"BRRR_CUPTI_DETACH", "1"}}).cupti_detach);
  EXPECT_FALSE(Read({{"BRRR_OVERHEAD_BUDGET", "3%"}, {"BRRR_CUPTI_DETACH", "0"}}).cupti_detach);
  EXPECT_TRUE(Read({{"BRRR_OVERHEAD_BUDGET", "3%"}, {"BRRR_CUPTI_DETACH", "auto"}}).cupti_detach);
  EXPECT_TRUE(Read({{"BRRR_OVERHEAD_BUDGET", "3%"}, {"BRRR_CUPTI_DETACH", "yes"}}).cupti_detach);
  EXPECT_FALSE(Read({{"BRRR_CUPTI_DETACH", "auto"}}).cupti_detach);
}

// BRRR_DETACH_WAIT: adaptive by default; `window` pins the wait to one window length; anything
// else is the default.
TEST(ShimConfigTest, TheWaitBeforeADetachAdaptsUnlessPinnedToTheWindow) {
  EXPECT_TRUE(Read({}).detach_wait_adaptive);
  EXPECT_TRUE(Read({{"BRRR_DETACH_WAIT", "adaptive"}}).detach_wait_adaptive);
  EXPECT_FALSE(Read({{"BRRR_DETACH_WAIT", "window"}}).detach_wait_adaptive);
  EXPECT_TRUE(Read({{"BRRR_DETACH_WAIT", "forever"}}).detach_wait_adaptive);
}

}  // namespace
}  // namespace brrr::shim
