// End-to-end test of whole native stacks in release builds (issue 19): e2e_release_stacks and
// its library, both at -O2 without frame pointers, under `brrr run` on the simulated device. The
// frame-pointer walk alone stops after a frame or two there; with the DWARF unwinding of stalls
// and sampled launches the stall inside the library reads library frames -> the user's frames ->
// main (or the thread's function), innermost first, with lines, and the launch site names the
// user's launching function, nvcc's launch code before it marked as CUDA plumbing (folded in the
// text and HTML, kept in the JSON). BRRR_DWARF_STACKS=0 shows what the walk alone gives (the test
// checks that it is shorter, so that the first checks prove something). Lines come from the
// sources' "MARK:" comments. Paths come from the build: BRRR_BIN, E2E_BIN_DIR, E2E_SOURCE_DIR.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/source_marks.h"
#include "tests/e2e/take_report.h"
#include "viewer/format/report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kSteps = 4;

// "(FILE:N)" for the line of FILE marked "MARK: <mark>".
std::string At(const std::string& file, const std::string& mark) {
  return e2e::MarkedLine(E2E_SOURCE_DIR, file, mark);
}

Report Profile(const std::vector<std::string>& env,
               const std::string& program = "e2e_release_stacks") {
  const std::string out =
      ::testing::TempDir() + "/release-stacks-" + std::to_string(::getpid()) + ".brrr";
  std::filesystem::remove(out);
  std::vector<std::string> full_env = {"BRRR_LAUNCH_SAMPLE=1", "BRRR_SIM_KERNELS=accumulate=2000000"};
  full_env.insert(full_env.end(), env.begin(), env.end());
  const e2e::ProcessResult run =
      e2e::Spawn({BRRR_BIN, "run", "--quiet", "--output", out, "--",
                  std::string(E2E_BIN_DIR) + "/" + program, std::to_string(kSteps)},
                 e2e::SimEnvironment(full_env));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return e2e::TakeReport(out);
}

std::string Describe(const std::vector<std::string>& stack) {
  std::string text;
  for (const std::string& frame : stack) text += "\n    " + frame;
  return text;
}

// The frames of `stack` from the one that contains `function` and ends with `at`; empty if none.
std::vector<std::string> From(const std::vector<std::string>& stack, const std::string& function,
                              const std::string& at) {
  for (size_t i = 0; i < stack.size(); ++i) {
    const std::string& f = stack[i];
    if (f.find(function) != std::string::npos && f.size() >= at.size() &&
        f.compare(f.size() - at.size(), at.size(), at) == 0) {
      return {stack.begin() + static_cast<long>(i), stack.end()};
    }
  }
  return {};
}

// The cudaMemcpy stall rows whose stack runs through the library's copy_back.
std::vector<const Stall*> LibraryStalls(const Report& r) {
  std::vector<const Stall*> rows;
  for (const Stall& s : r.stalls) {
    if (s.api == "cudaMemcpy" && !From(s.stack, "copy_back", At("release_lib.cu", "lib-copy")).empty()) {
      rows.push_back(&s);
    }
  }
  return rows;
}

TEST(ReleaseStacksEndToEnd, AStallInsideALibraryCarriesTheUsersFramesDownToMain) {
  const Report r = Profile({});
  const std::vector<const Stall*> rows = LibraryStalls(r);
  ASSERT_FALSE(rows.empty()) << "no stall through copy_back";
  bool main_thread = false, second_thread = false;
  for (const Stall* s : rows) {
    const std::vector<std::string> chain =
        From(s->stack, "copy_back", At("release_lib.cu", "lib-copy"));
    ASSERT_GE(chain.size(), 4u) << Describe(s->stack);
    EXPECT_THAT(chain[1], StartsWith("fetch_scalar(float const*) " + At("release_lib.cu", "lib-fetch")))
        << Describe(s->stack);
    EXPECT_THAT(chain[2], StartsWith("run_step(float*) " + At("release_stacks.cu", "step-fetch")))
        << Describe(s->stack);
    if (chain[3].find("main " + At("release_stacks.cu", "main-step")) == 0) main_thread = true;
    if (chain[3].find("worker(float*, int) " + At("release_stacks.cu", "worker-step")) == 0) {
      second_thread = true;
    }
  }
  for (const Stall* s : rows) EXPECT_EQ(s->ended_early, "") << Describe(s->stack);
  EXPECT_TRUE(main_thread) << "no stall row reaching main";
  EXPECT_TRUE(second_thread) << "no stall row reaching the second thread's worker()";
}

TEST(ReleaseStacksEndToEnd, LaunchSitesNameTheLaunchingFunctionAndItsCallers) {
  const Report r = Profile({});
  ASSERT_FALSE(r.launch_sites.empty());
  bool found = false;
  for (const LaunchSite& site : r.launch_sites) {
    const std::vector<std::string> chain =
        From(site.stack, "launch_work(float*) ", At("release_stacks.cu", "launch"));
    if (chain.size() < 3) continue;
    EXPECT_THAT(chain[1], StartsWith("run_step(float*) " + At("release_stacks.cu", "step-launch")))
        << Describe(site.stack);
    // nvcc's launch code leads the stack in the JSON and is marked as CUDA's: the first frame the
    // report shows is the launching function.
    ASSERT_LT(site.plumbing_frames, site.stack.size());
    EXPECT_THAT(site.stack[site.plumbing_frames], StartsWith("launch_work(float*) "))
        << site.plumbing_frames << Describe(site.stack);
    EXPECT_THAT(site.stack[0], StartsWith("__cudaLaunchKernel_helper")) << Describe(site.stack);
    found = true;
  }
  EXPECT_TRUE(found) << "no launch site through launch_work and run_step";
}

TEST(ReleaseStacksEndToEnd, AStrippedLibraryGivesAddressesAndTheUnwindGoesOnPastIt) {
  // No symbols, but call-frame information (strip keeps .eh_frame): the library's internal frame
  // is an address in it, its exported one a name without a line, and the stack goes on to the
  // user's frames and main.
  const Report r = Profile({}, "e2e_release_stacks_stripped");
  bool found = false;
  for (const Stall& s : r.stalls) {
    if (s.api != "cudaMemcpy" || s.stack.empty()) continue;
    const std::vector<std::string> user =
        From(s.stack, "run_step(float*) ", At("release_stacks.cu", "step-fetch"));
    if (user.empty()) continue;
    found = true;
    EXPECT_THAT(s.stack[0], StartsWith("0x")) << Describe(s.stack);
    EXPECT_THAT(s.stack[0], HasSubstr("(libe2e_release_lib_stripped.so)")) << Describe(s.stack);
    ASSERT_GE(s.stack.size(), 2u);
    EXPECT_EQ(s.stack[1], "fetch_scalar(float const*) (libe2e_release_lib_stripped.so)")
        << Describe(s.stack);
    EXPECT_EQ(s.ended_early, "") << Describe(s.stack);
  }
  EXPECT_TRUE(found) << "no cudaMemcpy stall through run_step";
}

TEST(ReleaseStacksEndToEnd, WithoutDwarfUnwindingTheSameStallStopsShort) {
  const Report r = Profile({"BRRR_DWARF_STACKS=0"});
  ASSERT_FALSE(LibraryStalls(r).empty());
  for (const Stall* s : LibraryStalls(r)) {
    // ... and the report says so.
    EXPECT_THAT(s->ended_early, HasSubstr("ends at copy_back(float const*)")) << Describe(s->stack);
    EXPECT_TRUE(From(s->stack, "main ", At("release_stacks.cu", "main-step")).empty())
        << "the frame-pointer walk alone reached main: the DWARF checks prove nothing"
        << Describe(s->stack);
  }
  // The run-wide count has them, with their calls (2 threads x 4 steps through copy_back).
  ASSERT_TRUE(r.stack_ends.has_value());
  uint64_t short_calls = 0;
  for (const StackEnds::Ended& e : r.stack_ends->ended_early) {
    if (e.kind == "no_unwind_info") short_calls += e.calls;
  }
  EXPECT_GE(short_calls, 8u);
  EXPECT_LT(r.stack_ends->whole, r.stack_ends->stacks);
}

TEST(ReleaseStacksEndToEnd, WithDwarfUnwindingNoStallOrLaunchSiteEndsEarly) {
  const Report r = Profile({});
  ASSERT_TRUE(r.stack_ends.has_value());
  EXPECT_GE(r.stack_ends->stacks, 2u);
  EXPECT_EQ(r.stack_ends->whole, r.stack_ends->stacks);
  for (const StackEnds::Ended& e : r.stack_ends->ended_early) {
    ADD_FAILURE() << e.stacks << " stacks ended early: " << e.kind;
  }
}

}  // namespace
}  // namespace brrr
