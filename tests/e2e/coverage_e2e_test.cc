// End-to-end tests of the report's coverage: nvcc-built programs that reach the simulated device
// by every path issue 4 names — a static runtime (no hook can see it), the driver API reached
// through dlopen + cuGetProcAddress_v2, CUDA graph replays, a plain dynamic runtime — and a
// host-only run, each under `brrr run`, checking the saved report: exact kernel and call counts
// (every call counted once whichever mechanism saw it), which mechanism saw the calls, which
// calls have no stack, and whether the report says something could have escaped.
// Paths come from the build: BRRR_BIN, SIMCUDA_LIB_DIR, E2E_BIN_DIR, BRRR_PRELOAD_PREFIX.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "viewer/format/report.h"
#include "viewer/format/report_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report_json.h"


namespace brrr {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using e2e::SimEnvironment;

// (exit code, stdout) of argv with env.
std::pair<int, std::string> Spawn(const std::vector<std::string>& argv,
                                  const std::vector<std::string>& env) {
  const e2e::ProcessResult r = e2e::Spawn(argv, env);
  return {r.exit_code, r.output};
}

struct RunResult {
  int exit_code = -1;
  std::string output;     // the program's stdout
  std::string brrr_file;  // the saved .brrr (removed by the test fixture)
  Report report;
};

class CoverageEndToEnd : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& path : files_) std::filesystem::remove(path);
  }

  // e2e_coverage_driver_launch's report under `env` (defined below, with its checks).
  Report DriverLaunchReport(const std::vector<std::string>& env);

  // `brrr run --quiet --output <tmp> -- <program> args` on the simulated device.
  RunResult Run(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env) {
    RunResult result;
    result.brrr_file =
        ::testing::TempDir() + "/coverage-" + program + "-" + std::to_string(::getpid()) + ".brrr";
    std::filesystem::remove(result.brrr_file);
    files_.push_back(result.brrr_file);
    std::vector<std::string> argv_s = {BRRR_BIN,
                                       "run",
                                       "--quiet",
                                       "--output",
                                       result.brrr_file,
                                       "--",
                                       std::string(E2E_BIN_DIR) + "/" + program};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::tie(result.exit_code, result.output) = Spawn(argv_s, SimEnvironment(extra_env));
    absl::StatusOr<Report> report = ReadBrrrFile(result.brrr_file);
    if (!report.ok()) {
      ADD_FAILURE() << "no readable report at " << result.brrr_file << ": " << report.status();
      return result;
    }
    result.report = *std::move(report);
    return result;
  }

 private:
  std::vector<std::string> files_;
};

uint64_t CallsOf(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return a.calls;
  }
  return 0;
}

uint64_t SumOfApiCalls(const Report& r) {
  uint64_t sum = 0;
  for (const ApiStat& a : r.api) sum += a.calls;
  return sum;
}

uint64_t LaunchesOfKernel(const Report& r, const std::string& name_part) {
  uint64_t launches = 0;
  for (const KernelStat& k : r.kernels.top) {
    if (k.name.find(name_part) != std::string::npos) launches += k.launches;
  }
  return launches;
}

const CallsWithoutStack* WithoutStack(const Coverage& c, const std::string& api) {
  for (const CallsWithoutStack& row : c.without_stack) {
    if (row.api == api) return &row;
  }
  return nullptr;
}

std::string Describe(const Report& r) {
  std::string out = "\napi:";
  for (const ApiStat& a : r.api) out += " " + a.name + "=" + std::to_string(a.calls);
  if (r.coverage) {
    const Coverage& c = *r.coverage;
    out += "\ncoverage: hooked=" + std::to_string(c.hooked_calls) +
           " callback=" + std::to_string(c.callback_calls) +
           " cupti_only=" + std::to_string(c.cupti_only_calls) +
           " without_stack=" + std::to_string(c.calls_without_stack) +
           " complete=" + (c.complete ? "true" : "false");
    for (const std::string& gap : c.gaps) out += "\n  gap: " + gap;
  } else {
    out += "\nno coverage";
  }
  if (r.host_only) out += "\nhost-only: " + r.host_only_reason;
  return out;
}

// What must hold in every report: each call counted under exactly one mechanism, and the stack
// table consistent with the counts.
void ExpectCountedOnce(const Report& r) {
  ASSERT_TRUE(r.coverage.has_value());
  const Coverage& c = *r.coverage;
  EXPECT_EQ(c.hooked_calls + c.callback_calls + c.cupti_only_calls, SumOfApiCalls(r))
      << Describe(r);
  // CUPTI-only calls never have a stack.
  EXPECT_GE(c.calls_without_stack, c.cupti_only_calls) << Describe(r);
  uint64_t listed = 0;
  for (const CallsWithoutStack& row : c.without_stack) {
    listed += row.calls;
    EXPECT_LE(row.calls, CallsOf(r, row.api)) << row.api << Describe(r);
  }
  if (c.without_stack.size() < 20) {
    EXPECT_EQ(listed, c.calls_without_stack) << Describe(r);
  }
  EXPECT_EQ(c.complete, c.gaps.empty()) << Describe(r);
}

TEST_F(CoverageEndToEnd, StaticRuntimeCallsAreAllCountedOnceThoughNoHookSeesThem) {
  constexpr int kLaunches = 300;
  const RunResult r = Run("e2e_coverage_static_runtime", {std::to_string(kLaunches)},
                          {"BRRR_SIM_KERNELS=static_tiny=20000", "BRRR_SIM_LAUNCH_NS=1000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_FALSE(rep.host_only) << rep.host_only_reason;
  EXPECT_EQ(rep.kernels.launches, uint64_t{kLaunches}) << Describe(rep);
  EXPECT_EQ(LaunchesOfKernel(rep, "static_tiny"), uint64_t{kLaunches});
  // Static cudart binds its calls inside the executable: no runtime hook fires.
  EXPECT_EQ(rep.coverage->hooked_calls, 0u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), uint64_t{kLaunches}) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaStreamSynchronize"), 3u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaMemcpy"), 2u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaMalloc"), 1u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaFree"), 1u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaStreamCreate"), 1u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaStreamDestroy"), 1u) << Describe(rep);
  // Whether CUPTI callbacks (with stacks) or CUPTI records alone saw them, they were seen.
  EXPECT_GE(rep.coverage->callback_calls + rep.coverage->cupti_only_calls, uint64_t{kLaunches} + 9);
  // Calls seen by CUPTI records alone are named as having no stack.
  if (rep.coverage->cupti_only_calls > 0) {
    EXPECT_THAT(rep.coverage->without_stack, ::testing::Not(IsEmpty()));
  }
  // The shim's CUPTI callbacks saw the launches, syncs, copies and the free, with stacks.
  EXPECT_EQ(rep.coverage->callback_calls, uint64_t{kLaunches} + 3 + 2 + 1) << Describe(rep);
  for (const char* api : {"__cudaLaunchKernel", "cudaStreamSynchronize", "cudaMemcpy"}) {
    EXPECT_EQ(WithoutStack(*rep.coverage, api), nullptr) << api << Describe(rep);
  }
  const auto sync = std::find_if(rep.stalls.begin(), rep.stalls.end(), [](const Stall& s) {
    return s.api == "cudaStreamSynchronize" && s.reason == "stream_sync";
  });
  ASSERT_NE(sync, rep.stalls.end()) << Describe(rep);
  EXPECT_THAT(sync->stack, Contains(HasSubstr("main (coverage_static_runtime.cu")));
  ExpectCountedOnce(rep);
  EXPECT_TRUE(rep.coverage->complete) << Describe(rep);
}

// The real driver delivers a callback under many frames of its own and CUPTI's: a callback's stack
// starts past them, however deep (up to 64), and one that reaches nothing else says so.
TEST_F(CoverageEndToEnd, CallbackStacksStartPastTheFramesThatDeliveredThem) {
  // 2 ms kernels: each sync waits for 20 ms of queued work however slowly the deep callbacks
  // launch (with 20 us kernels, an ASan build's launches were slower than the kernels, the
  // device had drained by each sync and no sync stalled: 1 CI run in several).
  const std::vector<std::string> env = {"BRRR_SIM_KERNELS=static_tiny=2000000",
                                        "BRRR_SIM_LAUNCH_NS=1000"};
  std::vector<std::string> deep = env;
  deep.push_back("SIMCUDA_CUPTI_CALLBACK_DEPTH=45");
  const RunResult r = Run("e2e_coverage_static_runtime", {"30"}, deep);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto is_sync = [](const Stall& s) {
    return s.api == "cudaStreamSynchronize" && s.reason == "stream_sync";
  };
  const auto sync = std::find_if(r.report.stalls.begin(), r.report.stalls.end(), is_sync);
  ASSERT_NE(sync, r.report.stalls.end()) << Describe(r.report);
  EXPECT_THAT(sync->stack, Contains(HasSubstr("main (coverage_static_runtime.cu")))
      << ::testing::PrintToString(sync->stack);
  EXPECT_EQ(sync->ended_early, "");

  std::vector<std::string> deeper = env;
  deeper.push_back("SIMCUDA_CUPTI_CALLBACK_DEPTH=300");
  const RunResult beyond = Run("e2e_coverage_static_runtime", {"30"}, deeper);
  ASSERT_EQ(beyond.exit_code, 0) << beyond.output;
  const auto lost = std::find_if(beyond.report.stalls.begin(), beyond.report.stalls.end(), is_sync);
  ASSERT_NE(lost, beyond.report.stalls.end()) << Describe(beyond.report);
  ASSERT_EQ(lost->stack.size(), 1u) << ::testing::PrintToString(lost->stack);
  EXPECT_THAT(lost->stack[0], HasSubstr("(libcupti.so"));
  EXPECT_THAT(lost->ended_early, HasSubstr("holds only frames of libcupti.so"));
  ASSERT_TRUE(beyond.report.stack_ends.has_value());
  bool counted = false;
  for (const StackEnds::Ended& e : beyond.report.stack_ends->ended_early) {
    counted |= e.kind == "cuda_frames_only" && e.calls >= lost->calls;  // that row, at least
  }
  EXPECT_TRUE(counted) << "the run-wide count has the stacks that reached only CUPTI's frames: "
                       << RenderJson(beyond.report);
}

TEST_F(CoverageEndToEnd, WithoutCallbacksStaticRuntimeCallsAreCountedFromCuptiRecordsAlone) {
  constexpr int kLaunches = 99;  // the program launches in thirds
  const RunResult r = Run("e2e_coverage_static_runtime", {std::to_string(kLaunches)},
                          {"BRRR_CALLBACKS=0", "BRRR_SIM_KERNELS=static_tiny=1000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_EQ(rep.coverage->callback_calls, 0u) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), uint64_t{kLaunches}) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cudaStreamSynchronize"), 3u) << Describe(rep);
  const CallsWithoutStack* stackless = WithoutStack(*rep.coverage, "__cudaLaunchKernel");
  ASSERT_NE(stackless, nullptr) << Describe(rep);
  EXPECT_EQ(stackless->calls, uint64_t{kLaunches});
  ExpectCountedOnce(rep);
}

// e2e_coverage_driver_launch's 200 driver and 50 runtime launches, one stream sync, under `env`:
// its report, after the checks every setting must pass (each launch and kernel counted, the sync
// once, driver launches with stacks).
constexpr int kDriverLaunches = 200, kRuntimeLaunches = 50;
Report CoverageEndToEnd::DriverLaunchReport(const std::vector<std::string>& env) {
  const RunResult r = Run("e2e_coverage_driver_launch",
                          {std::to_string(kDriverLaunches), std::to_string(kRuntimeLaunches)}, env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  EXPECT_TRUE(rep.coverage.has_value());
  EXPECT_FALSE(rep.host_only) << rep.host_only_reason;
  EXPECT_EQ(rep.kernels.launches, uint64_t{kDriverLaunches + kRuntimeLaunches}) << Describe(rep);
  EXPECT_EQ(LaunchesOfKernel(rep, "driver_kernel"), uint64_t{kDriverLaunches});
  EXPECT_EQ(LaunchesOfKernel(rep, "runtime_kernel"), uint64_t{kRuntimeLaunches});
  EXPECT_EQ(CallsOf(rep, "cuLaunchKernel"), uint64_t{kDriverLaunches}) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), uint64_t{kRuntimeLaunches}) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "cuStreamSynchronize"), 1u) << Describe(rep);
  if (rep.coverage.has_value()) {
    EXPECT_EQ(WithoutStack(*rep.coverage, "cuLaunchKernel"), nullptr) << Describe(rep);
  }
  ExpectCountedOnce(rep);
  return rep;
}

TEST_F(CoverageEndToEnd, DriverApiLaunchesThroughGetProcAddressAreCountedOnce) {
  const Report rep = DriverLaunchReport(
      {"BRRR_SIM_KERNELS=driver_kernel=50000,runtime_kernel=1000", "BRRR_SIM_LAUNCH_NS=1000"});
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_EQ(CallsOf(rep, "cuModuleGetFunction"), 1u) << Describe(rep);
  // The runtime calls, and only they, went through the hooks: cudaMalloc, the launches,
  // cudaDeviceSynchronize, cudaFree.
  EXPECT_EQ(rep.coverage->hooked_calls, uint64_t{kRuntimeLaunches} + 3) << Describe(rep);
  EXPECT_GE(rep.coverage->callback_calls + rep.coverage->cupti_only_calls,
            uint64_t{kDriverLaunches} + 9)
      << Describe(rep);
  EXPECT_EQ(WithoutStack(*rep.coverage, "__cudaLaunchKernel"), nullptr) << Describe(rep);
  // Driver launches and syncs come with stacks through the shim's CUPTI callbacks.
  EXPECT_EQ(WithoutStack(*rep.coverage, "cuStreamSynchronize"), nullptr) << Describe(rep);
  EXPECT_GE(rep.coverage->callback_calls, uint64_t{kDriverLaunches} + 1) << Describe(rep);
  const auto sync = std::find_if(rep.stalls.begin(), rep.stalls.end(), [](const Stall& s) {
    return s.api == "cuStreamSynchronize" && s.reason == "stream_sync";
  });
  ASSERT_NE(sync, rep.stalls.end()) << Describe(rep);  // 200 x 50 us of kernels to wait for
  EXPECT_THAT(sync->stack, Contains(HasSubstr("DriverLaunches")));
  EXPECT_TRUE(rep.coverage->complete) << Describe(rep);
}

// BRRR_DRIVER_RECORDS=0: CUPTI's DRIVER kind stays off. The driver calls in the shim's callback
// list (launches, syncs) are still counted, with stacks; one outside it (cuModuleGetFunction) is
// not seen at all, as settings.def says.
TEST_F(CoverageEndToEnd, WithoutDriverRecordsOnlyTheCallbackListsDriverCallsAreSeen) {
  const Report rep = DriverLaunchReport(
      {"BRRR_SIM_KERNELS=driver_kernel=1000,runtime_kernel=1000", "BRRR_DRIVER_RECORDS=0"});
  EXPECT_EQ(CallsOf(rep, "cuModuleGetFunction"), 0u) << Describe(rep);
}

TEST_F(CoverageEndToEnd, GraphReplaysCountEveryKernelNodeAndEachGraphLaunchOnce) {
  constexpr int kReplays = 40, kNodes = 3;
  constexpr int64_t kGraphNs = 1000 + 2000 + 3000;
  const RunResult r = Run("e2e_coverage_graph", {std::to_string(kReplays)},
                          {"BRRR_SIM_KERNELS=graph_a=1000,graph_b=2000,graph_c=3000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_EQ(rep.kernels.launches, uint64_t{kNodes * kReplays}) << Describe(rep);
  for (const char* kernel : {"graph_a", "graph_b", "graph_c"}) {
    EXPECT_EQ(LaunchesOfKernel(rep, kernel), uint64_t{kReplays}) << kernel;
  }
  EXPECT_NEAR(rep.kernels.device_ns, kReplays * kGraphNs, kReplays * kGraphNs / 100);
  EXPECT_EQ(CallsOf(rep, "cudaGraphLaunch"), uint64_t{kReplays}) << Describe(rep);
  // Captured launches are calls too, but they run nothing.
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), uint64_t{kNodes}) << Describe(rep);
  // Hooked, with stacks: the graph launches, the captured launches, the stream sync.
  EXPECT_EQ(rep.coverage->hooked_calls, uint64_t{kReplays + kNodes + 1}) << Describe(rep);
  EXPECT_EQ(WithoutStack(*rep.coverage, "cudaGraphLaunch"), nullptr) << Describe(rep);
  ExpectCountedOnce(rep);
  EXPECT_TRUE(rep.coverage->complete) << Describe(rep);
}

TEST_F(CoverageEndToEnd, DynamicRuntimeProgramIsFullyHookedAndNothingEscaped) {
  constexpr int kLaunches = 200;
  const RunResult r = Run("e2e_coverage_dynamic", {std::to_string(kLaunches)},
                          {"BRRR_SIM_KERNELS=dynamic_tiny=1000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_EQ(rep.kernels.launches, uint64_t{kLaunches});
  EXPECT_EQ(rep.coverage->hooked_calls, uint64_t{kLaunches} + 6) << Describe(rep);
  const std::vector<std::pair<std::string, uint64_t>> program_calls = {
      {"__cudaLaunchKernel", kLaunches},
      {"cudaMalloc", 1},
      {"cudaStreamSynchronize", 1},
      {"cudaMemcpy", 2},
      {"cudaFree", 1},
      {"cudaDeviceSynchronize", 1}};
  for (const auto& [api, calls] : program_calls) {
    // Exactly once: the CUPTI record of a hooked call is never counted as a second call.
    EXPECT_EQ(CallsOf(rep, api), calls) << api << Describe(rep);
    EXPECT_EQ(WithoutStack(*rep.coverage, api), nullptr) << api << " has calls without a stack";
  }
  // Whatever else CUPTI reported (registration calls before main) is outside the hooked families.
  EXPECT_EQ(rep.coverage->cupti_only_calls, SumOfApiCalls(rep) - (uint64_t{kLaunches} + 6));
  EXPECT_EQ(rep.coverage->callback_calls, 0u);
  ExpectCountedOnce(rep);
  EXPECT_TRUE(rep.coverage->complete) << Describe(rep);
  EXPECT_THAT(rep.coverage->gaps, IsEmpty());

  // The saved file renders the same coverage again, as JSON and as text.
  const auto [json_code, json] = Spawn({BRRR_BIN, "report", r.brrr_file, "--json"}, {});
  ASSERT_EQ(json_code, 0);
  absl::StatusOr<Report> reparsed = ParseReportJson(json);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ASSERT_TRUE(reparsed->coverage.has_value());
  EXPECT_EQ(reparsed->coverage->hooked_calls, rep.coverage->hooked_calls);
  EXPECT_EQ(reparsed->coverage->cupti_only_calls, rep.coverage->cupti_only_calls);
  EXPECT_TRUE(reparsed->coverage->complete);
  const auto [text_code, text] = Spawn({BRRR_BIN, "report", r.brrr_file}, {});
  ASSERT_EQ(text_code, 0);
  EXPECT_THAT(text, AllOf(HasSubstr("COVERAGE"), HasSubstr("seen by the runtime hooks 206,"),
                          HasSubstr("nothing escaped")));
}

TEST_F(CoverageEndToEnd, HostOnlyStaticRuntimeRunSaysWhatCouldHaveEscaped) {
  constexpr int kLaunches = 30;
  const RunResult r = Run("e2e_coverage_static_runtime", {std::to_string(kLaunches)},
                          {"BRRR_CUPTI=0", "BRRR_SIM_KERNELS=static_tiny=1000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_FALSE(rep.coverage->complete) << Describe(rep);
  ASSERT_THAT(rep.coverage->gaps, ::testing::Not(IsEmpty())) << Describe(rep);
  // No hook sees a static cudart and CUPTI is off: nothing of the program's CUDA use is seen,
  // and the report must say why rather than present an empty run as complete.
  EXPECT_EQ(rep.coverage->hooked_calls, 0u);
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), 0u);
  EXPECT_TRUE(rep.host_only) << Describe(rep);
  EXPECT_THAT(rep.coverage->gaps[0],
              AllOf(HasSubstr("host-only"), HasSubstr("BRRR_CUPTI=0"), HasSubstr("static cudart")))
      << Describe(rep);
}

TEST_F(CoverageEndToEnd, CuptiHeldByAnotherToolMakesADynamicRunHostOnlyAndIncomplete) {
  constexpr int kLaunches = 50;
  const RunResult r = Run("e2e_coverage_dynamic", {std::to_string(kLaunches)},
                          {"SIMCUDA_CUPTI_FOREIGN_SUBSCRIBER=nsys"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Report& rep = r.report;
  ASSERT_TRUE(rep.coverage.has_value());
  EXPECT_TRUE(rep.host_only);
  EXPECT_EQ(rep.kernels.launches, 0u);
  // The hooks still see every runtime call, each once.
  EXPECT_EQ(rep.coverage->hooked_calls, uint64_t{kLaunches} + 6) << Describe(rep);
  EXPECT_EQ(CallsOf(rep, "__cudaLaunchKernel"), uint64_t{kLaunches});
  EXPECT_EQ(rep.coverage->cupti_only_calls, 0u);
  EXPECT_FALSE(rep.coverage->complete);
  ASSERT_THAT(rep.coverage->gaps, ::testing::SizeIs(1)) << Describe(rep);
  EXPECT_THAT(rep.coverage->gaps[0],
              AllOf(HasSubstr("host-only"), HasSubstr("another tool"), HasSubstr("driver API")));
  ExpectCountedOnce(rep);
}

}  // namespace
}  // namespace brrr
