// End-to-end test of capture ranges: capture_ranges.cu under `brrr run --capture-range=...` on the
// simulated device. Exactly the launches inside the ranges are counted (calls, kernels, device
// time), none of those outside, whether the ranges are cudaProfilerStart/Stop or NVTX ranges of a
// name (nested, next to a range of another name), with a dynamic or a static runtime; the report
// says the mode and the ranges. Paths come from the build: BRRR_BIN, E2E_BIN_DIR.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "viewer/format/report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/take_report.h"

namespace brrr {
namespace {

// capture_ranges.cu: 5 + 3 launches of inside_kernel in two ranges; 7 + 11 + 13 (+ 17 in an
// "other" NVTX range) launches of outside_kernel outside them.
constexpr uint64_t kInside = 8;
constexpr int64_t kKernelNs = 200'000;

Report Profile(const std::string& mode, const std::string& capture_range,
               const std::string& program = "e2e_capture_ranges") {
  const std::string out =
      ::testing::TempDir() + "/capture-" + mode + "-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out};
  if (!capture_range.empty()) argv.push_back("--capture-range=" + capture_range);
  argv.push_back("--");
  argv.push_back(std::string(E2E_BIN_DIR) + "/" + program);
  argv.push_back(mode);
  const e2e::ProcessResult run =
      e2e::Spawn(argv, e2e::SimEnvironment({"BRRR_SIM_KERNEL_NS=" + std::to_string(kKernelNs)}));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "done\n");
  return e2e::TakeReport(out);
}

uint64_t Calls(const Report& r, const std::string& name) {
  for (const ApiStat& a : r.api) {
    if (a.name == name) return a.calls;
  }
  return 0;
}

void ExpectOnlyTheInsideLaunches(const Report& r) {
  EXPECT_EQ(r.kernels.launches, kInside);
  ASSERT_EQ(r.kernels.top.size(), 1u);
  EXPECT_EQ(r.kernels.top[0].name, "inside_kernel(float*)");
  EXPECT_EQ(r.kernels.top[0].launches, kInside);
  EXPECT_NEAR(r.kernels.device_ns, int64_t{kInside} * kKernelNs, kKernelNs / 10);
  EXPECT_EQ(Calls(r, "__cudaLaunchKernel"), kInside) << "hooked launches inside only";
  EXPECT_EQ(Calls(r, "cudaMalloc"), 0u) << "made before the first range";
  EXPECT_EQ(Calls(r, "cudaProfilerStart"), 0u) << "range markers are not calls of the report";
  EXPECT_EQ(Calls(r, "cudaDeviceSynchronize"), 0u) << "all made outside";
  EXPECT_EQ(Calls(r, "cudaFree"), 0u);
  // Besides the launches, only the calls nvcc's launch stub makes inside: the first launch of
  // inside_kernel looks its handle up (__cudaGetKernel, seen through CUPTI's records). The same
  // lookup of outside_kernel, made outside, was dropped.
  for (const ApiStat& a : r.api) {
    if (a.name == "__cudaLaunchKernel") continue;
    EXPECT_EQ(a.name, "__cudaGetKernel") << a.calls << " calls";
    EXPECT_EQ(a.calls, 1u) << a.name;
  }
  ASSERT_TRUE(r.coverage.has_value());
  EXPECT_LE(r.coverage->cupti_only_calls, 1u);
  ASSERT_TRUE(r.capture.has_value());
  EXPECT_EQ(r.capture->ranges, 2u);
  EXPECT_GT(r.capture->captured_ns, 0);
  EXPECT_LT(r.capture->captured_ns, r.wall_ns);
  EXPECT_GT(r.capture->records_dropped, 0u);
}

TEST(CaptureRanges, ProfilerApiRecordsOnlyBetweenStartAndStop) {
  const Report r = Profile("profiler", "cudaProfilerApi");
  ExpectOnlyTheInsideLaunches(r);
  EXPECT_EQ(r.capture->mode, "cudaProfilerApi");
  EXPECT_EQ(r.capture->nvtx_name, "");
}

// Linked with the static runtime stand-in: no hook sees the calls; the shim's CUPTI callbacks
// record the launches and move the gate at cudaProfilerStart/Stop.
TEST(CaptureRanges, ProfilerApiWithTheStaticRuntime) {
  if (!std::filesystem::exists(std::string(E2E_BIN_DIR) + "/e2e_capture_ranges_static")) {
    GTEST_SKIP() << "built without the static runtime stand-in";
  }
  const Report r = Profile("profiler", "cudaProfilerApi", "e2e_capture_ranges_static");
  ExpectOnlyTheInsideLaunches(r);
  EXPECT_EQ(r.capture->mode, "cudaProfilerApi");
}

TEST(CaptureRanges, NvtxRecordsOnlyInsideRangesOfTheName) {
  const Report r = Profile("nvtx", "nvtx:capture");
  ExpectOnlyTheInsideLaunches(r);
  EXPECT_EQ(r.capture->mode, "nvtx");
  EXPECT_EQ(r.capture->nvtx_name, "capture");
}

TEST(CaptureRanges, WithoutACaptureRangeEverythingIsRecorded) {
  const Report r = Profile("profiler", "");
  EXPECT_EQ(r.kernels.launches, kInside + 7 + 11 + 13);
  ASSERT_TRUE(r.capture.has_value());
  EXPECT_EQ(r.capture->mode, "all");
  EXPECT_EQ(r.capture->ranges, 0u);
  EXPECT_EQ(Calls(r, "cudaProfilerStart"), 2u) << "recorded like any call";
}

}  // namespace
}  // namespace brrr
