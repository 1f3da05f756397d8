// End-to-end test of a program written for real GPUs (gpu_sample_style.cu: device selection by
// attributes, blocking-sync flags, mapped pinned memory, host functions in a stream, a pitched 2D
// copy, occupancy-sized launches, an event polling loop) under `brrr run` on the simulated
// device: it runs to "RESULT ok", its kernels and calls are counted exactly, and the polling loop
// is a query_poll stall at its line; and context_init.cu, whose first call (cudaFree(NULL), or
// cudaMalloc) creates CUDA's context: start-up, and a free of NULL is no stall. Paths come from the
// build: BRRR_BIN, E2E_BIN_DIR, E2E_SOURCE_DIR.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "viewer/format/report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "viewer/format/brrr_file.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

// gpu_sample_style.cu's counts.
constexpr uint64_t kScaleLaunches = 20;
constexpr uint64_t kPolls = 3;
constexpr uint64_t kHostFunctions = 4;

// "(gpu_sample_style.cu:N)" for the line marked "MARK: <mark>".
std::string At(const std::string& mark) {
  std::ifstream source(std::string(E2E_SOURCE_DIR) + "/gpu_sample_style.cu");
  std::string text;
  for (int line = 1; std::getline(source, text); ++line) {
    if (text.find("// MARK: " + mark) != std::string::npos) {
      return "(gpu_sample_style.cu:" + std::to_string(line) + ")";
    }
  }
  ADD_FAILURE() << "no line marked " << mark;
  return "(no such mark)";
}

const ApiStat* FindApi(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string DescribeStalls(const Report& r) {
  std::string out;
  for (const Stall& s : r.stalls) {
    out += "\n  " + s.api + " " + s.reason + " calls=" + std::to_string(s.calls);
    for (const std::string& f : s.stack) out += "\n      " + f;
  }
  return out;
}

TEST(GpuSampleStyle, RunsOnTheSimulatedDeviceWithItsKernelsCallsAndPollingStall) {
  const std::string out =
      ::testing::TempDir() + "/gpu-sample-style-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  // 5 ms polled kernels: the loop spins for a while even on a loaded host.
  const e2e::ProcessResult run =
      e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", out, "--",
                  std::string(E2E_BIN_DIR) + "/e2e_gpu_sample_style"},
                 e2e::SimEnvironment({"BRRR_SIM_KERNELS=long_step=5000000,scale=20000"}));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("CC 9.0, 132 SMs x 128 cores"));
  EXPECT_THAT(run.output, HasSubstr("host functions 4"));
  EXPECT_THAT(run.output, HasSubstr("RESULT ok"));
  auto report = ReadBrrrFile(out);
  std::filesystem::remove(out);
  ASSERT_TRUE(report.ok()) << report.status();
  const Report& r = *report;

  EXPECT_EQ(r.kernels.launches, kScaleLaunches + kPolls);
  const ApiStat* launches = FindApi(r, "__cudaLaunchKernel");
  ASSERT_NE(launches, nullptr);
  EXPECT_EQ(launches->calls, kScaleLaunches + kPolls);
  const ApiStat* copies_2d = FindApi(r, "cudaMemcpy2D");
  ASSERT_NE(copies_2d, nullptr) << "a hooked call";
  EXPECT_EQ(copies_2d->calls, 2u);
  const ApiStat* host_functions = FindApi(r, "cudaLaunchHostFunc");
  ASSERT_NE(host_functions, nullptr) << "seen through CUPTI's records";
  EXPECT_EQ(host_functions->calls, kHostFunctions);
  const ApiStat* attributes = FindApi(r, "cudaDeviceGetAttribute");
  ASSERT_NE(attributes, nullptr);
  // Five in PickDevice, four in the header's cudaOccupancyMaxPotentialBlockSize template.
  EXPECT_EQ(attributes->calls, 5u + 4u);

  // The polling loop: a query_poll stall whose stack names poll_for_event at its loop line.
  const Stall* poll = nullptr;
  for (const Stall& s : r.stalls) {
    if (s.reason != "query_poll") continue;
    for (const std::string& f : s.stack) {
      if (f.find("poll_for_event") != std::string::npos) poll = &s;
    }
  }
  ASSERT_NE(poll, nullptr) << DescribeStalls(r);
  EXPECT_EQ(poll->api, "cudaEventQuery");
  bool at_line = false;
  for (const std::string& f : poll->stack) {
    if (f.find("poll_for_event") != std::string::npos &&
        f.find(" " + At("poll")) != std::string::npos) {
      at_line = true;
    }
  }
  EXPECT_TRUE(at_line) << "expected poll_for_event " << At("poll") << DescribeStalls(r);
  EXPECT_GE(poll->total_ns, int64_t{kPolls} * 2'500'000) << "most of each 5 ms kernel";
}

// Found on an H100 (issue 26): a program's first call, cudaFree(NULL), took 200 ms creating CUDA's
// context, and brrr called it a free that waited for the device (with advice to stop freeing in
// the loop) and counted its time in the steady state. A free of NULL frees nothing, and the call
// in which CUDA initializes (that one, or a first cudaMalloc) is start-up. A free of a real buffer
// while a kernel runs still is a stall.
void CheckContextInitialization(const std::string& first_call) {
  SCOPED_TRACE(first_call);
  const std::string out =
      ::testing::TempDir() + "/context-init-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  constexpr int64_t kInitNs = 300'000'000;
  const e2e::ProcessResult run =
      e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", out, "--",
                  std::string(E2E_BIN_DIR) + "/e2e_context_init", first_call},
                 e2e::SimEnvironment({"BRRR_SIM_KERNELS=step=20000,long_step=20000000",
                                      "SIMCUDA_CONTEXT_INIT_NS=" + std::to_string(kInitNs)}));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("RESULT ok"));
  auto report = ReadBrrrFile(out);
  std::filesystem::remove(out);
  ASSERT_TRUE(report.ok()) << report.status();
  const Report& r = *report;

  const bool free_first = first_call == "free-null";
  const ApiStat* frees = FindApi(r, "cudaFree");
  ASSERT_NE(frees, nullptr);
  EXPECT_EQ(frees->calls, free_first ? 2u : 1u);
  const ApiStat* init = FindApi(r, free_first ? "cudaFree" : "cudaMalloc");
  ASSERT_NE(init, nullptr);
  EXPECT_GE(init->total_ns, kInitNs) << "the first call holds the context's creation";
  int free_stalls = 0;
  for (const Stall& s : r.stalls) {
    if (s.api != "cudaFree") continue;
    ++free_stalls;
    EXPECT_EQ(s.reason, "free_syncs_device");
    EXPECT_EQ(s.calls, 1u) << "only the free of the real buffer" << DescribeStalls(r);
    EXPECT_LT(s.total_ns, kInitNs) << DescribeStalls(r);
    EXPECT_GE(s.total_ns, 10'000'000) << "most of the 20 ms kernel it waited for";
  }
  EXPECT_EQ(free_stalls, 1) << DescribeStalls(r);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceBreakdown& d = r.devices[0];
  EXPECT_GE(d.startup_ns, kInitNs);
  EXPECT_LT(d.idle.sync_drain_ns, kInitNs);
  EXPECT_LT(d.idle.launch_bound_ns, kInitNs);
  EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns,
            d.wall_ns);
}

TEST(GpuSampleStyle, ContextInitializationByAFreeOfNullIsStartUpNotAStall) {
  CheckContextInitialization("free-null");
}

TEST(GpuSampleStyle, ContextInitializationInTheFirstAllocationIsStartUp) {
  CheckContextInitialization("malloc");
}

}  // namespace
}  // namespace brrr
