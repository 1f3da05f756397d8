// Tests of the PM sampling probe without a GPU: fake entry points return each CUPTI result in
// turn, and the probe's reason (not permitted, busy, not supported, no PM sampling, no library)
// is the one the report quotes; a successful enable is disabled again. The real loader is run
// too: on a machine without a GPU it must say why, not fail.
#include "collector/counters/pm_sampling_probe.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::counters {
namespace {

using ::testing::HasSubstr;

CUptiResult g_enable_result = CUPTI_SUCCESS;
int g_enables = 0, g_disables = 0;
int g_dummy = 0;

int FakeCuInit(unsigned int) { return 0; }
int FailingCuInit(unsigned int) { return 100; }  // CUDA_ERROR_NO_DEVICE
CUptiResult FakeProfilerInitialize(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult FakeEnable(CUpti_PmSampling_Enable_Params* p) {
  ++g_enables;
  if (g_enable_result == CUPTI_SUCCESS) {
    p->pPmSamplingObject = reinterpret_cast<CUpti_PmSampling_Object*>(&g_dummy);
  }
  return g_enable_result;
}
CUptiResult FakeDisable(CUpti_PmSampling_Disable_Params* p) {
  if (p->pPmSamplingObject == reinterpret_cast<CUpti_PmSampling_Object*>(&g_dummy)) ++g_disables;
  return CUPTI_SUCCESS;
}

PmSamplingEntryPoints Fakes() {
  PmSamplingEntryPoints api;
  api.cu_init = FakeCuInit;
  api.profiler_initialize = FakeProfilerInitialize;
  api.enable = FakeEnable;
  api.disable = FakeDisable;
  api.set_config = api.start = api.stop = api.decode_data = &g_dummy;
  return api;
}

TEST(PmSamplingProbeTest, EnableResultsGiveTheirReasons) {
  const struct {
    CUptiResult result;
    const char* reason;
  } cases[] = {
      {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "not permitted"},
      {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "ERR_NVGPUCTRPERM"},
      {CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES, "not permitted"},
      {CUPTI_ERROR_HARDWARE_BUSY, "busy: another tool"},
      {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "DCGM"},
      {CUPTI_ERROR_NOT_SUPPORTED, "not supported on this GPU"},
      {CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED, "Ampere GA10x"},
      {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "MIG"},
      {CUPTI_ERROR_UNKNOWN, "could not be enabled: CUPTI error 999"},
  };
  for (const auto& c : cases) {
    g_enable_result = c.result;
    g_disables = 0;
    const CounterAvailability a = ProbePmSampling(Fakes());
    EXPECT_FALSE(a.available) << c.reason;
    EXPECT_THAT(a.reason, HasSubstr(c.reason));
    EXPECT_EQ(g_disables, 0);  // nothing to disable when enabling failed
  }
}

TEST(PmSamplingProbeTest, SuccessIsDisabledAgain) {
  g_enable_result = CUPTI_SUCCESS;
  g_enables = g_disables = 0;
  const CounterAvailability a = ProbePmSampling(Fakes());
  EXPECT_TRUE(a.available);
  EXPECT_EQ(a.reason, "");
  EXPECT_EQ(g_enables, 1);
  EXPECT_EQ(g_disables, 1);
}

TEST(PmSamplingProbeTest, MissingEntryPointsOrLibraryOrDriverAreNotSupported) {
  PmSamplingEntryPoints api = Fakes();
  api.decode_data = nullptr;  // an older libcupti: no PM sampling
  g_enables = 0;
  CounterAvailability a = ProbePmSampling(api);
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("this libcupti has no PM sampling"));
  EXPECT_EQ(g_enables, 0);  // never called
  PmSamplingEntryPoints none;
  none.load_error = "libcupti.so.13: cannot open shared object file";
  a = ProbePmSampling(none);
  EXPECT_THAT(a.reason, HasSubstr("libcupti could not be loaded (libcupti.so.13: cannot open"));
  api = Fakes();
  api.cu_init = FailingCuInit;
  a = ProbePmSampling(api);
  EXPECT_THAT(a.reason, HasSubstr("no CUDA driver or device"));
  EXPECT_EQ(g_enables, 0);
}

TEST(PmSamplingProbeTest, RealLoaderOnThisMachineSaysWhyWhenItCannot) {
  const CounterAvailability a = ProbePmSampling(LoadPmSamplingEntryPoints());
  if (!a.available) EXPECT_THAT(a.reason, HasSubstr("not supported"));
}

}  // namespace
}  // namespace brrr::counters
