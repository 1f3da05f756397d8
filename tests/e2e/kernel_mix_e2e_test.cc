// End-to-end tests of kernel classes, the device regime and the advice: e2e_kernel_mix (nvcc;
// kernels named as cuBLAS, FlashAttention, PyTorch and TorchInductor name theirs) under
// `brrr run` on the simulated device, with BRRR_SIM_KERNELS durations that make GEMM + attention
// dominate (compute) or pointwise + reductions dominate (bandwidth). Simulated durations are
// exact, so the shares the report quotes are known to the digit. Paths come from the build:
// BRRR_BIN, E2E_BIN_DIR, BRRR_PRELOAD_PREFIX.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
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
using ::testing::Not;
using ::testing::StartsWith;

constexpr int kIterations = 20;

struct Durations {
  int64_t gemm, flash, elementwise, reduce, triton_poi, triton_red;
};

struct MixRun {
  int exit_code = -1;
  Report report;
  std::string text;  // `brrr report` of the saved file
};

MixRun RunKernelMix(const Durations& d, const std::vector<std::string>& brrr_options = {}) {
  const std::string out =
      ::testing::TempDir() + "/kernel-mix-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  const std::string kernels = "BRRR_SIM_KERNELS=ampere_sgemm_128x64_nn=" + std::to_string(d.gemm) +
                              ",flash_fwd_kernel=" + std::to_string(d.flash) +
                              ",vectorized_elementwise_kernel=" + std::to_string(d.elementwise) +
                              ",reduce_kernel=" + std::to_string(d.reduce) +
                              ",triton_poi_fused_add_mul_0=" + std::to_string(d.triton_poi) +
                              ",triton_red_fused__softmax_1=" + std::to_string(d.triton_red);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out};
  argv.insert(argv.end(), brrr_options.begin(), brrr_options.end());
  argv.push_back("--");
  argv.push_back(std::string(E2E_BIN_DIR) + "/e2e_kernel_mix");
  argv.push_back(std::to_string(kIterations));
  const std::vector<std::string> env = e2e::SimEnvironment({kernels});
  MixRun run;
  run.exit_code = e2e::Spawn(argv, env).exit_code;
  auto report = ReadBrrrFile(out);
  if (!report.ok()) {
    ADD_FAILURE() << "no readable report at " << out << ": " << report.status();
    return run;
  }
  run.report = *std::move(report);
  run.text = e2e::Spawn({BRRR_BIN, "report", out}, env).output;
  std::filesystem::remove(out);
  return run;
}

const KernelClassStat* FindClass(const Report& r, const std::string& name) {
  for (const KernelClassStat& c : r.kernels.classes)
    if (c.kernel_class == name) return &c;
  return nullptr;
}

// Classes add up to the kernels exactly, and each real-named kernel has its class.
void ExpectClassesAddUp(const Report& r) {
  int64_t ns = 0;
  uint64_t launches = 0;
  for (const KernelClassStat& c : r.kernels.classes) {
    ns += c.device_ns;
    launches += c.launches;
  }
  EXPECT_EQ(ns, r.kernels.device_ns);
  EXPECT_EQ(launches, r.kernels.launches);
  EXPECT_EQ(r.kernels.launches, uint64_t{6 * kIterations});
  for (const KernelStat& k : r.kernels.top) {
    const std::string want = k.name.find("sgemm") != std::string::npos           ? "matmul"
                             : k.name.find("flash") != std::string::npos         ? "attention"
                             : k.name.find("triton_red") != std::string::npos    ? "reduction"
                             : k.name.find("reduce_kernel") != std::string::npos ? "reduction"
                                                                                 : "pointwise";
    EXPECT_EQ(k.kernel_class, want) << k.name;
  }
  for (const DeviceBreakdown& d : r.devices) {
    EXPECT_EQ(d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns +
                  d.idle.host_outside_cuda_ns + d.startup_ns + d.teardown_ns,
              d.wall_ns);
  }
}

TEST(KernelMixEndToEnd, GemmAndFlashAttentionDominatingIsComputeBound) {
  // Per iteration 5.5 ms: GEMM 3.0 (54.5%), attention 2.0 (36.4%), the rest 0.5.
  const MixRun run = RunKernelMix({3'000'000, 2'000'000, 200'000, 100'000, 100'000, 100'000});
  ASSERT_EQ(run.exit_code, 0);
  const Report& r = run.report;
  ExpectClassesAddUp(r);
  const KernelClassStat* matmul = FindClass(r, "matmul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->launches, uint64_t{kIterations});
  EXPECT_EQ(matmul->device_ns, kIterations * 3'000'000);
  ASSERT_EQ(r.verdict.regime, "device-bound") << r.verdict.why;
  ASSERT_TRUE(r.verdict.device_regime.has_value());
  EXPECT_EQ(r.verdict.device_regime->regime, "compute") << r.verdict.device_regime->why;
  EXPECT_EQ(r.verdict.device_regime->basis, "kernel classes");
  EXPECT_THAT(r.verdict.device_regime->why,
              HasSubstr("inferred from kernel names, not measured: matmul/convolution/attention "
                        "90.9% of kernel time"));
  ASSERT_FALSE(r.verdict.advice.empty());
  EXPECT_THAT(r.verdict.advice[0], StartsWith("compute-bound kernels: use Tensor Cores"));
  EXPECT_THAT(r.verdict.advice[0], HasSubstr("matmul 54.5%, attention 36.4% of kernel time"));
  EXPECT_THAT(r.verdict.advice[0],
              HasSubstr("top: ampere_sgemm_128x64_nn 54.5% (matmul), flash_fwd_kernel 36.4% "
                        "(attention)"));
  EXPECT_THAT(run.text, HasSubstr("compute-bound (kernel classes)"));
  EXPECT_THAT(run.text, HasSubstr("advice:\n    1. compute-bound kernels"));
  EXPECT_THAT(run.text, HasSubstr("by class: matmul 54.5% (20), attention 36.4% (20)"));
}

TEST(KernelMixEndToEnd, PointwiseAndReductionsDominatingIsBandwidthBound) {
  // Per iteration 5.0 ms: pointwise 2.0 + 1.0 (60.0%), reduction 1.0 + 0.7 (34.0%).
  const MixRun run = RunKernelMix({200'000, 100'000, 2'000'000, 1'000'000, 1'000'000, 700'000});
  ASSERT_EQ(run.exit_code, 0);
  const Report& r = run.report;
  ExpectClassesAddUp(r);
  const KernelClassStat* pointwise = FindClass(r, "pointwise");
  ASSERT_NE(pointwise, nullptr);
  EXPECT_EQ(pointwise->launches, uint64_t{2 * kIterations});
  EXPECT_EQ(pointwise->device_ns, kIterations * 3'000'000);
  ASSERT_EQ(r.verdict.regime, "device-bound") << r.verdict.why;
  ASSERT_TRUE(r.verdict.device_regime.has_value());
  EXPECT_EQ(r.verdict.device_regime->regime, "bandwidth") << r.verdict.device_regime->why;
  EXPECT_THAT(r.verdict.device_regime->why, HasSubstr("pointwise/reduction/copy 94.0%"));
  ASSERT_FALSE(r.verdict.advice.empty());
  // A C++ program (no Python in the process): the remedy in CUDA C++'s words.
  EXPECT_THAT(r.verdict.advice[0],
              StartsWith("bandwidth-bound kernels: fuse them (fewer passes over memory)"));
  EXPECT_THAT(r.verdict.advice[0], HasSubstr("16-bit data (__half, __nv_bfloat16)"));
  EXPECT_THAT(r.verdict.advice[0], HasSubstr("pointwise 60.0%, reduction 34.0% of kernel time"));
  EXPECT_THAT(r.verdict.advice[0],
              HasSubstr("top: at::native::vectorized_elementwise_kernel<...> 40.0% (pointwise)"));
  EXPECT_THAT(run.text, HasSubstr("bandwidth-bound (kernel classes)"));
}

TEST(KernelMixEndToEnd, CountersOnADeviceWithoutPmSamplingFallBackToKernelClasses) {
  // The simulated libcupti has no PM sampling entry points: --counters must still give the
  // regime from kernel classes, and say why counters were not used.
  const MixRun run =
      RunKernelMix({3'000'000, 2'000'000, 200'000, 100'000, 100'000, 100'000}, {"--counters"});
  ASSERT_EQ(run.exit_code, 0);
  const Report& r = run.report;
  ASSERT_TRUE(r.verdict.device_regime.has_value()) << r.verdict.why;
  EXPECT_EQ(r.verdict.device_regime->regime, "compute");
  EXPECT_EQ(r.verdict.device_regime->basis, "kernel classes");
  EXPECT_THAT(r.verdict.device_regime->why,
              HasSubstr("; hardware counters not used: not supported: this libcupti has no PM "
                        "sampling"));
  // Without --counters, nothing is said of counters.
  const MixRun plain = RunKernelMix({3'000'000, 2'000'000, 200'000, 100'000, 100'000, 100'000});
  ASSERT_TRUE(plain.report.verdict.device_regime.has_value());
  EXPECT_THAT(plain.report.verdict.device_regime->why, Not(HasSubstr("counters")));
}

}  // namespace
}  // namespace brrr
