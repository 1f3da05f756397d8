// End-to-end tests of hardware counters (`brrr run --counters`) without a GPU: e2e_kernel_mix
// (kernels named as PyTorch and TorchInductor name their pointwise and reduction kernels, so
// kernel classes alone say bandwidth) on the simulated device, with the shim's PM sampler given
// a fake CUPTI PM sampling library (fake_pm_sampling.cc, through the test-only
// BRRR_PM_SAMPLING_LIBRARY). The fake's samples are known: over the busy time SM 70.0 % and DRAM
// 16.7 % of peak, so with them the regime is compute on the basis of hardware counters; each
// failure the fake can play gives kernel classes and its reason. Paths come from the build:
// BRRR_BIN, E2E_BIN_DIR, FAKE_PM_LIBRARY.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
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

struct CountersRun {
  int exit_code = -1;
  Report report;
  std::string text;      // `brrr report` of the saved file
  std::string fake_log;  // what the fake library logged at Disable
};

// The text report with its wrapped lines joined (a line break and the next line's indent become
// one space), so a sentence is found wherever the 100-column wrap fell.
std::string Unwrapped(const std::string& text) {
  return std::regex_replace(text, std::regex("\n +"), " ");
}

// Per iteration 15 ms of kernels (300 ms a run, long enough that a loaded machine's late wake-ups
// do not turn the verdict from device-bound): pointwise 60 %, reduction 34 % (kernel classes:
// bandwidth).
CountersRun RunWithFake(const std::string& mode, bool counters = true) {
  const std::string tag =
      ::testing::TempDir() + "/counters-" + mode + "-" + std::to_string(::getpid());
  const std::string out = tag + ".brrr", log = tag + ".log";
  std::filesystem::remove(out);
  std::filesystem::remove(log);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out};
  if (counters) argv.push_back("--counters");
  argv.insert(argv.end(), {"--", std::string(E2E_BIN_DIR) + "/e2e_kernel_mix", "20"});
  const std::vector<std::string> env =
      e2e::SimEnvironment({"BRRR_SIM_KERNELS=ampere_sgemm_128x64_nn=600000,flash_fwd_kernel=300000,"
                           "vectorized_elementwise_kernel=6000000,reduce_kernel=3000000,"
                           "triton_poi_fused_add_mul_0=3000000,triton_red_fused__softmax_1=2100000",
                           std::string("BRRR_PM_SAMPLING_LIBRARY=") + FAKE_PM_LIBRARY,
                           "BRRR_FAKE_PM_MODE=" + mode, "BRRR_FAKE_PM_LOG=" + log});
  CountersRun run;
  run.exit_code = e2e::Spawn(argv, env).exit_code;
  auto report = ReadBrrrFile(out);
  if (!report.ok()) {
    ADD_FAILURE() << "no readable report at " << out << ": " << report.status();
    return run;
  }
  run.report = *std::move(report);
  run.text = e2e::Spawn({BRRR_BIN, "report", out}, env).output;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  run.fake_log = s.str();
  std::filesystem::remove(out);
  std::filesystem::remove(log);
  return run;
}

TEST(CountersEndToEnd, SampledThroughputGivesTheRegimeOnHardwareCounters) {
  const CountersRun run = RunWithFake("ok");
  ASSERT_EQ(run.exit_code, 0);
  const Report& r = run.report;
  ASSERT_EQ(r.verdict.regime, "device-bound") << r.verdict.why;
  ASSERT_TRUE(r.verdict.device_regime.has_value());
  const DeviceRegime& d = *r.verdict.device_regime;
  EXPECT_EQ(d.basis, "hardware counters");
  // Names alone say bandwidth; the fake's counters (SM 70 % while busy, DRAM 16.7 %) say compute.
  EXPECT_EQ(d.regime, "compute") << d.why;
  EXPECT_THAT(d.why, HasSubstr("SM throughput 70.0% of peak, DRAM throughput 16.7% of peak"));
  EXPECT_THAT(run.text, HasSubstr("compute-bound (hardware counters)"));
  // Sampling was started once, stopped and disabled at exit, after at least the final decode.
  EXPECT_THAT(run.fake_log, HasSubstr("starts=1 stops=1"));
  EXPECT_THAT(run.fake_log, HasSubstr("disabled=1"));
  EXPECT_THAT(run.fake_log, Not(HasSubstr("decodes=0 ")));
  // This mode stamps its samples from 1 s on a clock of its own: no host clock puts them inside
  // the run, so no kernel gets figures, and the report says why.
  ASSERT_TRUE(r.kernels.counters.has_value());
  EXPECT_EQ(r.kernels.counters->samples, 0u);
  EXPECT_GT(r.kernels.counters->samples_unaligned, 0u);
  for (const KernelStat& k : r.kernels.top) {
    EXPECT_FALSE(k.achieved_sm_pct.has_value()) << k.name;
    EXPECT_FALSE(k.counter_coverage.has_value()) << k.name;
  }
  EXPECT_THAT(Unwrapped(run.text), HasSubstr("counters per kernel: not joined"));
  // The run-wide figures while busy stand under the kernels table too (the fake's, by hand).
  EXPECT_EQ(r.kernels.counters->unavailable, "");
  ASSERT_TRUE(r.kernels.counters->busy_sm_pct.has_value());
  EXPECT_NEAR(*r.kernels.counters->busy_sm_pct, 70.0, 0.05);
  EXPECT_NEAR(*r.kernels.counters->busy_dram_pct, 16.7, 0.05);
  EXPECT_GT(r.kernels.counters->busy_samples, 0u);
  EXPECT_THAT(Unwrapped(run.text),
              HasSubstr("Hardware counters while the GPU was busy: SM 70.0 %, DRAM 16.7 %"));
  // The first set, realtime SM metrics and gpu__dram_throughput, is the one sampled (as on an
  // H200), and the report names it.
  EXPECT_THAT(r.kernels.counters->metrics, HasSubstr("realtime SM issue and tensor pipe"));
  EXPECT_THAT(Unwrapped(run.text), HasSubstr("metrics: realtime SM issue and tensor pipe"));
}

TEST(CountersEndToEnd, AChipWithoutRealtimeMetricsIsSampledWithTheBreakdowns) {
  const CountersRun run = RunWithFake("no_realtime");
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.report.kernels.counters.has_value()) << run.text;
  const KernelCounterJoin& j = *run.report.kernels.counters;
  EXPECT_EQ(j.unavailable, "");
  EXPECT_THAT(j.metrics, HasSubstr("(sm__throughput.avg.pct_of_peak_sustained_elapsed, "));
  // The same figures through the other metric set: SM 70 %, DRAM 16.7 % while busy.
  ASSERT_TRUE(j.busy_sm_pct.has_value());
  EXPECT_NEAR(*j.busy_sm_pct, 70.0, 0.05);
  EXPECT_NEAR(*j.busy_dram_pct, 16.7, 0.05);
  ASSERT_TRUE(run.report.verdict.device_regime.has_value());
  EXPECT_EQ(run.report.verdict.device_regime->basis, "hardware counters");
  EXPECT_THAT(run.fake_log, HasSubstr("starts=1 stops=1"));
}

TEST(CountersEndToEnd, TopKernelsGetTheirAchievedThroughputFromTimedSamples) {
  // The fake's samples tile real time on CLOCK_REALTIME from sampling start to each decode, 1 ms
  // each, all SM 30 %, DRAM 10 %, active 50 %. Over the active time that is SM 30 / 0.5 = 60.0 %
  // and DRAM 10 / 0.5 = 20.0 % for every kernel sampled, whatever the overlaps (every sample has
  // the same values), so the figures are exact up to the milli-percent the ring carries: 0.05.
  // What the timing decides is coverage: sampling starts after the app's first CUDA call
  // (cudaMalloc) returned, within the sampler's 20 ms poll plus its set-up, while the 300 ms of
  // kernels (queued at once) have started running; and the samples stop at the final decode, at
  // exit, after the kernels ended (less the last partial ms). So the 120 ms of the top kernel
  // (20 x 6 ms) are covered but for at most the first tens of ms: at least 70 % even when a
  // loaded machine wakes the sampler late.
  const CountersRun run = RunWithFake("timed");
  ASSERT_EQ(run.exit_code, 0);
  const Report& r = run.report;
  ASSERT_TRUE(r.kernels.counters.has_value()) << run.text;
  const KernelCounterJoin& j = *r.kernels.counters;
  EXPECT_THAT(j.clock, HasSubstr("CLOCK_REALTIME"));  // the fake has no cuptiGetTimestamp
  EXPECT_GE(j.samples, 150u) << run.text;               // ~1 per ms of a >= 300 ms run
  EXPECT_EQ(j.samples_unaligned, 0u);
  ASSERT_GE(r.kernels.top.size(), 2u);
  EXPECT_THAT(r.kernels.top[0].name, HasSubstr("vectorized_elementwise_kernel"));
  for (size_t i = 0; i < 2; ++i) {
    const KernelStat& k = r.kernels.top[i];
    ASSERT_TRUE(k.achieved_sm_pct.has_value()) << k.name << "\n" << run.text;
    ASSERT_TRUE(k.achieved_dram_pct.has_value()) << k.name;
    ASSERT_TRUE(k.counter_coverage.has_value()) << k.name;
    EXPECT_NEAR(*k.achieved_sm_pct, 60.0, 0.05) << k.name;
    EXPECT_NEAR(*k.achieved_dram_pct, 20.0, 0.05) << k.name;
    EXPECT_GE(*k.counter_coverage, 0.7) << k.name;
    EXPECT_LE(*k.counter_coverage, 1.0) << k.name;
    EXPECT_FALSE(k.counter_lower_bound) << k.name;  // every sample had an active share
  }
  // The run-wide regime on the same samples: SM 60 %, DRAM 20 % over the busy time.
  ASSERT_TRUE(r.verdict.device_regime.has_value());
  EXPECT_EQ(r.verdict.device_regime->basis, "hardware counters");
  EXPECT_THAT(run.text, HasSubstr("SM%  DRAM%  cover"));
  EXPECT_THAT(run.text, HasSubstr("   60.0   20.0 "));
  EXPECT_THAT(run.text, HasSubstr("samples by time (PM sample timestamps on"));
}

TEST(CountersEndToEnd, AFullTableIsMergedWithoutChangingTheThroughput) {
  // 200 samples per decode, at least 200 in all: more than the segment's 64 slots, so the shim
  // merges pairs; the busy-weighted throughput is the same as in SampledThroughput... above.
  const CountersRun run = RunWithFake("many");
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.report.verdict.device_regime.has_value()) << run.text;
  const DeviceRegime& d = *run.report.verdict.device_regime;
  EXPECT_EQ(d.basis, "hardware counters");
  EXPECT_THAT(d.why, HasSubstr("SM throughput 70.0% of peak, DRAM throughput 16.7% of peak"));
  // Every decoded sample is still counted (each saw the GPU at least half busy).
  const std::string::size_type at = d.why.find("busy time (");
  ASSERT_NE(at, std::string::npos) << d.why;
  EXPECT_EQ(std::stoul(d.why.substr(at + 11)) % 200, 0u) << d.why;
  EXPECT_GE(std::stoul(d.why.substr(at + 11)), 200u) << d.why;
}

TEST(CountersEndToEnd, EachFailureFallsBackToKernelClassesWithItsReason) {
  const struct {
    const char* mode;
    const char* reason;
  } cases[] = {
      {"not_permitted", "hardware counters not used: not permitted"},
      {"busy", "hardware counters not used: busy: another tool holds"},
      {"not_supported", "hardware counters not used: not supported on this GPU"},
      {"decode_fails",
       "hardware counters not used: PM sampling failed at decoding "
       "(cuptiPmSamplingDecodeData): CUPTI_ERROR_UNKNOWN (999)"},
      {"multi_pass",
       "hardware counters not used: PM sampling failed at cuptiPmSamplingSetConfig: "
       "CUPTI_ERROR_NOT_SUPPORTED (27): each metric set brrr knows (4) needs more than one pass"},
  };
  for (const auto& c : cases) {
    const CountersRun run = RunWithFake(c.mode);
    ASSERT_EQ(run.exit_code, 0) << c.mode;
    ASSERT_TRUE(run.report.verdict.device_regime.has_value()) << c.mode << ": " << run.text;
    const DeviceRegime& d = *run.report.verdict.device_regime;
    EXPECT_EQ(d.basis, "kernel classes") << c.mode;
    EXPECT_EQ(d.regime, "bandwidth") << c.mode;
    EXPECT_THAT(d.why, HasSubstr(c.reason)) << c.mode;
    // The kernels were all recorded whatever the counters did.
    EXPECT_EQ(run.report.kernels.launches, 120u) << c.mode;
    // The reason also stands on its own, whatever the verdict, under the kernels table.
    ASSERT_TRUE(run.report.kernels.counters.has_value()) << c.mode;
    const std::string reason =
        std::string(c.reason).substr(sizeof("hardware counters not used: ") - 1);
    EXPECT_THAT(run.report.kernels.counters->unavailable, HasSubstr(reason)) << c.mode;
    EXPECT_FALSE(run.report.kernels.counters->busy_sm_pct.has_value()) << c.mode;
    EXPECT_THAT(Unwrapped(run.text), HasSubstr("Hardware counters not used: " + reason)) << c.mode;
  }
}

TEST(CountersEndToEnd, WithoutTheOptionTheLibraryIsNeverLoaded) {
  const CountersRun run = RunWithFake("ok", /*counters=*/false);
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.report.verdict.device_regime.has_value());
  EXPECT_EQ(run.report.verdict.device_regime->basis, "kernel classes");
  EXPECT_THAT(run.report.verdict.device_regime->why, Not(HasSubstr("counters")));
  EXPECT_EQ(run.fake_log, "");  // never enabled, so never disabled
  EXPECT_FALSE(run.report.kernels.counters.has_value());
  for (const KernelStat& k : run.report.kernels.top) EXPECT_FALSE(k.counter_coverage.has_value());
  EXPECT_THAT(run.text, Not(HasSubstr("DRAM%")));
}

}  // namespace
}  // namespace brrr
