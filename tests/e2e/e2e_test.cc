// End-to-end tests of the whole pipeline: real nvcc-built programs run under `brrr run` on the
// simulated device, and the saved .brrr report is checked against what the programs are known to
// do (launch counts, configured kernel durations, planted stalls and the functions that planted
// them). Paths come from the build: BRRR_BIN, SIMCUDA_LIB_DIR, E2E_BIN_DIR.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

struct RunResult {
  int exit_code = -1;
  std::string output;  // the program's stdout
  Report report;
};

using e2e::ReadFile;
using e2e::SimEnvironment;

// (exit code, stdout) of argv with env.
std::pair<int, std::string> Spawn(const std::vector<std::string>& argv,
                                  const std::vector<std::string>& env) {
  const e2e::ProcessResult r = e2e::Spawn(argv, env);
  return {r.exit_code, r.output};
}

std::string ProgramPath(const std::string& program) {
  return std::string(E2E_BIN_DIR) + "/" + program;
}

// Runs the program without brrr, for comparing output and exit code.
std::pair<int, std::string> RunPlain(const std::string& program,
                                     const std::vector<std::string>& args,
                                     const std::vector<std::string>& extra_env) {
  std::vector<std::string> argv_s = {ProgramPath(program)};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  return Spawn(argv_s, SimEnvironment(extra_env));
}

// Runs `brrr run --quiet --output <tmp> -- <program> args` with the simulated device and the given
// BRRR_SIM_* settings, returns brrr's exit code and the report it saved.
RunResult RunUnderBrrr(const std::string& program, const std::vector<std::string>& args,
                       const std::vector<std::string>& extra_env,
                       const std::vector<std::string>& brrr_options = {}) {
  const std::string out =
      ::testing::TempDir() + "/e2e-" + program + "-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  std::vector<std::string> argv_s = {BRRR_BIN, "run", "--quiet", "--output", out};
  argv_s.insert(argv_s.end(), brrr_options.begin(), brrr_options.end());
  argv_s.push_back("--");
  argv_s.push_back(ProgramPath(program));
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  RunResult result;
  std::tie(result.exit_code, result.output) = Spawn(argv_s, SimEnvironment(extra_env));
  auto report = ReadBrrrFile(out);
  if (!report.ok()) {
    ADD_FAILURE() << "no readable report at " << out << ": " << report.status();
    return result;
  }
  result.report = *std::move(report);
  std::filesystem::remove(out);
  return result;
}

const ApiStat* FindApi(const Report& r, const std::string& name) {
  for (const auto& a : r.api)
    if (a.name == name) return &a;
  return nullptr;
}

// Every stall row, for failure messages.
std::string DescribeStalls(const Report& r) {
  std::string out;
  for (const auto& s : r.stalls) {
    out += "\n  " + s.api + " " + s.reason + " calls=" + std::to_string(s.calls) +
           " total_ns=" + std::to_string(s.total_ns) +
           " top=" + (s.stack.empty() ? "" : s.stack[0]);
  }
  return out;
}

const Stall* FindStall(const Report& r, const std::string& reason, const std::string& frame) {
  for (const auto& s : r.stalls) {
    if (s.reason != reason) continue;
    for (const auto& f : s.stack)
      if (f.find(frame) != std::string::npos) return &s;
  }
  return nullptr;
}

TEST(EndToEnd, LaunchBoundProgramGetsLaunchBoundVerdictAndExactCounts) {
  // ~4 device-side records per launch (push/pop configuration, launch, kernel): 10 000 launches
  // fit the 65 536-record device ring even if the collector drains nothing before exit.
  constexpr int kLaunches = 10000;
  constexpr int64_t kKernelNs = 500, kLaunchNs = 2000;
  RunResult r = RunUnderBrrr("e2e_launch_bound", {std::to_string(kLaunches)},
                             {"BRRR_SIM_KERNELS=tiny=" + std::to_string(kKernelNs),
                              "BRRR_SIM_LAUNCH_NS=" + std::to_string(kLaunchNs)});
  ASSERT_EQ(r.exit_code, 0);
  const Report& rep = r.report;
  EXPECT_FALSE(rep.host_only) << rep.host_only_reason;
  EXPECT_EQ(rep.events.dropped, 0u);
  EXPECT_EQ(rep.kernels.launches, uint64_t{kLaunches});
  // Simulated device time is exact: every kernel lasts its configured duration.
  EXPECT_NEAR(rep.kernels.device_ns, kLaunches * kKernelNs, kLaunches * kKernelNs / 100);
  const ApiStat* launch = FindApi(rep, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->calls, uint64_t{kLaunches});
  EXPECT_EQ(launch->category, "launch");
  EXPECT_GE(launch->p50_ns, kLaunchNs);  // each launch call spins BRRR_SIM_LAUNCH_NS
  // Work is enqueued at the end of the launch call, so it cannot start before host entry + cost.
  EXPECT_EQ(rep.launch_latency_ns.count, uint64_t{kLaunches});
  EXPECT_GE(rep.launch_latency_ns.p50, kLaunchNs);
  EXPECT_LT(rep.launch_latency_ns.p50, 1'000'000);
  ASSERT_EQ(rep.devices.size(), 1u);
  EXPECT_EQ(rep.verdict.regime, "launch-bound") << rep.verdict.why;
}

// One 4 MiB CUPTI buffer holds far more records than a 4096-record device ring (about 4 records
// per launch): the shim waits for the collector to make room instead of dropping them.
TEST(EndToEnd, BurstLargerThanTheDeviceRingIsNotDropped) {
  constexpr int kLaunches = 10000;
  constexpr uint32_t kDeviceRing = 4096;
  RunResult r = RunUnderBrrr("e2e_launch_bound", {std::to_string(kLaunches)},
                             {"BRRR_SIM_KERNELS=tiny=500", "BRRR_SIM_LAUNCH_NS=0",
                              "BRRR_DEVICE_RECORDS=" + std::to_string(kDeviceRing)});
  ASSERT_EQ(r.exit_code, 0);
  const Report& rep = r.report;
  EXPECT_FALSE(rep.host_only) << rep.host_only_reason;
  EXPECT_GT(rep.events.device.recorded, 4 * uint64_t{kDeviceRing});
  EXPECT_EQ(rep.events.device.dropped, 0u);
  EXPECT_EQ(rep.kernels.launches, uint64_t{kLaunches});
}

TEST(EndToEnd, FewLongKernelsAreDeviceBoundAndExitCodePassesThrough) {
  constexpr int kKernels = 20;
  // Long enough that device time dominates even a slow (sanitized, loaded) start-up.
  constexpr int64_t kKernelNs = 25'000'000;
  RunResult r = RunUnderBrrr("e2e_device_bound", {std::to_string(kKernels)},
                             {"BRRR_SIM_KERNELS=long_kernel=" + std::to_string(kKernelNs)});
  EXPECT_EQ(r.exit_code, 7);
  const Report& rep = r.report;
  EXPECT_EQ(rep.exit_code, 7);
  EXPECT_EQ(rep.kernels.launches, uint64_t{kKernels});
  EXPECT_NEAR(rep.kernels.device_ns, kKernels * kKernelNs, kKernels * kKernelNs / 100);
  ASSERT_EQ(rep.devices.size(), 1u);
  const DeviceBreakdown& dev = rep.devices[0];
  EXPECT_GE(dev.busy_ns, kKernels * kKernelNs * 99 / 100);
  EXPECT_EQ(dev.busy_ns + dev.idle.launch_bound_ns + dev.idle.sync_drain_ns +
                dev.idle.host_outside_cuda_ns + dev.startup_ns + dev.teardown_ns,
            dev.wall_ns);
  EXPECT_EQ(rep.verdict.regime, "device-bound") << rep.verdict.why;
}

// The planted program linked two ways: with the shared runtime (the hooks see every call) and with
// the static runtime stand-in (only CUPTI sees them; the shim records them through its API
// callbacks, stacks included). The report must be the same.
class PlantedStalls : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Runtimes, PlantedStalls,
                         ::testing::Values("e2e_planted_syncs", "e2e_planted_syncs_static"));

TEST_P(PlantedStalls, AreFoundWithReasonCountAndPlantingFunction) {
  // 10 ms kernels: each planted call finds its kernel still running even on a slow, loaded host.
  RunResult r = RunUnderBrrr(GetParam(), {}, {"BRRR_SIM_KERNELS=work=10000000"});
  ASSERT_EQ(r.exit_code, 0);
  const Report& rep = r.report;
  struct Expected {
    const char* reason;
    const char* function;
    uint64_t calls;
  };
  for (const Expected& e : {Expected{"d2h_copy", "plant_d2h_copy", 3},
                            Expected{"pageable_async_copy", "plant_pageable_async_copy", 4},
                            Expected{"free_syncs_device", "plant_free", 5},
                            Expected{"stream_sync", "plant_stream_sync", 6},
                            Expected{"device_sync", "plant_device_sync", 7},
                            Expected{"event_sync", "plant_event_sync", 8}}) {
    const Stall* s = FindStall(rep, e.reason, e.function);
    ASSERT_NE(s, nullptr) << "no " << e.reason << " stall with " << e.function << " on its stack"
                          << DescribeStalls(rep);
    EXPECT_EQ(s->calls, e.calls) << e.reason << DescribeStalls(rep);
    // Each planted call waits for (most of) one 10 ms kernel.
    EXPECT_GE(s->total_ns, int64_t(e.calls) * 5'000'000) << e.reason;
  }
  const Stall* poll = FindStall(rep, "query_poll", "plant_query_poll");
  ASSERT_NE(poll, nullptr);
  EXPECT_GE(poll->total_ns, 2 * 5'000'000);
  // The process's start-up and teardown are apart from the steady state: the program, which
  // spends its time waiting on 10 ms kernels, is never called input-bound for them.
  ASSERT_EQ(rep.devices.size(), 1u);
  const DeviceBreakdown& d = rep.devices[0];
  EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns,
            d.wall_ns);
  EXPECT_GT(d.teardown_ns, 0);  // after the last call, the process still exits
  EXPECT_THAT(rep.verdict.why, HasSubstr("not counted"));  // start-up and teardown
  // brrr's stack captures of the stalls (DWARF, after each call returned) are timed by the shim,
  // counted in brrr's cost and not as the app's time outside CUDA.
  ASSERT_TRUE(rep.overhead.has_value());
  EXPECT_THAT(rep.overhead->basis, HasSubstr(" of stack captures ("));
  // When the host ran the program at speed (its steady state within 1.5x of its kernels' 350 ms),
  // the host's time outside CUDA is small and the verdict cannot be input-bound. Under ASan on a
  // loaded CI machine the steady state once took 881 ms, 59 % of it outside CUDA calls between the
  // planted calls (before brrr timed its stack captures, which now count as brrr's; the scheduler
  // remains): input-bound is then what the data says, and not what this test checks.
  const int64_t steady_ns = d.wall_ns - d.startup_ns - d.teardown_ns;
  if (steady_ns * 2 <= d.busy_ns * 3) {
    EXPECT_NE(rep.verdict.regime, "input-bound") << rep.verdict.why;
  } else {
    std::fprintf(stderr, "note: steady state %lld ns for %lld ns busy: verdict not checked\n",
                 static_cast<long long>(steady_ns), static_cast<long long>(d.busy_ns));
  }
  ASSERT_FALSE(rep.verdict.advice.empty()) << rep.verdict.why;
}

uint64_t CallsPrinted(const std::string& output) {
  const auto at = output.find("calls ");
  return at == std::string::npos ? 0 : std::stoull(output.substr(at + 6));
}

TEST(EndToEnd, EightThreadsOfLaunchesAreAccountedForExactly) {
  const std::vector<std::string> args = {"8", "50000"};
  RunResult r = RunUnderBrrr("e2e_threaded_launches", args, {"BRRR_SIM_LAUNCH_NS=0"});
  ASSERT_EQ(r.exit_code, 0);
  const uint64_t calls = CallsPrinted(r.output);
  ASSERT_EQ(calls, 2u + 8u * 50001u);
  EXPECT_EQ(r.report.events.host.recorded + r.report.events.host.dropped, calls);
  // Exact only when the report vouches for it (coverage complete). With device records lost
  // (the ASan build's collector used to drop hundreds of thousands of CUPTI records here), CUPTI
  // API records can miss their hooked call in the join and the launch count drifts either way
  // (seen: 399,773 with the shim of 9d46f00, 425,908 later). With nothing dropped, 411,978 were
  // once counted under ASan in CI (~12k records, a buffer's worth), probably a CUPTI buffer or a
  // host record delivered very late on the loaded machine: the report now says when that happens.
  ASSERT_TRUE(r.report.coverage.has_value());
  if (!r.report.coverage->complete) {
    std::fprintf(stderr, "note: coverage incomplete, launch count not checked: %s\n",
                 absl::StrJoin(r.report.coverage->gaps, "; ").c_str());
  } else {
    const ApiStat* launch = FindApi(r.report, "__cudaLaunchKernel");
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->calls, 8u * 50000u);
  }
}

TEST(EndToEnd, TinyRingDropsAreReportedAndTheAppIsUnchanged) {
  const std::vector<std::string> args = {"2", "20000"};
  const std::vector<std::string> env = {"BRRR_SIM_LAUNCH_NS=0"};
  auto [plain_code, plain_output] = RunPlain("e2e_threaded_launches", args, env);
  RunResult r = RunUnderBrrr("e2e_threaded_launches", args, env, {"--ring-records", "64"});
  EXPECT_EQ(r.exit_code, plain_code);
  EXPECT_EQ(r.output, plain_output);
  const uint64_t calls = CallsPrinted(r.output);
  EXPECT_GT(r.report.events.host.dropped, 0u);
  EXPECT_GT(r.report.events.dropped, 0u);
  EXPECT_EQ(r.report.events.host.recorded + r.report.events.host.dropped, calls);
}

TEST(EndToEnd, ForkedChildNeitherCorruptsNorJoinsTheParentsProfile) {
  auto [plain_code, plain_output] = RunPlain("e2e_fork_and_thread_exit", {"fork"}, {});
  RunResult r = RunUnderBrrr("e2e_fork_and_thread_exit", {"fork"}, {});
  EXPECT_EQ(r.exit_code, plain_code);
  EXPECT_EQ(r.output, plain_output);
  EXPECT_EQ(r.report.events.dropped, 0u);
  const ApiStat* launch = FindApi(r.report, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->calls, 200u);
  EXPECT_EQ(r.report.kernels.launches, 200u);
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A misspelled BRRR_* name and a refused value are each said once (README: "warned about once"),
// under brrr run and under a plain preload, where the shim and its collector both read the
// environment (each was said twice there).
TEST(EndToEnd, EachSettingWarningIsSaidOnce) {
  const std::vector<std::string> bad = {"BRRR_SAMPEL_DEVICE=10%", "BRRR_RING_RECORDS=1000"};
  const std::string file = ::testing::TempDir() + "/once-" + std::to_string(::getpid()) + ".brrr";
  std::vector<std::string> env = SimEnvironment(bad);
  const std::string shim = std::filesystem::path(BRRR_BIN).parent_path() / "libbrrr.so";
  std::string preload = std::string("LD_PRELOAD=") + BRRR_PRELOAD_PREFIX + shim;
  for (std::string& kv : env) {
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      preload = kv + ":" + shim;
      kv = "BRRR_TEST_UNUSED=1";
    }
  }
  env.push_back(preload);
  env.push_back("BRRR_OUTPUT=" + file);
  env.push_back("BRRR_QUIET=1");
  env.push_back("BRRR_REPORT_WAIT_MS=20000");
  const e2e::ProcessResult preloaded =
      e2e::Spawn({ProgramPath("e2e_launch_bound"), "200"}, env, /*with_stderr=*/true);
  EXPECT_EQ(preloaded.exit_code, 0) << preloaded.output;
  EXPECT_EQ(Occurrences(preloaded.output, "BRRR_SAMPEL_DEVICE is not a brrr setting"), 1u)
      << preloaded.output;
  EXPECT_EQ(Occurrences(preloaded.output, "BRRR_RING_RECORDS=1000: "), 1u) << preloaded.output;
  std::filesystem::remove(file);

  const e2e::ProcessResult run =
      e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", file, "--",
                  ProgramPath("e2e_launch_bound"), "200"},
                 SimEnvironment(bad), /*with_stderr=*/true);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(Occurrences(run.output, "BRRR_SAMPEL_DEVICE is not a brrr setting"), 1u) << run.output;
  EXPECT_EQ(Occurrences(run.output, "BRRR_RING_RECORDS=1000: "), 1u) << run.output;
  std::filesystem::remove(file);
}

TEST(EndToEnd, ExitFromAThreadKeepsTheExitCodeAndTheRecords) {
  RunResult r = RunUnderBrrr("e2e_fork_and_thread_exit", {"thread-exit"}, {});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.report.exit_code, 5);
  const ApiStat* launch = FindApi(r.report, "__cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_GE(launch->calls, 100u);
  EXPECT_GE(r.report.kernels.launches, 100u);
}

}  // namespace
}  // namespace brrr
