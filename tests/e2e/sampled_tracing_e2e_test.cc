// End-to-end tests of sampled device tracing (`brrr run --sample-device=PCT`) on the simulated
// device, where every kernel's duration is known, so the estimates are checked against the truth
// (not against a fully traced run: tracing's own cost changes how far a near-balanced loop's
// device falls behind, so two runs differ in busy share for real, the more so on a loaded machine):
//  - a loop of tiny launches (launch_bound.cu, 5 us kernels): launch calls exact, several-fold
//    fewer device records than the same program fully traced, device busy time and the kernel
//    table within 10 % of launches x 5 us, marked estimated, several windows, said in the text;
//  - a loop whose period (a 10 ms kernel, then 10 ms of host work) is near the 20 ms window:
//    busy time within 10 % of iterations x 10 ms, not an aliased figure;
//  - an overhead budget (`--overhead-budget`) on the launch loop with tracing that costs 1 us a
//    call (SIMCUDA_CUPTI_CALL_NS): the measured cost stays under a 2 % budget with a share below
//    100 %, and a budget the hooks alone exceed steers the share down and says it was not met;
//    with each window's attach taking 10 ms (SIMCUDA_CUPTI_SUBSCRIBE_NS), the budget still holds;
//  - CUPTI detached between windows (BRRR_CUPTI_DETACH=1) on a loop that calls a library
//    (driver-API launches) between its own runtime launches, with CUPTI's attached floor
//    simulated (SIMCUDA_CUPTI_ATTACHED_NS): the runtime launches stay exact, the driver launches
//    are recorded inside the windows only and the report says so, the device time is still
//    within 20 % below and 10 % above the truth (it runs low under load; see the test);
//    BRRR_CUPTI_DETACH=0 records them all, says nothing escaped, and is within 10 %;
//  - CUPTI detached on a device far behind its host: the window's kernels still queued at the
//    flush before the detach come back without timestamps, are in no figure, and are counted.
// Paths come from the build: BRRR_BIN, E2E_BIN_DIR.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/take_report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct SampledRun {
  Report report;
  std::string text;
};

SampledRun BrrrRun(const std::string& tag, const std::vector<std::string>& options,
            const std::vector<std::string>& command, const std::vector<std::string>& env_extra) {
  const std::string out =
      ::testing::TempDir() + "/sampled-" + tag + "-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  const std::vector<std::string> env = e2e::SimEnvironment(env_extra);
  SampledRun run;
  const e2e::ProcessResult r = e2e::Spawn(argv, env, /*with_stderr=*/true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  run.text = e2e::Spawn({BRRR_BIN, "report", out}, env).output;
  run.report = e2e::TakeReport(out);
  return run;
}

// Device 0's busy time, the estimate under sampling.
int64_t BusyNs(const Report& r) { return r.devices.empty() ? -1 : r.devices.front().busy_ns; }

// Launch calls are exact unless the host ring dropped records (a collector starved on a loaded
// machine): then exactly the dropped ones are missing at most, and the report says records were
// dropped.
void ExpectLaunchCallsExactUnlessDropped(const Report& r, uint64_t launches,
                                         const std::string& text) {
  if (r.events.host.dropped == 0) {
    EXPECT_EQ(r.kernels.launch_calls, launches) << text;
    return;
  }
  EXPECT_LT(r.kernels.launch_calls, launches) << text;
  EXPECT_GE(r.kernels.launch_calls + r.events.host.dropped, launches) << text;
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_FALSE(r.coverage->complete) << text;
}

TEST(SampledTracingEndToEnd, LaunchLoopKeepsExactCallsWithAFractionOfTheRecords) {
  constexpr int kLaunches = 150000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun full = BrrrRun("launch-full", {}, app, {});
  // CUPTI kept attached between windows (sampling detaches it by default): what that leaves
  // unmeasured is said below.
  const SampledRun sampled = BrrrRun("launch-25", {"--sample-device=25%"}, app,
                                     {"BRRR_SAMPLE_WINDOW_MS=10", "BRRR_CUPTI_DETACH=0"});
  const Report& f = full.report;
  const Report& s = sampled.report;
  EXPECT_FALSE(f.device_sampling.has_value());
  ASSERT_TRUE(s.device_sampling.has_value()) << sampled.text;
  EXPECT_DOUBLE_EQ(s.device_sampling->fraction, 0.25);
  EXPECT_GE(s.device_sampling->windows, 3u) << sampled.text;
  // Host counts are never sampled.
  ExpectLaunchCallsExactUnlessDropped(f, kLaunches, full.text);
  ExpectLaunchCallsExactUnlessDropped(s, kLaunches, sampled.text);
  // Device records (kernels and CUPTI API records): a quarter of the time, so far fewer.
  EXPECT_LT(s.events.device.recorded * 2, f.events.device.recorded)
      << "sampled " << s.events.device.recorded << " vs full " << f.events.device.recorded;
  // The truth: every kernel runs 5 us on the simulated device, one after another.
  const double truth = kLaunches * 5'000.0;
  EXPECT_EQ(f.kernels.device_ns, static_cast<int64_t>(truth));
  EXPECT_NEAR(static_cast<double>(BusyNs(s)), truth, truth * 0.10) << sampled.text;
  EXPECT_TRUE(s.kernels.estimated);
  EXPECT_FALSE(f.kernels.estimated);
  EXPECT_NEAR(static_cast<double>(s.kernels.launches), kLaunches, kLaunches * 0.10);
  EXPECT_NEAR(static_cast<double>(s.kernels.device_ns), truth, truth * 0.10);
  // Scaled everywhere (issue 47): the launch sites' device time (1 in 64 launches sampled for
  // their stacks, each standing for 64) is the kernel table's, give or take that sample, under
  // sampling as under full tracing, and not the windows' quarter of it.
  for (const Report* r : {&f, &s}) {
    double sites_ns = 0;
    for (const LaunchSite& site : r->launch_sites) {
      for (const LaunchKernel& k : site.kernels) sites_ns += static_cast<double>(k.device_ns);
    }
    EXPECT_NEAR(sites_ns, truth, truth * 0.35) << (r == &s ? sampled.text : full.text);
  }
  // Each part still sums to wall.
  for (const DeviceBreakdown& d : s.devices) {
    EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                  d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns,
              d.wall_ns);
  }
  // brrr's own cost: the record path the shim timed at start, the A/B inside/outside windows
  // (measurable under sampling only), the collector's CPU.
  ASSERT_TRUE(s.overhead.has_value());
  ASSERT_TRUE(s.overhead->hooks_ns.has_value());
  EXPECT_GT(*s.overhead->hooks_ns, 0);
  EXPECT_LT(*s.overhead->hooks_ns, s.wall_ns);
  EXPECT_TRUE(s.overhead->device_tracing_ns.has_value()) << s.overhead->basis;
  EXPECT_GT(s.overhead->collector_cpu_ns.value_or(0), 0);
  ASSERT_TRUE(f.overhead.has_value());
  EXPECT_FALSE(f.overhead->device_tracing_ns.has_value());  // full tracing: nothing to compare
  // Neither headline passes the measured parts off as the whole (issue 47): full tracing's device
  // tracing is not measured, nor, under sampling without detaching, CUPTI between the windows.
  EXPECT_THAT(full.text, HasSubstr("BRRR'S COST  unknown: at least "));
  EXPECT_THAT(full.text, HasSubstr("not measured: device tracing (full tracing"));
  EXPECT_THAT(f.overhead->unmeasured, HasSubstr("device tracing"));
  EXPECT_THAT(sampled.text, HasSubstr("BRRR'S COST  unknown: at least "));
  EXPECT_THAT(s.overhead->unmeasured, HasSubstr("CUPTI attached between the windows"));
  EXPECT_THAT(sampled.text, HasSubstr("DEVICE SAMPLING  25% asked"));
  EXPECT_THAT(sampled.text, HasSubstr("estimated from the traced windows"));
}

// Scaled everywhere, steps too (issue 47): a loop of 600 steps, each 3 kernels of 200 us and a
// read-back, so 600 us of device time per step. Under 25 % sampling the steps' mean busy time is
// the truth within 20 %, marked estimated in the JSON and the text, not the windows' quarter.
TEST(SampledTracingEndToEnd, TheStepsMeanDeviceTimeIsScaledAsTheDevicesIs) {
  constexpr int kSteps = 600;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_stepped_loop",
                                        std::to_string(kSteps), "0", "0"};
  const SampledRun run = BrrrRun("steps-25", {"--sample-device=25%"}, app,
                                 {"BRRR_SAMPLE_WINDOW_MS=10", "BRRR_SIM_KERNELS=step_kernel=200000"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.steps.has_value()) << run.text;
  EXPECT_EQ(r.steps->count, static_cast<uint64_t>(kSteps));
  EXPECT_TRUE(r.steps->device_parts_scaled);
  constexpr double kTruth = 3 * 200'000.0;
  EXPECT_NEAR(r.steps->per_step.busy_ns, kTruth, kTruth * 0.20) << run.text;
  EXPECT_NEAR(r.steps->per_step.launches, 3.0, 0.01) << "host counts are exact";
  EXPECT_THAT(run.text, HasSubstr("(device parts estimated from the traced windows)"));
}

// The count the first group of `pattern` finds in an overhead basis ("12,345"), 0 when none.
uint64_t CallsInBasis(const std::string& basis, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(basis, m, std::regex(pattern)) || m.size() < 2) return 0;
  std::string digits = m[1].str();
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  return digits.empty() ? 0 : std::stoull(digits);
}

uint64_t ApiCalls(const Report& r, const std::string& name) {
  for (const ApiStat& row : r.api) {
    if (row.name == name) return row.calls;
  }
  return 0;
}

TEST(SampledTracingEndToEnd, CuptiIsDetachedBetweenWindowsAndTheReportSaysWhatThatLeavesOut) {
  constexpr int kRounds = 3000, kEach = 20;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_coverage_driver_launch",
                                        std::to_string(kEach), std::to_string(kEach),
                                        std::to_string(kRounds)};
  const std::vector<std::string> env = {"BRRR_SAMPLE_WINDOW_MS=10",
                                        "SIMCUDA_CUPTI_ATTACHED_NS=2000",
                                        "BRRR_SIM_KERNELS=runtime_kernel=1000,driver_kernel=1000"};
  std::vector<std::string> kept_env = env, detach_env = env;
  kept_env.push_back("BRRR_CUPTI_DETACH=0");
  detach_env.push_back("BRRR_CUPTI_DETACH=1");
  const SampledRun detached = BrrrRun("detach", {"--sample-device=20%"}, app, detach_env);
  const SampledRun attached = BrrrRun("attached", {"--sample-device=20%"}, app, kept_env);
  const Report& d = detached.report;
  const Report& a = attached.report;
  ASSERT_TRUE(d.device_sampling.has_value()) << detached.text;
  ASSERT_TRUE(a.device_sampling.has_value()) << attached.text;
  constexpr uint64_t kTotal = uint64_t{kRounds} * kEach;
  // The runtime's launches (nvcc 13: __cudaLaunchKernel) pass the hooks: exact either way.
  EXPECT_EQ(ApiCalls(d, "__cudaLaunchKernel"), kTotal) << detached.text;
  EXPECT_EQ(ApiCalls(a, "__cudaLaunchKernel"), kTotal) << attached.text;
  // Attached, every driver launch comes through a CUPTI callback.
  EXPECT_EQ(ApiCalls(a, "cuLaunchKernel"), kTotal) << attached.text;
  EXPECT_EQ(a.device_sampling->cupti_detaches, 0u);
  ASSERT_TRUE(a.coverage.has_value());
  EXPECT_TRUE(a.coverage->complete) << attached.text;
  // Detached between windows: CUPTI was let go more than once, the driver launches outside the
  // windows went unseen (some inside were seen), and the report says so. On a busy machine the
  // simulated device can fall behind (its threads wait for a CPU) until a detach waits for its
  // queue longer than the shim accepts (shim/detach_grace.h): CUPTI then stays attached after the
  // later windows, which the report says, and the span after windows is not there to price.
  ASSERT_TRUE(d.overhead.has_value());
  const bool kept = d.overhead->basis.find("windows CUPTI stayed attached") != std::string::npos;
  EXPECT_GE(d.device_sampling->cupti_detaches, kept ? 1u : 2u) << detached.text;
  EXPECT_GT(ApiCalls(d, "cuLaunchKernel"), 0u) << detached.text;
  EXPECT_LT(ApiCalls(d, "cuLaunchKernel"), kTotal) << detached.text;
  ASSERT_TRUE(d.coverage.has_value());
  EXPECT_FALSE(d.coverage->complete);
  EXPECT_THAT(detached.text, HasSubstr("CUPTI was detached between device-tracing windows"));
  EXPECT_THAT(detached.text, HasSubstr("driver-API calls outside the windows"));
  // brrr's cost: the A/B's outside side paid nothing for CUPTI when it was detached; attached, the
  // report says that it does not see what CUPTI costs there.
  ASSERT_TRUE(a.overhead.has_value());
  EXPECT_THAT(d.overhead->basis, HasSubstr("so the calls outside paid nothing for it"));
  EXPECT_THAT(a.overhead->basis, HasSubstr("BRRR_CUPTI_DETACH=1 removes it"));
  // Detached, CUPTI stays subscribed after each window until the detach (the simulated device
  // charges a call 2 us then, as inside): those calls are priced too. The shim's wait starts at the
  // window length and halves after each flush that found nothing still queued (the kernels are
  // short: the device keeps up), so the span after a window is shorter than the window on average
  // (a fixed window-length wait: 10 ms; on a quiet machine about 2 ms, with fewer than half as many
  // calls after the windows as inside them). Attached, that span is like any other outside one.
  if (!kept) {
    EXPECT_THAT(d.overhead->basis,
                HasSubstr("(on average) after each window, while CUPTI waited to detach, a "
                          "launch call took"));
    std::smatch span;
    ASSERT_TRUE(std::regex_search(d.overhead->basis, span,
                                  std::regex(R"(in the ([0-9.]+) (ms|us) \(on average\))")))
        << d.overhead->basis;
    const double span_ns = std::stod(span[1].str()) * (span[2].str() == "ms" ? 1e6 : 1e3);
    EXPECT_LT(span_ns, 9.9e6) << d.overhead->basis;
    EXPECT_GT(CallsInBasis(d.overhead->basis, R"(outside \(([0-9,]+) and)"), 0u);
  }
  EXPECT_THAT(a.overhead->basis, Not(HasSubstr("waited to detach")));
  // Yet the device estimate holds: the launch calls are scaled from the hooked ones' share inside
  // the windows (every kernel runs 1 us: the truth is 2 x 60,000 x 1 us). The kernels are short
  // so that the device keeps up: a detach drops the records of work still queued, and a device
  // far behind its host would lose whole windows (the gap above says so).
  // Detached, it once ran low under load (0.87-0.96 of the truth): calls drained before the
  // record of a window's close counted as inside, the hooks' calls after the detach among them but
  // no callback's. Launch calls now wait for the window records after them: 0.997-1.007 in 10 runs
  // beside two busy loops.
  const double truth = 2.0 * kTotal * 1'000;
  EXPECT_NEAR(static_cast<double>(d.kernels.device_ns), truth, truth * 0.10) << detached.text;
  EXPECT_NEAR(static_cast<double>(a.kernels.device_ns), truth, truth * 0.10) << attached.text;
}

// A device a few ms behind its host (20 us kernels, a queue of 300: 6 ms): once the wait before a
// detach has halved below that (shim/detach_grace.h), the flush before the detach finds the
// window's last kernels still queued and hands their records back without timestamps, never to
// deliver them again (real CUPTI does: pytorch/pytorch#195844 and tools/gpu/workloads/
// attach_probe.cu, 278 of 300 queued kernels; so does the simulated device). They are in no figure,
// the coverage counts them and says so, no kernel gets a time it does not have (on a real GPU they
// used to reach the analysis as kernels at time 0), and the wait grows again. Each detach waits for
// the queue (6 ms, under the quarter window that would keep CUPTI attached). Kept attached
// (BRRR_CUPTI_DETACH=0), nothing is flushed while in flight. On a machine busy enough to stretch a
// detach past that quarter window, the shim keeps CUPTI attached from then on, as it should (2 of 8
// runs beside two busy loops): then the wait may never have halved below the queue, and untimed
// records are not asked for, only that the report says what happened.
TEST(SampledTracingEndToEnd, KernelsStillQueuedAtADetachAreUntimedAndSaidSo) {
  constexpr int kLaunches = 100000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const std::vector<std::string> env = {"BRRR_SAMPLE_WINDOW_MS=40", "BRRR_SIM_KERNEL_NS=20000",
                                        "BRRR_SIM_QUEUE_DEPTH=300"};
  std::vector<std::string> detach_env = env, kept_env = env;
  detach_env.push_back("BRRR_CUPTI_DETACH=1");
  kept_env.push_back("BRRR_CUPTI_DETACH=0");
  const SampledRun detached = BrrrRun("untimed", {"--sample-device=30%"}, app, detach_env);
  const SampledRun attached = BrrrRun("untimed-kept", {"--sample-device=30%"}, app, kept_env);
  const Report& d = detached.report;
  const Report& a = attached.report;
  ASSERT_TRUE(d.device_sampling.has_value()) << detached.text;
  ASSERT_TRUE(d.coverage.has_value());
  ASSERT_TRUE(a.coverage.has_value());
  ASSERT_TRUE(d.overhead.has_value());
  const bool kept = d.overhead->basis.find("windows CUPTI stayed attached") != std::string::npos;
  if (!kept || d.coverage->untimed_device_ops > 0) {
    if (!kept) EXPECT_GE(d.device_sampling->cupti_detaches, 4u) << detached.text;
    EXPECT_GT(d.coverage->untimed_device_ops, 0u) << detached.text;
    EXPECT_FALSE(d.coverage->complete);
    EXPECT_THAT(detached.text, HasSubstr("came from CUPTI without timestamps"));
  } else {
    EXPECT_THAT(detached.text, Not(HasSubstr("without timestamps")));
  }
  EXPECT_EQ(a.coverage->untimed_device_ops, 0u) << attached.text;
  EXPECT_THAT(attached.text, Not(HasSubstr("without timestamps")));
  EXPECT_GT(d.device_sampling->traced_launches, 0u) << detached.text;
  const double truth = kLaunches * 20'000.0;  // back to back on the device
  EXPECT_NEAR(static_cast<double>(d.kernels.device_ns), truth, truth * 0.15) << detached.text;
  ExpectLaunchCallsExactUnlessDropped(d, kLaunches, detached.text);
  // The simulated device starts a kernel 3.86 us after its launch at the earliest: a latency
  // bucket at 0 would be a kernel timed at 0.
  for (const Report* r : {&d, &a}) {
    if (r->launch_latency_ns.histogram.empty()) continue;
    EXPECT_GT(r->launch_latency_ns.histogram.front().lo_ns, 0);
  }
  // The kernels that were timed ran 20 us each, one after another: the busy time is the device's
  // (it was busy from the first launch on), never more than the wall time.
  for (const DeviceBreakdown& dev : d.devices) EXPECT_LE(dev.busy_ns, dev.wall_ns);
}

// A device far behind its host (its queue of 1,024 kernels of 20 us full: 20 ms): cuptiFinalize
// waits for the queued work, as on the real driver (tools/gpu/workloads/attach_probe.cu), so the
// first detach takes longer than a quarter of a window and the shim keeps CUPTI attached from then
// on (shim/detach_grace.h): every window's kernels have their times, the device time holds, and
// the cost's basis says after how many windows CUPTI stayed attached.
TEST(SampledTracingEndToEnd, ADetachThatWaitedForTheDeviceKeepsCuptiAttached) {
  constexpr int kLaunches = 100000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun run =
      BrrrRun("kept", {"--sample-device=20%"}, app,
              {"BRRR_SAMPLE_WINDOW_MS=10", "BRRR_SIM_KERNEL_NS=20000", "BRRR_CUPTI_DETACH=1"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  EXPECT_GE(r.device_sampling->cupti_detaches, 1u) << run.text;
  // A few more where a loaded machine let the first ones find the queue short (ctest -j2 saw 3 of
  // 38 windows; the ASan build on a slow machine 7 of 55): CUPTI stays attached after at least
  // three windows in four, where detaching after each would make as many detaches as windows.
  EXPECT_LE(r.device_sampling->cupti_detaches * 4, r.device_sampling->windows) << run.text;
  EXPECT_GE(r.device_sampling->windows, 10u) << run.text;
  EXPECT_GT(r.device_sampling->traced_launches, 1000u) << run.text;
  ASSERT_TRUE(r.overhead.has_value());
  EXPECT_THAT(r.overhead->basis, HasSubstr("windows CUPTI stayed attached")) << run.text;
  const double truth = kLaunches * 20'000.0;
  EXPECT_NEAR(static_cast<double>(r.kernels.device_ns), truth, truth * 0.15) << run.text;
  ExpectLaunchCallsExactUnlessDropped(r, kLaunches, run.text);
}

TEST(SampledTracingEndToEnd, PeriodicLoopNearTheWindowLengthIsNotAliased) {
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_periodic_phases", "3",
                                        "10"};
  const SampledRun sampled =
      BrrrRun("periodic-25", {"--sample-device=25%"}, app,
              {"BRRR_SIM_KERNELS=phase_kernel=10000000", "BRRR_SAMPLE_WINDOW_MS=20"});
  const Report& s = sampled.report;
  ASSERT_TRUE(s.device_sampling.has_value()) << sampled.text;
  EXPECT_GE(s.device_sampling->windows, 20u) << sampled.text;
  // One launch per iteration, each a 10 ms kernel: the truth is launch calls x 10 ms.
  ASSERT_GT(s.kernels.launch_calls, 50u);
  const double truth = static_cast<double>(s.kernels.launch_calls) * 10e6;
  EXPECT_NEAR(static_cast<double>(BusyNs(s)), truth, truth * 0.10) << sampled.text;
  EXPECT_LT(s.device_sampling->traced_launches, s.kernels.launch_calls / 2);
  ASSERT_TRUE(s.device_sampling->busy_error_points.has_value());
  EXPECT_LT(*s.device_sampling->busy_error_points, 10.0);
}

// On an H200 the first launch after kernel records are turned on takes 5.6-5.9 ms
// (tools/gpu/workloads/attach_probe.cu): once a window, in one call, which the medians of the
// launch calls never see. The simulated device charges 3 ms (SIMCUDA_CUPTI_KERNEL_ENABLE_NS): the
// estimate prices each window's first launch call apart, about 3 ms a window, and says so.
TEST(SampledTracingEndToEnd, WhatTurningKernelRecordsOnCostsTheNextLaunchIsCounted) {
  constexpr int kLaunches = 300000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun run = BrrrRun("enable-cost", {"--sample-device=10%"}, app,
                                 {"BRRR_SAMPLE_WINDOW_MS=20", "BRRR_SIM_KERNEL_NS=1000",
                                  "SIMCUDA_CUPTI_KERNEL_ENABLE_NS=3000000"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.overhead.has_value()) << run.text;
  const uint64_t windows = r.device_sampling->windows;
  EXPECT_GE(windows, 3u) << run.text;
  EXPECT_THAT(r.overhead->basis, HasSubstr("the first launch call in each window took"));
  ASSERT_TRUE(r.overhead->device_tracing_ns.has_value()) << r.overhead->basis;
  // 3 ms for most windows (in about one run in three, one window's first launch call went
  // unseen: the estimate is then low by that window's cost).
  EXPECT_GE(*r.overhead->device_tracing_ns, static_cast<int64_t>(windows / 2) * 3'000'000)
      << r.overhead->basis;
  // The device keeps up with its host (1 us kernels): nothing queued hid those stalls.
  EXPECT_LT(r.overhead->hidden_by_device_ns.value_or(0), static_cast<int64_t>(windows) * 500'000)
      << r.overhead->basis;
}

// The same 3 ms, on a loop whose device runs 200 ms behind its host (200 us kernels behind a
// queue of 1024; CUPTI stays attached after a detach waited for them): the device still had 200 ms
// of earlier work queued when each window's first launch call returned, so those stalls cost the
// app nothing. (20 us kernels kept the device only 20 ms behind, and an ASan build's host on a
// loaded machine, slower than 20 us a launch, let it catch up: no window's stall was hidden.)
// Its kernel started that late, and the estimate does not count them (before, 3 ms a window of a
// run that measured 0.4-0.6 % slower than alone was counted: 7.1 % estimated).
TEST(SampledTracingEndToEnd, WhatTheDeviceQueueHidOfTurningKernelRecordsOnIsNotCounted) {
  constexpr int kLaunches = 10000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun run = BrrrRun("enable-cost-hidden", {"--sample-device=20%"}, app,
                                 {"BRRR_SAMPLE_WINDOW_MS=10", "BRRR_SIM_KERNEL_NS=200000",
                                  "BRRR_CUPTI_DETACH=1", "SIMCUDA_CUPTI_KERNEL_ENABLE_NS=3000000"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.overhead.has_value()) << run.text;
  const auto windows = static_cast<int64_t>(r.device_sampling->windows);
  EXPECT_GE(windows, 10) << run.text;
  EXPECT_THAT(r.overhead->basis, HasSubstr("the device was still busy with earlier work"));
  // At least one window's 3 ms hidden. Unloaded, most windows' are; a window whose first call
  // the device caught up with is counted, and a loaded machine lets it catch up (the ASan build on
  // a slow machine: 5 of 55 windows): how much is counted then is the unit test's to check,
  // TracedWindowsTest.WhatTheDeviceQueueHidOfAFirstCallIsNotCounted.
  EXPECT_GE(r.overhead->hidden_by_device_ns.value_or(0), 2'500'000) << r.overhead->basis;
  EXPECT_THAT(r.overhead->basis, HasSubstr("from the app (not counted)"));
}

TEST(SampledTracingEndToEnd, AnOverheadBudgetKeepsTheMeasuredCostUnderIt) {
  constexpr int kLaunches = 400000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  // 10 ms windows: several even at the 2 % a budget starts from. 1 us kernels: the device keeps
  // up with the host (5 us ones would fill its queue, and the launch calls would measure that).
  const SampledRun run = BrrrRun(
      "budget-2", {"--overhead-budget=2%"}, app,
      {"SIMCUDA_CUPTI_CALL_NS=1000", "BRRR_SAMPLE_WINDOW_MS=10", "BRRR_SIM_KERNEL_NS=1000"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.overhead.has_value()) << run.text;
  EXPECT_EQ(r.device_sampling->budget_pct, 2.0);
  EXPECT_GT(r.device_sampling->fraction, 0.0);
  EXPECT_LT(r.device_sampling->fraction, 1.0);
  EXPECT_GE(r.device_sampling->windows, 1u) << run.text;
  EXPECT_LE(r.overhead->pct_of_wall, 2.0) << r.overhead->basis;
  ExpectLaunchCallsExactUnlessDropped(r, kLaunches, run.text);
  EXPECT_THAT(run.text, HasSubstr("steered under a 2% cost budget"));
  EXPECT_THAT(r.overhead->basis, HasSubstr("budget: 2% of wall"));
  // A budget detaches CUPTI between windows unless told not to (BRRR_CUPTI_DETACH=auto): at least
  // once, before the first window.
  EXPECT_GE(r.device_sampling->cupti_detaches, 1u) << run.text;
  EXPECT_THAT(run.text, HasSubstr("or an overhead budget, asked for this"));
}

// Each window brings its own attach (16 ms idle on an H200; 10 ms here, SIMCUDA_CUPTI_SUBSCRIBE_NS)
// beside what tracing adds to its launch calls. A budget that priced only the calls traced about
// 2.5 % of 10 ms windows and cost 3.0-3.6 % (three runs); priced with the attaches and detaches,
// the share comes down until the cost is under the budget, or to its floor, where a window costs
// more than its length whatever it traces: then the report says the budget was not met, and why
// (with the A/B's means, which count CUPTI's buffer hand-offs, one run cost 2.05 % at the floor).
TEST(SampledTracingEndToEnd, ABudgetCountsWhatAttachingCuptiForEachWindowTakes) {
  constexpr int kLaunches = 2000000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun run =
      BrrrRun("budget-attach", {"--overhead-budget=2%"}, app,
              {"SIMCUDA_CUPTI_CALL_NS=1000", "BRRR_SAMPLE_WINDOW_MS=10", "BRRR_SIM_KERNEL_NS=1000",
               "SIMCUDA_CUPTI_SUBSCRIBE_NS=10000000"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.overhead.has_value()) << run.text;
  EXPECT_GE(r.device_sampling->windows, 2u) << run.text;
  EXPECT_GE(r.device_sampling->cupti_detaches, 2u) << run.text;
  EXPECT_THAT(r.overhead->basis, HasSubstr("attaching it again"));
  EXPECT_LT(r.device_sampling->fraction, 0.02) << r.overhead->basis;  // steered down from 2 %
  if (r.overhead->pct_of_wall > 2.0) {
    EXPECT_THAT(r.overhead->basis, HasSubstr("not met: the traced share fell to its floor"));
  }
  ExpectLaunchCallsExactUnlessDropped(r, kLaunches, run.text);
}

TEST(SampledTracingEndToEnd, ABudgetTheHooksAloneExceedSteersTheShareDownAndSaysSo) {
  // About 3 s of launches at ~20 ns of hooks on ~3 us calls: the hooks alone cost ~0.5 %; the
  // budget is 0.1 %. From the 10 % asked, each second's step cuts the share to a quarter.
  constexpr int kLaunches = 700000;
  const std::vector<std::string> app = {std::string(E2E_BIN_DIR) + "/e2e_launch_bound",
                                        std::to_string(kLaunches)};
  const SampledRun run =
      BrrrRun("budget-tight", {"--sample-device=10%", "--overhead-budget=0.1%"}, app,
              {"SIMCUDA_CUPTI_CALL_NS=1000", "BRRR_SAMPLE_WINDOW_MS=10"});
  const Report& r = run.report;
  ASSERT_TRUE(r.device_sampling.has_value()) << run.text;
  ASSERT_TRUE(r.overhead.has_value()) << run.text;
  EXPECT_LT(r.device_sampling->fraction, 0.08) << "not steered down from 10 %: " << run.text;
  // The reason given follows the report's own figures: on an idle machine the hooks' ~14 ms are
  // ~0.5 % of a ~3 s run; a loaded machine stretches the run until they may be under 0.1 %.
  ASSERT_TRUE(r.overhead->hooks_ns.has_value());
  ASSERT_GT(r.wall_ns, 0);
  const double hooks_pct =
      100.0 * static_cast<double>(*r.overhead->hooks_ns) / static_cast<double>(r.wall_ns);
  if (hooks_pct > 0.1) {
    EXPECT_THAT(r.overhead->basis, HasSubstr("not met: the hooks alone cost more"));
  } else if (r.overhead->pct_of_wall > 0.1) {
    EXPECT_THAT(r.overhead->basis, HasSubstr("not met: the run was too short"));
  }
  ExpectLaunchCallsExactUnlessDropped(r, kLaunches, run.text);
}

}  // namespace
}  // namespace brrr
