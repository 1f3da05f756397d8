// Tests for render_text.h: what the terminal report shows (verdict, bar, banners, warnings,
// tables, stacks), that the bar's proportions match the numbers, and that it stays within 100
// columns and free of control characters whatever the report holds.
// Must never: derive expected text or bar counts from the renderer under test.
#include "viewer/render_html.h"
#include "viewer/render_text.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/sample_report.h"
#include "viewer/text_format.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> Lines(const std::string& text) { return absl::StrSplit(text, '\n'); }

// The bar lines: "  |<bar>|".
std::vector<std::string> Bars(const std::string& text) {
  std::vector<std::string> bars;
  for (const std::string& line : Lines(text)) {
    if (line.size() >= 4 && line.substr(0, 3) == "  |" && line.back() == '|') {
      bars.push_back(line.substr(3, line.size() - 4));
    }
  }
  return bars;
}

TEST(RenderTextTest, StartsWithTheCommandAndShowsTheVerdictWithItsNumbers) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, StartsWith("brrr: python3 train.py --name \"run 1\" C:\\data tab"));
  EXPECT_THAT(text, HasSubstr("VERDICT: launch-bound\n"));
  EXPECT_THAT(text, HasSubstr("The device was idle 50% of the wall time"));
  // Device 0: 4 s busy, 6 s launch-bound, 1.5 s sync drain, 0.5 s host outside CUDA of 12 s.
  EXPECT_THAT(text, HasSubstr("device 0: busy 33.3%, launch-bound idle 50.0%, sync drain idle "
                              "12.5%, host outside CUDA 4.2%"));
}

TEST(RenderTextTest, LegendShowsAbsoluteTimesAndPercentages) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, HasSubstr("DEVICE 0   wall 12.0 s"));
  EXPECT_THAT(text, HasSubstr("# busy                  4.00 s    33.3%"));
  EXPECT_THAT(text, HasSubstr("~ launch-bound idle     6.00 s    50.0%"));
  EXPECT_THAT(text, HasSubstr("= sync drain idle       1.50 s    12.5%"));
  EXPECT_THAT(text, HasSubstr(". host outside CUDA     500 ms     4.2%"));
  // The parts have one name each, the same in the lines, the legend and the HTML.
  EXPECT_THAT(text, HasSubstr("legend: # busy  ~ launch-bound idle  = sync drain idle  "
                              ". host outside CUDA\n"));
}

TEST(RenderTextTest, BarProportionsMatchTheNumbers) {
  const Report r = SampleReport();
  const std::vector<std::string> bars = Bars(RenderText(r));
  ASSERT_EQ(bars.size(), r.devices.size());
  for (size_t i = 0; i < bars.size(); ++i) {
    const DeviceBreakdown& d = r.devices[i];
    const std::string& bar = bars[i];
    ASSERT_EQ(bar.size(), static_cast<size_t>(kBreakdownBarWidth));
    const struct {
      char glyph;
      int64_t ns;
    } parts[] = {{'#', d.busy_ns},
                 {'~', d.idle.launch_bound_ns},
                 {'=', d.idle.sync_drain_ns},
                 {'.', d.idle.host_outside_cuda_ns}};
    for (const auto& part : parts) {
      const double exact = 60.0 * static_cast<double>(part.ns) / static_cast<double>(d.wall_ns);
      const auto count = std::count(bar.begin(), bar.end(), part.glyph);
      EXPECT_LT(std::fabs(static_cast<double>(count) - exact), 1.0)
          << "device " << d.id << " glyph " << part.glyph << " bar " << bar;
    }
  }
  // Device 0 is 4/12, 6/12, 1.5/12, 0.5/12 of 60 cells: 20, 30, 7.5, 2.5.
  EXPECT_EQ(std::count(bars[0].begin(), bars[0].end(), '#'), 20);
  EXPECT_EQ(std::count(bars[0].begin(), bars[0].end(), '~'), 30);
  // Glyphs appear in legend order, each as one run.
  EXPECT_EQ(bars[0].substr(0, 50), std::string(20, '#') + std::string(30, '~'));
  // Device 1 is all host outside CUDA.
  EXPECT_EQ(bars[1], std::string(60, '.'));
}

TEST(RenderTextTest, DroppedWarningOnlyWhenEventsWereDropped) {
  Report r = SampleReport();
  r.events.dropped = 0;
  const std::string none = RenderText(r);
  EXPECT_THAT(none, Not(HasSubstr("WARNING")));
  EXPECT_THAT(none, Not(HasSubstr("events dropped")));
  EXPECT_THAT(none, HasSubstr("EVENTS  18,446,744,073,709,551,615 recorded, 0 dropped\n"));

  r.events.dropped = 1234;
  const std::string some = RenderText(r);
  const std::string warning =
      "WARNING: 1,234 events dropped (see COVERAGE for why): figures are lower bounds\n";
  EXPECT_THAT(some, HasSubstr(warning));
  // Prominent: within the first lines, before the verdict.
  EXPECT_LT(some.find(warning), some.find("VERDICT"));
}

TEST(RenderTextTest, CaptureLineOnlyWhenACaptureRangeLimitedTheRun) {
  Report r = SampleReport();
  r.capture = Capture{"cudaProfilerApi", "", 2, 1'500'000'000, 17};
  std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("\nCAPTURE  cudaProfilerApi: 2 ranges, 1.50 s recorded (12.2% of the "
                              "run)\n  calls outside were not recorded; 17 CUPTI records of such "
                              "calls dropped\n"));
  r.capture = Capture{"nvtx", "step", 1, 1'000, 0};
  EXPECT_THAT(RenderText(r), HasSubstr("CAPTURE  nvtx \"step\": 1 range, 1.00 us recorded"));
  r.capture = Capture{"all", "", 0, 0, 0};
  EXPECT_THAT(RenderText(r), Not(HasSubstr("CAPTURE")));
  r.capture.reset();
  EXPECT_THAT(RenderText(r), Not(HasSubstr("CAPTURE")));
}

// Issue 47: `--overhead-budget=2%` on a short run traced no window, and the report's device
// section said nothing of it (a breakdown with no busy time read as an idle device). The section
// starts by saying the view is unknown and that the budget was its price; without a budget, why.
TEST(RenderTextTest, ABudgetThatLeftNoDeviceViewSaysSoFirst) {
  Report r = SampleReport();
  DeviceSampling s;
  s.fraction = 0;
  s.budget_pct = 2.0;
  s.windows = 0;
  r.device_sampling = s;
  const std::string text = RenderText(r);
  const size_t section = text.find("\nDEVICES  unknown\n  no device view: the 2% cost budget left no "
                                   "traced launch call (0 windows;");
  EXPECT_NE(section, std::string::npos) << text;
  EXPECT_THAT(text, Not(HasSubstr("\nDEVICE 0")));
  r.device_sampling->budget_pct.reset();
  r.device_sampling->windows = 1;
  EXPECT_THAT(RenderText(r), HasSubstr("no device view: no launch call was traced in a window (1 "
                                       "window;"));
  EXPECT_THAT(RenderHtml(r), HasSubstr("<p id=\"device_unknown\">no device view"));
  r.device_sampling->busy_pct = 40.0;
  EXPECT_THAT(RenderText(r), HasSubstr("\nDEVICE 0"));
}

// Sampled device tracing and brrr's own cost: each a section of its own, within 100 columns,
// saying what is estimated and how the cost was measured; nothing when absent.
TEST(RenderTextTest, DeviceSamplingAndCostSections) {
  Report r = SampleReport();
  EXPECT_THAT(RenderText(r), Not(HasSubstr("DEVICE SAMPLING")));
  EXPECT_THAT(RenderText(r), Not(HasSubstr("BRRR'S COST")));
  r.device_sampling = SampleDeviceSampling();
  r.kernels.estimated = true;
  r.overhead = SampleOverhead();
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("\nDEVICE SAMPLING  10% asked: 42 windows, 2.10 s traced (10.5% of "
                              "20.0 s from the first CUDA call)\n"));
  EXPECT_THAT(text, HasSubstr("scaled by x9.75"));
  EXPECT_THAT(text, HasSubstr("Device 1 busy 37.5% +/- 1.2 points (2 standard errors over 41 windows)"));
  EXPECT_THAT(text, HasSubstr("  estimated from the traced windows (DEVICE SAMPLING)"));
  // A part not measured: the headline is not a number that passes for the whole (issue 47).
  EXPECT_THAT(text, HasSubstr("\nBRRR'S COST  unknown: at least 0.1% of wall (hooks 0.1%, device "
                              "tracing unknown)\n  collector CPU 250 ms; not measured: device "
                              "tracing (full tracing)\n  hooks: 617,283 calls"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(line.size(), 100u) << line;
  }
  // Parts are shares of pct_of_wall in proportion (a job's summed parts read the same way).
  r.overhead->pct_of_wall = 3.0;
  r.overhead->unmeasured.clear();
  r.overhead->hooks_ns = 1'000;
  r.overhead->device_tracing_ns = 2'000;
  EXPECT_THAT(RenderText(r), HasSubstr("~3% of wall (hooks 1.0%, device tracing 2.0%)"));
  r.device_sampling->budget_pct = 2.0;
  r.device_sampling->fraction = 0.041;
  EXPECT_THAT(RenderText(r), HasSubstr("\nDEVICE SAMPLING  4.1% steered under a 2% cost budget: 42 "
                                       "windows, 2.10 s traced"));
  r.device_sampling->budget_pct.reset();
  r.device_sampling->fraction = 0.1;
  r.device_sampling->span_ns = 0;  // a report from before the span: the run's wall stands in
  EXPECT_THAT(RenderText(r), HasSubstr("2.10 s traced (17.0% of the run)\n"));
  r.device_sampling->busy_error_points.reset();
  EXPECT_THAT(RenderText(r), HasSubstr("(too few windows for an error bound)"));
  // Launch calls classified before the windows' records came: said, with what it may cost.
  const std::string unwrapped = absl::StrReplaceAll(RenderText(r), {{"\n  ", " "}});
  EXPECT_THAT(unwrapped, HasSubstr("; 512 launch calls were counted inside or outside a window "
                                   "before its record came (more waited than the collector "
                                   "keeps): the scale may be off by their share"));
  r.device_sampling->calls_classified_early = 0;
  EXPECT_THAT(RenderText(r), Not(HasSubstr("counted inside or outside a window")));
  // Nothing traced (a run shorter than the time to its first window): no busy share is stated.
  r.device_sampling->windows = 0;
  r.device_sampling->traced_launches = 0;
  r.device_sampling->busy_pct.reset();
  const std::string untraced = RenderText(r);
  EXPECT_THAT(untraced, HasSubstr("\n  no launch call was traced: the device's busy time and the "
                                  "kernel table are unknown"));
  EXPECT_THAT(untraced, Not(HasSubstr("Device 1 busy")));
  EXPECT_THAT(untraced, Not(HasSubstr("scaled by")));
}

TEST(RenderTextTest, HostOnlyBannerOnlyWhenHostOnly) {
  Report r = SampleReport();
  const std::string normal = RenderText(r);
  EXPECT_THAT(normal, Not(HasSubstr("HOST-ONLY")));
  EXPECT_THAT(normal, Not(HasSubstr("device times are missing")));

  r.host_only = true;
  r.host_only_reason = "CUPTI is in use by another tool (nsys)";
  r.devices.clear();
  const std::string host_only = RenderText(r);
  const std::vector<std::string> lines = Lines(host_only);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_THAT(lines[0], StartsWith("brrr: "));
  EXPECT_EQ(lines[1],
            "!! HOST-ONLY: device times are missing (CUPTI is in use by another tool (nsys)).");
  EXPECT_THAT(lines[2], HasSubstr("not measured"));
  EXPECT_THAT(host_only, HasSubstr("DEVICES: none recorded (host-only run)"));

  r.host_only_reason.clear();
  EXPECT_THAT(RenderText(r), HasSubstr("device times are missing (reason unknown)"));
}

TEST(RenderTextTest, CoverageBlockComesBeforeTheVerdictWithCountsStacksAndGaps) {
  const std::string text = RenderText(SampleReport());
  const std::string block =
      "\nCOVERAGE  120,603 CUDA calls\n"
      "  seen by the runtime hooks 120,500, by CUPTI callbacks 100, by CUPTI records only 3\n"
      "  no stack for 103 calls: cudaStreamSynchronize 100, cuMemFree_v2 3\n"
      "  could have escaped:\n"
      "  - 7 device records dropped (device ring or CUPTI buffers full): kernels, copies or "
      "calls seen only\n"
      "    by CUPTI may be missing\n";
  EXPECT_THAT(text, HasSubstr(block));
  EXPECT_LT(text.find("COVERAGE"), text.find("VERDICT"));
}

TEST(RenderTextTest, CompleteCoverageSaysNothingEscaped) {
  Report r = SampleReport();
  r.coverage->complete = true;
  r.coverage->gaps.clear();
  r.coverage->calls_without_stack = 0;
  r.coverage->without_stack.clear();
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("  every call has a stack\n  nothing escaped\n"));
  EXPECT_THAT(text, Not(HasSubstr("could have escaped")));
}

TEST(RenderTextTest, ARunWithNoCallsMakesNoClaimAboutStacks) {
  Report r = SampleReport();
  *r.coverage = Coverage{};
  r.coverage->complete = false;
  r.coverage->gaps = {"no CUDA call or device work was recorded"};
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("COVERAGE  0 CUDA calls\n"));
  EXPECT_THAT(text, Not(HasSubstr("every call has a stack")));
  EXPECT_THAT(text, HasSubstr("  - no CUDA call or device work was recorded\n"));
}

TEST(RenderTextTest, IncompleteCoverageWithoutReasonsStillSaysSo) {
  Report r = SampleReport();
  r.coverage->gaps.clear();  // complete stays false: a damaged or hand-written file
  EXPECT_THAT(RenderText(r), HasSubstr("  could have escaped:\n  - (reasons not recorded)\n"));
}

TEST(RenderTextTest, ManyStacklessApisAreCutWithAPointerToTheJson) {
  Report r = SampleReport();
  r.coverage->without_stack.clear();
  for (int i = 0; i < 11; ++i) r.coverage->without_stack.push_back({"api" + std::to_string(i), 1});
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("api7 1, ... 3 more"));
  EXPECT_THAT(text, HasSubstr("in the JSON"));
  EXPECT_THAT(text, Not(HasSubstr("api8")));
}

TEST(RenderTextTest, ReportsWithoutCoverageHaveNoCoverageBlock) {
  Report r = SampleReport();
  r.coverage.reset();
  EXPECT_THAT(RenderText(r), Not(HasSubstr("COVERAGE")));
}

TEST(RenderTextTest, LatencyPercentilesInHumanUnits) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, HasSubstr("LAUNCH-TO-EXECUTION LATENCY  (120,000 kernels)\n"
                              "  p50 15.0 us   p90 40.0 us   p99 120 us   max "));
  Report r;
  EXPECT_THAT(RenderText(r), HasSubstr("LAUNCH-TO-EXECUTION LATENCY  (0 kernels)\n  not measured"));
}

TEST(RenderTextTest, ApiTableIsSortedByTotalTime) {
  Report r = SampleReport();
  std::swap(r.api[0], r.api[3]);  // the renderer must not rely on the input order
  const std::string text = RenderText(r);
  const size_t launch = text.find("  cudaLaunchKernel ");
  const size_t memcpy = text.find("  cudaMemcpy ");
  const size_t sync = text.find("  cudaStreamSynchronize ");
  const size_t free = text.find("  cudaFree ");
  ASSERT_NE(free, std::string::npos);
  EXPECT_LT(launch, memcpy);
  EXPECT_LT(memcpy, sync);
  EXPECT_LT(sync, free);
  EXPECT_THAT(text, HasSubstr("cudaMemcpy                        copy                 500"
                              "      2.00 s     3.00 ms     9.00 ms"));
}

TEST(RenderTextTest, HowTheRunEndedIsSaid) {
  Report r = SampleReport();
  r.exit_code = 0;
  r.exit_code_known = false;
  r.end = "killed";
  EXPECT_THAT(RenderText(r), HasSubstr("exit code unknown (killed)\n"));
  EXPECT_THAT(RenderText(r), Not(HasSubstr("exit code 0")));
  r.exit_code_known = true;
  r.exit_code = 137;
  r.end = "killed by signal 9";
  EXPECT_THAT(RenderText(r), HasSubstr("exit code 137 (killed by signal 9)\n"));
  r.exit_code_known = false;
  r.end = "running";
  EXPECT_THAT(RenderText(r), HasSubstr("so far   still running (snapshot)\n"));
  r.kernels.launch_calls = r.kernels.launches;
  EXPECT_THAT(RenderText(r), HasSubstr("KERNELS  (120,000 launches, 4.00 s"));
}

TEST(RenderTextTest, KernelsAndStallsWithIndentedStacks) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, HasSubstr("KERNELS  (120,000 launches with device records of 120,400 launch "
                              "calls, 4.00 s on the device)"));
  // The class column leaves 48 columns for the name: a longer one keeps the function's own name
  // whole and drops its arguments (issue 47: the middle was cut, "...like(float*, int, int)").
  EXPECT_THAT(text, HasSubstr("  matmul      void gemm_kernel<float, 128>(...)\n"));
  EXPECT_THAT(text, HasSubstr("  1. cudaMemcpy  d2h_copy  500 calls  2.00 s\n"
                              "       #0  loss_item (train.cc:42)\n"
                              "       #1  train_step (train.cc:97)\n"
                              "       #2  main (train)\n"
                              "  2. cudaFree  free_syncs_device  3 calls  4.50 ms\n"
                              "       (no stack)\n"));
}

TEST(RenderTextTest, AStallWithoutAStackSaysWhyWhenTheCollectorKnows) {
  Report r = SampleReport();
  ASSERT_GE(r.stalls.size(), 2u);
  r.stalls[1].ended_early = "was not taken: the call was seen only in CUPTI's records";
  EXPECT_THAT(RenderText(r),
              HasSubstr("  2. cudaFree  free_syncs_device  3 calls  4.50 ms\n"
                        "       (no stack: it was not taken: the call was seen only in CUPTI's "
                        "records)\n"));
}

TEST(RenderTextTest, LaunchSitesWithEstimatedCountsAfterTheStalls) {
  const std::string text = RenderText(SampleReport());
  // The leading CUDA frame is folded into a marker; the user's frame is #0.
  EXPECT_THAT(text,
              HasSubstr("LAUNCH SITES  (sampled 1 in 64 launches; counts are estimates)\n"
                        "  1. ~76,800 launches\n"
                        "       ran square(float*, int)  ~1.23 s on device 0 (+1 other row)\n"
                        "       (+1 CUDA frame)\n"
                        "       #0  Model.forward (model.py:88)\n"
                        "       #1  train_step (train.py:31)\n"
                        "       (the stack ends at train_step: no frame pointer or call-frame "
                        "information led past it)\n"
                        "  2. ~128 launches\n"
                        "       (no stack)\n"));
  EXPECT_LT(text.find("STALLS"), text.find("LAUNCH SITES"));
  Report off = SampleReport();
  off.launch_sample_period = 0;
  off.launch_sites.clear();
  EXPECT_THAT(RenderText(off), Not(HasSubstr("LAUNCH SITES")));
  Report none = SampleReport();
  none.launch_sites.clear();
  EXPECT_THAT(RenderText(none), HasSubstr("launches; counts are estimates)\n  none sampled\n"));
}

TEST(RenderTextTest, StacksThatEndedEarlyAreCountedByWhyAfterTheLaunchSites) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, HasSubstr("STACKS  (every stall and launch site, not only those above)\n"
                              "  11 of 14 reach their thread's start; the others end early:\n"
                              "    2 where no frame pointer or call-frame information led on "
                              "(1,201 calls)\n"
                              "    1 with no stack stored (2 calls)\n"));
  EXPECT_LT(text.find("LAUNCH SITES"), text.find("STACKS  ("));
  Report whole = SampleReport();
  whole.stack_ends = StackEnds{3, 3, {}};
  EXPECT_THAT(RenderText(whole), HasSubstr("  3 of 3 reach their thread's start\n"));
  Report none = SampleReport();
  none.stack_ends.reset();
  EXPECT_THAT(RenderText(none), Not(HasSubstr("STACKS  (")));
}

TEST(RenderTextTest, PythonLineAfterCoverageSaysWhyStacksAreNativeOnly) {
  const std::string text = RenderText(SampleReport());
  EXPECT_THAT(text, HasSubstr("\nPYTHON  3.12.1  Python frames in the stacks\n"
                              "  3 captures lost their Python frames (native frames kept)\n"
                              "  torch 2.11.0+cu130: record_function labels are phases, "
                              "ProfilerStep#N are steps\n"));
  EXPECT_LT(text.find("COVERAGE"), text.find("PYTHON"));
  Report unsupported = SampleReport();
  unsupported.python->status = "unsupported_version";
  unsupported.python->version = "3.14.0";
  unsupported.python->note = "Python 3.14 is not supported (3.9 to 3.13 are): native stacks only";
  const std::string native_only = RenderText(unsupported);
  EXPECT_THAT(native_only, HasSubstr("\nPYTHON  3.14.0\n  Python 3.14 is not supported (3.9 to "
                                     "3.13 are): native stacks only\n"));
  EXPECT_THAT(native_only, Not(HasSubstr("Python frames in the stacks")));
  Report unhooked = SampleReport();
  unhooked.python->torch_annotations = "unsupported";
  unhooked.python->torch_reason = "torch.autograd.profiler has no record_function to hook";
  EXPECT_THAT(RenderText(unhooked),
              HasSubstr("  torch 2.11.0+cu130: record_function labels not recorded "
                        "(torch.autograd.profiler has no\n  record_function to hook)\n"));
  // No Python in the process (a C++ program), or a report from before: no Python line.
  Report cpp = SampleReport();
  cpp.python->status = "none";
  cpp.python->torch_annotations.clear();
  EXPECT_THAT(RenderText(cpp), Not(HasSubstr("PYTHON")));
  cpp.python.reset();
  EXPECT_THAT(RenderText(cpp), Not(HasSubstr("PYTHON")));
}

TEST(RenderTextTest, StaysWithin100ColumnsAndEmitsNoControlCharacters) {
  Report r = SampleReport();
  const std::string long_name(500, 'k');
  r.command = "cmd \x1b[2J" + long_name;
  r.verdict.why = "\x1b]0;title\x07 " + long_name + " and some words " + long_name;
  r.host_only = true;
  r.host_only_reason = long_name + "\x1b[31m";
  r.api[0].name = long_name;
  r.api[0].category = long_name;
  r.api[0].calls = ~uint64_t{0};
  r.kernels.top[0].name = "void templ<" + long_name + ">(int)";
  r.kernels.top[0].launches = ~uint64_t{0};
  r.stalls[0].stack.push_back("frame (" + long_name + ":1)");
  r.stalls[0].api = long_name;
  r.stalls[0].reason = long_name;
  r.events.dropped = ~uint64_t{0};
  r.coverage->hooked_calls = ~uint64_t{0};
  r.coverage->without_stack.push_back({long_name + "\x1b[0m", ~uint64_t{0}});
  r.coverage->gaps.push_back("\x1b[1m" + long_name + " gap " + long_name);
  const std::string text = RenderText(r);
  for (const std::string& line : Lines(text)) {
    EXPECT_LE(DisplayWidth(line), 100u) << line;
  }
  for (char c : text) {
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << "control char " << int{c};
    EXPECT_NE(c, '\x7f');
  }
  // A kernel's name too long for even its own name keeps its start; frames keep both ends.
  EXPECT_THAT(text, ::testing::ContainsRegex("  void templ<k+\\.\\.\\.\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("#3  frame \\(k+\\.\\.\\.k+:1\\)\n"));
}

TEST(RenderTextTest, InconsistentReportsRenderWithoutCrashing) {
  Report r;
  DeviceBreakdown d;
  d.wall_ns = 10;
  d.busy_ns = 1000;
  d.idle = {-5, std::numeric_limits<int64_t>::max(), 0};
  r.devices = {d, DeviceBreakdown()};
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("more than the wall time"));
  EXPECT_EQ(Bars(text).size(), 2u);
  for (const std::string& bar : Bars(text)) EXPECT_EQ(bar.size(), 60u);
}

}  // namespace
}  // namespace brrr
