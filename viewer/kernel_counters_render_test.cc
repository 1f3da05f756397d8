// Per-kernel hardware counters in the renderers: the text kernels table's SM%/DRAM%/cover columns
// and the note under it (join basis, shared samples, lower bounds, or why nothing was joined), the
// HTML kernel table's columns and note; and without counters, neither.
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/sample_report.h"
#include "viewer/render_html.h"
#include "viewer/render_text.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Report WithCounters() {
  Report r = SampleReport();
  KernelStat& gemm = r.kernels.top[0];
  gemm.achieved_sm_pct = 61.25;
  gemm.achieved_dram_pct = 20.0;
  gemm.counter_coverage = 0.97;
  gemm.counter_shared = 0.02;
  KernelStat& add = r.kernels.top[1];
  add.achieved_sm_pct = 12.5;
  add.achieved_dram_pct = 80.04;
  add.counter_coverage = 0.5;
  add.counter_shared = 0.4;  // over a tenth: marked
  add.counter_lower_bound = true;
  r.kernels.counters = KernelCounterJoin{"PM sample timestamps on CLOCK_REALTIME", 4000, 2, 0, 3};
  return r;
}

TEST(KernelCountersRender, TextTableHasTheColumnsAndTheNote) {
  const std::string text = RenderText(WithCounters());
  EXPECT_THAT(text, HasSubstr("SM%  DRAM%  cover"));
  EXPECT_THAT(text, HasSubstr("   61.2   20.0    97%"));  // 61.25 printed with one decimal
  EXPECT_THAT(text, HasSubstr("  12.5+  80.0+   50%*"));
  EXPECT_THAT(text, HasSubstr("Joined 4,000 samples by time (PM sample timestamps"));
  EXPECT_THAT(text, HasSubstr("2 samples not aligned"));
  EXPECT_THAT(text, HasSubstr("0 samples and 3 kernels came after the join window"));
  EXPECT_THAT(text, HasSubstr("*: other kernels ran inside the same samples"));
  EXPECT_THAT(text, HasSubstr("+: lower bound"));
}

TEST(KernelCountersRender, TextSaysWhyNothingWasJoined) {
  Report r = SampleReport();
  r.kernels.counters =
      KernelCounterJoin{"no clock brrr knows puts the samples inside the run: not joined", 0, 40};
  const std::string text = RenderText(r);
  EXPECT_THAT(text, Not(HasSubstr("DRAM%")));
  EXPECT_THAT(text, HasSubstr("counters per kernel: not joined (40 PM samples): no clock"));
}

// Counters asked for but refused: the reason alone, in both renderers, and no per-kernel note.
TEST(KernelCountersRender, RefusedCountersSayWhy) {
  Report r = SampleReport();
  r.kernels.counters = KernelCounterJoin{"no PM sample reached the collector: not joined"};
  r.kernels.counters->unavailable = "not permitted: ERR_NVGPUCTRPERM <admin only>";
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("Hardware counters not used: not permitted: ERR_NVGPUCTRPERM"));
  EXPECT_THAT(text, Not(HasSubstr("not joined")));
  EXPECT_THAT(text, Not(HasSubstr("DRAM%")));
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("<p id=\"kernel-counters\">Hardware counters not used: not "
                              "permitted: ERR_NVGPUCTRPERM &lt;admin only&gt;. </p>"));
}

// The run-wide figures while busy lead the note, beside the per-kernel join.
TEST(KernelCountersRender, RunWideFiguresLeadTheNote) {
  Report r = WithCounters();
  r.kernels.counters->busy_sm_pct = 70.0;
  r.kernels.counters->busy_dram_pct = 16.66;
  r.kernels.counters->busy_samples = 1234;
  const std::string want =
      "Hardware counters while the GPU was busy: SM 70.0 %, DRAM 16.7 % of peak (1,234 samples). ";
  const std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("Hardware counters while the GPU was busy: SM 70.0 %, DRAM 16.7 %"));
  EXPECT_THAT(text, HasSubstr("Joined 4,000 samples by time"));
  EXPECT_THAT(RenderHtml(r), HasSubstr("<p id=\"kernel-counters\">" + want + "Per-kernel"));
}

// Kernels on devices the counters did not measure are counted in the note, in both renderers;
// when they are most of the kernel time, the reason counters were not used comes first.
TEST(KernelCountersRender, KernelsOnOtherDevicesAreCountedInTheNote) {
  Report r = WithCounters();
  r.kernels.counters->busy_sm_pct = 70.0;
  r.kernels.counters->busy_samples = 12;
  r.kernels.counters->device = 0;
  r.kernels.counters->other_device_kernels = 1500;
  r.kernels.counters->other_device_ns = 2'500'000;
  const std::string other =
      "1,500 kernels (2.50 ms) ran on devices other than device 0, which the counters measured: "
      "no counter figures for them. ";
  // The text wraps its notes at 100 columns: compare it unwrapped.
  const std::string unwrapped = absl::StrReplaceAll(RenderText(r), {{"\n  ", " "}});
  EXPECT_THAT(unwrapped, HasSubstr("of peak (12 samples). " + other + "SM%/DRAM%"));
  EXPECT_THAT(RenderHtml(r), HasSubstr("of peak (12 samples). " + other + "Per-kernel"));
  r.kernels.counters->unavailable =
      "they measure device 0, and 90% of this process's kernel time ran on other devices";
  EXPECT_THAT(RenderHtml(r), HasSubstr("Hardware counters not used: they measure device 0, and "
                                       "90% of this process&#39;s kernel time ran on other "
                                       "devices. " + other));
  r.kernels.counters->other_device_kernels = 0;
  EXPECT_THAT(RenderText(r), Not(HasSubstr("ran on devices other than")));
}

TEST(KernelCountersRender, WithoutCountersNothingIsShown) {
  const Report r = SampleReport();
  const std::string text = RenderText(r);
  EXPECT_THAT(text, Not(HasSubstr("DRAM%")));
  EXPECT_THAT(text, Not(HasSubstr("counters per kernel")));
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, Not(HasSubstr(">DRAM %<")));
  EXPECT_THAT(html, Not(HasSubstr("kernel-counters")));
}

TEST(KernelCountersRender, HtmlTableHasTheColumnsAndTheNote) {
  const std::string html = RenderHtml(WithCounters());
  EXPECT_THAT(html, HasSubstr(">SM %</th>"));
  EXPECT_THAT(html, HasSubstr(">DRAM %</th>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"n\" data-v=\"61.250\">61.2</td>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"n\" data-v=\"80.040\">&ge;80.0</td>"));
  EXPECT_THAT(html, HasSubstr(">50%*</td>"));
  EXPECT_THAT(html, HasSubstr("40% of the sampled time shared with other kernels"));
  EXPECT_THAT(html, HasSubstr("<p id=\"kernel-counters\">Per-kernel counters: 4,000 PM samples"));
}

}  // namespace
}  // namespace brrr
