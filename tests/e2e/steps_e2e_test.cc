// End-to-end tests of steps on the simulated device: an nvcc-built loop (stepped_loop.cu) whose
// steps are NVTX ranges named ProfilerStep#N, every 10th waiting 100 ms for its batch on the
// host, under `brrr run`. The report's steps have the exact per-step counts, and the slow steps are
// exactly the outliers of 160 ms and more, caused by host time outside CUDA (a loaded host may add
// a shorter one). --steps=nvtx:NAME picks other ranges.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/sim_process.h"
#include "tests/e2e/take_report.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/report.h"

namespace brrr {
namespace {

using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSteps = 30;
// Each step's 3 kernels take 20 ms each on the device: 60 ms steps, against which a late batch
// (100 ms on the host) stands out, and scheduling delays of a loaded machine do not.
constexpr char kKernels[] = "BRRR_SIM_KERNELS=step_kernel=20000000";

std::string Program() { return std::string(E2E_BIN_DIR) + "/e2e_stepped_loop"; }

std::string OutputPath(const std::string& tag) {
  return ::testing::TempDir() + "/steps-" + tag + "-" + std::to_string(getpid()) + ".brrr";
}

struct LoopRun {
  e2e::ProcessResult process;
  Report report;
};

LoopRun RunLoop(const std::string& tag, const std::vector<std::string>& brrr_options,
                const std::vector<std::string>& program_args) {
  const std::string out = OutputPath(tag);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--output", out};
  argv.insert(argv.end(), brrr_options.begin(), brrr_options.end());
  argv.push_back("--");
  argv.push_back(Program());
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  LoopRun run;
  run.process = e2e::Spawn(argv, e2e::SimEnvironment({kKernels}), /*with_stderr=*/true);
  run.report = e2e::TakeReport(out);
  return run;
}

TEST(StepsE2eTest, EveryTenthStepIsAnOutlierCausedByHostTime) {
  const LoopRun run = RunLoop("outliers", {}, {std::to_string(kSteps), "10", "100000"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.steps.has_value()) << run.process.output;
  const StepsSummary& s = *run.report.steps;
  EXPECT_EQ(s.source, "nvtx:ProfilerStep#N");
  EXPECT_EQ(s.count, static_cast<uint64_t>(kSteps));
  EXPECT_EQ(s.unfinished, 0u);
  EXPECT_FALSE(s.estimated);
  // Counts per step are exact: 3 launches, one read-back stall of 4 bytes, no upload.
  EXPECT_DOUBLE_EQ(s.per_step.launches, 3.0);
  EXPECT_DOUBLE_EQ(s.per_step.stall_calls, 1.0);
  EXPECT_DOUBLE_EQ(s.per_step.d2h_bytes, 4.0);
  EXPECT_DOUBLE_EQ(s.per_step.h2d_bytes, 0.0);
  // A step is at least its 60 ms of kernels; the slow ones 100 ms more.
  EXPECT_GE(s.wall_ns.p50, 60'000'000);
  EXPECT_GE(s.wall_ns.max, 160'000'000);
  EXPECT_GE(s.per_step.busy_ns, 55'000'000);
  // The planted steps are the outliers of 160 ms and more. A loaded host may stretch another step
  // by the 12 ms (1.2x the median) that makes it one too: at most 3 such, each under 160 ms.
  ASSERT_GE(s.outliers_total, 3u) << run.process.output;
  EXPECT_LE(s.outliers_total, 6u) << run.process.output;
  ASSERT_EQ(s.outliers.size(), s.outliers_total);
  std::vector<uint64_t> indexes;
  for (const StepOutlier& o : s.outliers) {
    EXPECT_EQ(o.name, "ProfilerStep#" + std::to_string(o.index));
    if (o.index % 10 != 9) {
      EXPECT_LT(o.wall_ns, 160'000'000) << "step " << o.index << " was not planted";
      continue;
    }
    indexes.push_back(o.index);
    EXPECT_EQ(o.cause, "host_outside_cuda_ns") << o.index;
    EXPECT_GE(o.wall_ns, 160'000'000);
    EXPECT_THAT(o.top_stall, HasSubstr("cudaMemcpy d2h_copy"));
  }
  std::sort(indexes.begin(), indexes.end());  // listed longest first
  EXPECT_THAT(indexes, ElementsAre(9u, 19u, 29u));
  EXPECT_EQ(s.wall_samples_ns.size(), static_cast<size_t>(kSteps));
  // The text says it.
  EXPECT_THAT(run.process.output, HasSubstr("STEPS  30 (nvtx:ProfilerStep#N)"));
  EXPECT_THAT(run.process.output, HasSubstr("    step 9  ProfilerStep#9  "));
  EXPECT_THAT(run.process.output, HasSubstr("more host time outside CUDA"));
  // Every step's parts are there for the chart, and the HTML draws it with the outliers listed.
  EXPECT_EQ(s.part_samples.busy_ns.size(), static_cast<size_t>(kSteps));
  EXPECT_GE(s.part_samples.host_outside_cuda_ns[9], 95'000'000);
}

TEST(StepsE2eTest, TheHtmlPageChartsTheSteps) {
  const std::string out = OutputPath("html");
  const e2e::ProcessResult r = e2e::Spawn(
      {BRRR_BIN, "run", "--quiet", "--output", out, "--", Program(), "20", "10", "100000"},
      e2e::SimEnvironment({kKernels}), true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = out + ".html";
  const e2e::ProcessResult rendered =
      e2e::Spawn({BRRR_BIN, "report", out, "--html", html}, e2e::SimEnvironment({}), true);
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const std::string page = e2e::ReadFile(html);
  EXPECT_THAT(page, HasSubstr("<div id=\"step_chart\"><svg"));
  EXPECT_THAT(page, HasSubstr("step 9: an outlier"));
  EXPECT_THAT(page, HasSubstr("step 19: an outlier"));
  // The page marks exactly the report's outliers (a loaded host may make another step one).
  const absl::StatusOr<Report> report = ReadBrrrFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->steps.has_value());
  std::set<uint64_t> outliers;
  for (const StepOutlier& o : report->steps->outliers) outliers.insert(o.index);
  for (uint64_t step = 0; step < 20; ++step) {
    const std::string mark = "step " + std::to_string(step) + ": an outlier";
    EXPECT_EQ(page.find(mark) != std::string::npos, outliers.count(step) == 1) << mark;
  }
  EXPECT_THAT(page, HasSubstr("id=\"step_outliers\""));
  std::remove(html.c_str());
  std::remove(out.c_str());
}

TEST(StepsE2eTest, ChosenRangesAreTheStepsAndWithoutThemThereAreNone) {
  const LoopRun named =
      RunLoop("named", {"--steps=nvtx:iteration"}, {"12", "0", "0", "--range", "iteration"});
  ASSERT_EQ(named.process.exit_code, 0) << named.process.output;
  ASSERT_TRUE(named.report.steps.has_value()) << named.process.output;
  EXPECT_EQ(named.report.steps->source, "nvtx:iteration");
  EXPECT_EQ(named.report.steps->count, 12u);
  // A steady loop has none, unless a loaded host stretched a step by 1.2x: then one or two.
  EXPECT_LE(named.report.steps->outliers_total, 2u) << "a steady loop";

  // The same ranges without --steps are not steps (nor ProfilerStep#N ones): no section.
  const LoopRun plain = RunLoop("plain", {}, {"12", "0", "0", "--range", "iteration"});
  ASSERT_EQ(plain.process.exit_code, 0) << plain.process.output;
  EXPECT_FALSE(plain.report.steps.has_value());
  EXPECT_THAT(plain.process.output, ::testing::Not(HasSubstr("STEPS")));

  // A malformed selector is refused with the form it needs.
  const e2e::ProcessResult bad =
      e2e::Spawn({BRRR_BIN, "run", "--steps=iteration", "--", Program(), "1", "0", "0"},
                 e2e::SimEnvironment({kKernels}), true);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--steps: 'iteration' is not nvtx:NAME"));
}

// `brrr diff` of the file of a run with a per-step read-back ("before") and one without
// ("after"), with the gate.
e2e::ProcessResult Diff(const std::string& a, const std::string& b,
                        const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {BRRR_BIN, "diff", a, b};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return e2e::Spawn(argv, e2e::SimEnvironment({}), /*with_stderr=*/true);
}

std::string RunToFile(const std::string& tag, const std::vector<std::string>& program_args,
                      const std::vector<std::string>& sim = {kKernels}) {
  const std::string out = OutputPath(tag);
  std::vector<std::string> argv = {BRRR_BIN, "run", "--quiet", "--output", out, "--", Program()};
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  const e2e::ProcessResult r = e2e::Spawn(argv, e2e::SimEnvironment(sim), true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return out;
}

TEST(StepsE2eTest, DiffOfARemovedReadBackAndItsGate) {
  const std::string before = RunToFile("before", {"20", "0", "0"});
  const std::string after = RunToFile("after", {"20", "0", "0", "--no-readback"});
  const e2e::ProcessResult text = Diff(before, after, {});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("basis: per step"));
  EXPECT_THAT(text.output, ::testing::ContainsRegex("stalls_per_step +1 +0 +-100.0%  significant"));
  EXPECT_THAT(text.output, HasSubstr("gone     cudaMemcpy [d2h_copy]"));
  EXPECT_THAT(text.output, HasSubstr("stepped_loop.cu"));  // where the read-back was

  const e2e::ProcessResult json = Diff(before, after, {"--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"schema\": \"brrr.diff/1\""));
  EXPECT_THAT(json.output, HasSubstr("\"basis\": \"steps\""));

  // The gate: fewer stalls is no failure; more (after -> before) is, and says which condition.
  EXPECT_EQ(Diff(before, after, {"--fail-if", "stalls_per_step > +0"}).exit_code, 0);
  const e2e::ProcessResult worse = Diff(
      after, before, {"--fail-if", "stalls_per_step > +0", "--fail-if", "launches_per_step > +0"});
  EXPECT_EQ(worse.exit_code, 1) << worse.output;
  EXPECT_THAT(worse.output, HasSubstr("fail-if holds: stalls_per_step > +0"));
  EXPECT_THAT(worse.output, Not(HasSubstr("fail-if holds: launches_per_step")));
  // Usage errors are 2: an unknown metric, a malformed condition, a file that is not there.
  EXPECT_EQ(Diff(before, after, {"--fail-if", "stall_per_step > +0"}).exit_code, 2);
  EXPECT_EQ(Diff(before, after, {"--fail-if", "stalls_per_step +0"}).exit_code, 2);
  EXPECT_EQ(Diff(before, OutputPath("absent"), {}).exit_code, 2);

  // The folded diff: the read-back's stack with its time per step before and none after.
  const std::string folded = OutputPath("folded") + ".txt";
  ASSERT_EQ(Diff(before, after, {"--folded-diff", folded}).exit_code, 0);
  const std::string lines = e2e::ReadFile(folded);
  EXPECT_THAT(lines, ::testing::ContainsRegex("main.*;cudaMemcpy \\[d2h_copy\\] [1-9][0-9]* 0\n"));
  std::remove(folded.c_str());
  // The HTML page has the metrics, with the significant ones marked.
  const std::string html = OutputPath("diff") + ".html";
  ASSERT_EQ(Diff(before, after, {"--html", html}).exit_code, 0);
  const std::string page = e2e::ReadFile(html);
  EXPECT_THAT(page, HasSubstr("<table id=\"metrics\">"));
  EXPECT_THAT(page, HasSubstr("<td class=\"mono\">stalls_per_step</td><td>timing</td><td "
                              "class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">-100.0%"
                              "</td><td class=\"sig\">yes</td>"));
  EXPECT_THAT(page, HasSubstr("p &lt; 0.01"));  // how significance is decided
  std::remove(html.c_str());
  std::remove(before.c_str());
  std::remove(after.c_str());
}

// Two runs of one program never trip a step-time gate (no false alarm), run after run.
TEST(StepsE2eTest, IdenticalRunsPassAStepTimeGate) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string a = RunToFile("same-a", {"20", "0", "0"});
    const std::string b = RunToFile("same-b", {"20", "0", "0"});
    const e2e::ProcessResult r =
        Diff(a, b, {"--fail-if", "step_wall_p50_ns > +10%", "--fail-if", "stalls_per_step > +0"});
    EXPECT_EQ(r.exit_code, 0) << "attempt " << attempt << "\n" << r.output;
    std::remove(a.c_str());
    std::remove(b.c_str());
  }
}

// The CI gate on exact counts (issue 47): a planted hidden sync (a cudaMalloc + cudaFree per
// step, which drains the device so that the read-back no longer waits: fewer stalls) always
// fails it, and runs of the unchanged program with other timing (kernels of 0.2 ms or 5 ms, launch
// calls of 2 or 40 us) never do, whatever their stalls did.
TEST(StepsE2eTest, TheCountGateCatchesANewSyncAndNeverTimingNoise) {
  const std::vector<std::string> fast = {"BRRR_SIM_KERNELS=step_kernel=200000",
                                         "BRRR_SIM_LAUNCH_NS=2000"};
  const std::vector<std::string> slow = {"BRRR_SIM_KERNELS=step_kernel=5000000",
                                         "BRRR_SIM_LAUNCH_NS=40000"};
  const std::string a_fast = RunToFile("gate-a-fast", {"20", "0", "0"}, fast);
  const std::string a_slow = RunToFile("gate-a-slow", {"20", "0", "0"}, slow);
  const std::string b_slow = RunToFile("gate-b-slow", {"20", "0", "0", "--extra-sync"}, slow);
  const std::string b_fast = RunToFile("gate-b-fast", {"20", "0", "0", "--extra-sync"}, fast);
  const std::vector<std::string> gate = {
      "--fail-if", "new_sync_sites > 0",         "--fail-if", "gone_sync_sites > 0",
      "--fail-if", "sync_calls_per_step > +0",   "--fail-if", "sync_calls_per_step < -0",
      "--fail-if", "launches_per_step > +0",     "--fail-if", "d2h_bytes_per_step > +0"};
  // Unchanged program, other timing: the gate holds nothing, both ways.
  for (const auto& [x, y] : {std::pair{a_fast, a_slow}, std::pair{a_slow, a_fast},
                             std::pair{b_fast, b_slow}}) {
    const e2e::ProcessResult same = Diff(x, y, gate);
    EXPECT_EQ(same.exit_code, 0) << same.output;
  }
  // The planted sync, whatever the timing of either side.
  for (const auto& [x, y] : {std::pair{a_slow, b_slow}, std::pair{a_fast, b_slow},
                             std::pair{a_slow, b_fast}}) {
    const e2e::ProcessResult worse = Diff(x, y, gate);
    EXPECT_EQ(worse.exit_code, 1) << worse.output;
    EXPECT_THAT(worse.output, HasSubstr("fail-if holds: new_sync_sites > 0"));
    EXPECT_THAT(worse.output, HasSubstr("fail-if holds: sync_calls_per_step > +0"));
    EXPECT_THAT(worse.output, Not(HasSubstr("fail-if holds: launches_per_step")));
    // Per API: one more cudaFree per step, as many copies as before.
    EXPECT_EQ(Diff(x, y, {"--fail-if", "sync_calls_per_step[cudaFree] > +0"}).exit_code, 1);
    EXPECT_EQ(Diff(x, y, {"--fail-if", "sync_calls_per_step[cudaMemcpy] > +0"}).exit_code, 0);
    // The text names the new site, where it is, with counts as integers.
    EXPECT_THAT(worse.output, ContainsRegex("new +cudaFree \\[free_syncs_device\\] +calls 0 -> 1,"));
    EXPECT_THAT(worse.output, HasSubstr("extra_sync"));
    EXPECT_THAT(worse.output, ContainsRegex("sync_calls_per_step +1 +2 +\\+100.0%  significant"));
  }
  // Removing it is the other way: gone, fewer.
  const e2e::ProcessResult better = Diff(b_slow, a_fast, {"--fail-if", "gone_sync_sites > 0"});
  EXPECT_EQ(better.exit_code, 1) << better.output;
  for (const std::string& f : {a_fast, a_slow, b_slow, b_fast}) std::remove(f.c_str());
}

}  // namespace
}  // namespace brrr
