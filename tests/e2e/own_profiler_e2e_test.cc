// End-to-end tests of brrr beside an app's own CUPTI tool (shim/cupti_coexistence.cc), on the
// simulated device, whose CUPTI serves one subscriber per process as the real one does:
// e2e_own_profiler's tool (in a library the app dlopen()s RTLD_LOCAL with its libcupti, as Python
// loads PyTorch) must see exactly what it sees without brrr, whether it starts before
// the app's first CUDA call or after brrr took CUPTI, and brrr's report must say that it gave
// CUPTI up (host-only, with the reason) while keeping the device records it got before.
// Paths come from the build: BRRR_BIN, E2E_BIN_DIR.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/take_report.h"
#include "viewer/format/report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

struct ToolRun {
  e2e::ProcessResult app;
  Report report;
};

ToolRun RunTool(const std::string& when, bool under_brrr) {
  const std::string out = ::testing::TempDir() + "/own-profiler-" + when + "-" +
                          std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  std::vector<std::string> argv = {std::string(E2E_BIN_DIR) + "/e2e_own_profiler",
                                   std::string(E2E_BIN_DIR) + "/libe2e_own_profiler_tool.so", when};
  if (under_brrr) {
    argv.insert(argv.begin(), {BRRR_BIN, "run", "--quiet", "--output", out, "--"});
  }
  ToolRun run;
  run.app = e2e::Spawn(argv, e2e::SimEnvironment({}));
  if (under_brrr) run.report = e2e::TakeReport(out);
  return run;
}

TEST(OwnProfilerEndToEnd, AToolStartedLateGetsCuptiAndEveryRecordBrrrStepsAside) {
  const ToolRun alone = RunTool("late", false);
  ASSERT_EQ(alone.app.exit_code, 0) << alone.app.output;
  const ToolRun with = RunTool("late", true);
  EXPECT_EQ(with.app.exit_code, 0) << with.app.output;
  EXPECT_THAT(with.app.output, HasSubstr("tool: subscribe=0 kernels=30"));
  const Report& r = with.report;
  EXPECT_TRUE(r.host_only);
  EXPECT_THAT(r.host_only_reason, HasSubstr("the app's own profiler"));
  EXPECT_THAT(r.host_only_reason, HasSubstr("s into the run"));
  // The 50 launches before the tool started have their device records; the 30 after do not.
  EXPECT_EQ(r.kernels.launches, 50u);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(OwnProfilerEndToEnd, AToolStartedFirstKeepsCuptiAndBrrrIsHostOnly) {
  const ToolRun with = RunTool("early", true);
  EXPECT_EQ(with.app.exit_code, 0) << with.app.output;
  EXPECT_THAT(with.app.output, HasSubstr("tool: subscribe=0 kernels=80"));
  EXPECT_TRUE(with.report.host_only);
  // Whether brrr had set CUPTI up when the tool asked (it sets up as the app's runtime loads) or
  // not yet, the tool has CUPTI from its first call and the report says why brrr has no device
  // records.
  EXPECT_THAT(with.report.host_only_reason, HasSubstr("CUPTI"));
  EXPECT_EQ(with.report.kernels.launches, 0u);
}

}  // namespace
}  // namespace brrr
