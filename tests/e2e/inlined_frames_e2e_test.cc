// End-to-end test of frames of inlined calls: inlined_calls.cu (host code at -O2 -g) under
// `brrr run` on the simulated device. A sampled launch's site names the launching function at
// the line of its <<<>>> (not the kernel's definition line, where nvcc's inlined host wrapper
// sits), with the wrapper as the frame inside it; a forced-inline helper's stalls are one row
// per call line, each naming the helper at its cudaMemcpy line and the caller at the call line.
// Lines come from the source's "MARK:" comments. Paths come from the build: BRRR_BIN,
// E2E_BIN_DIR, E2E_SOURCE_DIR.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "viewer/format/report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/source_marks.h"
#include "tests/e2e/take_report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kSteps = 6;
constexpr int kLaunchesPerStep = 8;

// "(inlined_calls.cu:N)" for the line marked "MARK: <mark>".
std::string At(const std::string& mark) {
  return e2e::MarkedLine(E2E_SOURCE_DIR, "inlined_calls.cu", mark);
}

Report ProfileInlinedCalls() {
  const std::string out =
      ::testing::TempDir() + "/inlined-frames-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  const e2e::ProcessResult run =
      e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", out, "--",
                  std::string(E2E_BIN_DIR) + "/e2e_inlined_calls", std::to_string(kSteps)},
                 e2e::SimEnvironment({"BRRR_LAUNCH_SAMPLE=1", "BRRR_SIM_KERNELS=scale=1000000"}));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return e2e::TakeReport(out);
}

std::string Describe(const std::vector<std::string>& stack) {
  std::string text;
  for (const std::string& frame : stack) text += "\n    " + frame;
  return text;
}

// Index of the first frame that ends with `at` and contains `function`; -1 when none.
int FrameIndex(const std::vector<std::string>& stack, const std::string& function,
               const std::string& at) {
  for (size_t i = 0; i < stack.size(); ++i) {
    const std::string& f = stack[i];
    if (f.find(function) != std::string::npos && f.size() >= at.size() &&
        f.compare(f.size() - at.size(), at.size(), at) == 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

TEST(InlinedFramesEndToEnd, LaunchSiteNamesTheLaunchLineWithTheInlinedWrapperInside) {
  const Report r = ProfileInlinedCalls();
  ASSERT_FALSE(r.launch_sites.empty());
  const LaunchSite& site = r.launch_sites[0];
  EXPECT_EQ(site.launches, static_cast<uint64_t>(kSteps * kLaunchesPerStep));
  const int launcher = FrameIndex(site.stack, "::Step(float*, int) ", At("launch"));
  ASSERT_GE(launcher, 1) << Describe(site.stack);
  // nvcc's host wrapper of the kernel, inlined into Step, at the kernel's definition.
  EXPECT_THAT(site.stack[launcher - 1], HasSubstr("scale(float*) " + At("kernel")))
      << Describe(site.stack);
  ASSERT_LT(launcher + 1, static_cast<int>(site.stack.size()));
  EXPECT_THAT(site.stack[launcher + 1], StartsWith("main " + At("main-calls")))
      << Describe(site.stack);
}

TEST(InlinedFramesEndToEnd, StallsOfAnInlinedHelperAreOneRowPerCallLine) {
  const Report r = ProfileInlinedCalls();
  for (const std::string call : {"first-read", "second-read"}) {
    const Stall* row = nullptr;
    int helper = -1;
    for (const Stall& s : r.stalls) {
      const int i = FrameIndex(s.stack, "ReadBack(float const*) ", At("copy"));
      if (s.api == "cudaMemcpy" && i >= 0 && i + 1 < static_cast<int>(s.stack.size()) &&
          FrameIndex({s.stack[i + 1]}, "::Step(float*, int) ", At(call)) == 0) {
        ASSERT_EQ(row, nullptr) << "two rows for " << call << Describe(s.stack);
        row = &s;
        helper = i;
      }
    }
    ASSERT_NE(row, nullptr) << "no cudaMemcpy row through " << call;
    EXPECT_EQ(row->calls, static_cast<uint64_t>(kSteps)) << call << Describe(row->stack);
    EXPECT_THAT(row->stack[helper + 2], StartsWith("main " + At("main-calls")))
        << Describe(row->stack);
  }
}

}  // namespace
}  // namespace brrr
