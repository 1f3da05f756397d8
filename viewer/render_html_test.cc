// Tests of the HTML report page: the verdict, its advice, the coverage line and every section the
// report has are on the page in order; a device gets its breakdown bar and timeline (one column
// per bucket, each part a tooltip with its duration); a job's processes each get a timeline on
// the job's clock; the latency histogram has a bar per row; stacks are collapsible; the kernel
// table has a class column only when classes exist; report text is escaped; and nothing in the
// page points outside it.
#include "viewer/render_html.h"
#include "absl/strings/str_cat.h"
#include "viewer/breakdown_bar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "viewer/format/sample_report.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderHtmlTest, SectionsInOrderWithTheVerdictFirst) {
  const std::string html = RenderHtml(SampleReport());
  const std::vector<std::string> order = {
      "class=\"regime launch-bound\"", "What to do", "capture the loop in a CUDA graph",
      "id=\"coverage\"", "Where the device time went", "id=\"stalls\"", "id=\"classes\"",
      "id=\"kernels\"", "Launch latency", "id=\"phases\"", "id=\"launch_sites\"", "id=\"api\"",
      "id=\"lost\""};
  size_t at = 0;
  for (const std::string& s : order) {
    const size_t found = html.find(s, at);
    ASSERT_NE(found, std::string::npos) << s;
    at = found;
  }
}

// Sampled device tracing: the estimates are marked, with what may make the scale wrong.
TEST(RenderHtmlTest, DeviceSamplingSaysTheFiguresAreEstimates) {
  Report r = SampleReport();
  EXPECT_THAT(RenderHtml(r), Not(HasSubstr("device traced in")));
  r.device_sampling = SampleDeviceSampling();
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("device traced in 42 windows (2.10 s, 10% asked, 9,876 launch calls "
                              "traced): device busy time and the kernel table are estimates "
                              "(x9.75); device 1 busy 37.5% (+/- 1.2 points over 41 windows); "
                              "512 launch calls were counted inside or outside a window before "
                              "its record came"));
  r.device_sampling->calls_classified_early = 0;
  EXPECT_THAT(RenderHtml(r), Not(HasSubstr("before its record came")));
}

TEST(RenderHtmlTest, ChartsDrawTheReportsNumbers) {
  const Report r = SampleReport();
  const std::string html = RenderHtml(r);
  // Two devices: two bars and two timelines; device 0's 3 buckets and device 1's 1.
  EXPECT_EQ(Count(html, "<svg"), 2u + 2u + 1u + 1u);  // + the latency histogram, the steps
  // The sample's 3 steps: step 1's parts as given, and no outlier mark (its outlier is step 9).
  EXPECT_THAT(html, HasSubstr("<title>step 1: busy 7.00 ms</title>"));
  EXPECT_THAT(html, HasSubstr("<title>step 2: host outside CUDA 21.5 ms</title>"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("an outlier</title>")));
  EXPECT_THAT(html, HasSubstr("timeline, 3 buckets of 4.00 s"));
  EXPECT_THAT(html, HasSubstr("<title>4.00 s - 8.00 s: busy 2.00 s (50.0%)</title>"));
  EXPECT_THAT(html, HasSubstr("<title>busy: 4.00 s (33.3%)</title>"));
  // The histogram: a bar per row with its count.
  EXPECT_THAT(html, HasSubstr("<title>8.19 us+: 50,000 launches</title>"));
  EXPECT_EQ(Count(html, " launches</title>"), r.launch_latency_ns.histogram.size());
}

TEST(RenderHtmlTest, TheLegendNamesEveryBreakdownPartAsTheTextDoes) {
  const std::string html = RenderHtml(SampleReport());
  for (const BarPart& p : BreakdownParts(DeviceBreakdown{})) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("\"></i>", p.label, "</span>"))) << p.label;
  }
  EXPECT_THAT(html, HasSubstr("></i>unaccounted</span>"));
  EXPECT_THAT(html, HasSubstr("></i>launch-bound idle</span>"));
}

TEST(RenderHtmlTest, StacksCollapseAndKernelClassesShowWhenPresent) {
  Report r = SampleReport();
  std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("<details><summary>loss_item (train.cc:42)</summary>"
                              "<ol class=\"stack mono\"><li>loss_item (train.cc:42)</li>"
                              "<li>train_step (train.cc:97)</li><li>main (train)</li></ol>"));
  EXPECT_THAT(html, HasSubstr("<th>kernel</th><th>class</th>"));
  // A launch site says what its sampled launches ran, each kernel row with its device time.
  EXPECT_THAT(html, HasSubstr("<td>square(float*, int) (~1.23 s, device 0)<br>(several kernels) "
                              "(~9.60 ms, device 1)</td>"));
  for (KernelStat& k : r.kernels.top) k.kernel_class.clear();
  r.kernels.classes.clear();
  html = RenderHtml(r);
  EXPECT_THAT(html, Not(HasSubstr("<th>class</th>")));
  EXPECT_THAT(html, Not(HasSubstr("id=\"classes\"")));
}

TEST(RenderHtmlTest, ReportTextIsEscapedAndNothingPointsOutside) {
  Report r = SampleReport();
  r.command = "<script src=\"https://evil.example/x.js\"></script>";
  r.stalls[0].stack[0] = "<img src=http://x/y onerror=alert(1)>";
  r.verdict.advice.push_back("a & b < c");
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, Not(HasSubstr("<script src")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, HasSubstr("&lt;img src=http://x/y onerror=alert(1)&gt;"));
  EXPECT_THAT(html, HasSubstr("a &amp; b &lt; c"));
  // No attribute of any tag refers to anything: no src, href, xmlns or url(...).
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<[^>]*\s(src|href|xmlns)=)")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
}

TEST(RenderHtmlTest, JobReportListsItsProcesses) {
  Report r = SampleReport();
  ProcessRow row;
  row.pid = 4242;
  row.rank = 3;
  row.host = "node7";
  row.ended = "exited";
  row.exit_code = 0;
  row.verdict.regime = "sync-bound";
  row.top_stall = "cudaMemcpy d2h_copy 12 calls 3.4 ms";
  r.processes = {row};
  r.job = JobSummary{1, 1, Straggler{3, 4242, "rank 3 spent 40 ms outside CUDA vs median 10 ms"}};
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("Processes of the job"));
  // The straggler's sentence names it; the label does not repeat it ("pid 3698 pid 3698").
  EXPECT_THAT(html, HasSubstr("Straggler:</span> rank 3 spent 40 ms outside CUDA vs median 10 ms"));
  // Pids as numbers, not counts ("4,242").
  EXPECT_THAT(html, HasSubstr("data-v=\"4242\">4242</td>"));
  EXPECT_THAT(html, Not(HasSubstr("4,242")));
  EXPECT_THAT(html, HasSubstr("<td>node7</td><td>exited (0)</td>"));
  EXPECT_THAT(html, HasSubstr("cudaMemcpy d2h_copy 12 calls 3.4 ms"));
  EXPECT_THAT(html, Not(HasSubstr("Each process over time"))) << "no timelines, nothing left out";
}

// A job's processes over time: one chart per (process, GPU), in row order, each with its id, the
// straggler marked, and the sentence on rows left out.
TEST(RenderHtmlTest, JobReportDrawsEachProcessOverTime) {
  Report r = SampleReport();
  const int64_t s = 1'000'000'000;
  Timeline t;
  t.bucket_ns = 2 * s;
  t.origin_unix_ns = 1'700'000'000 * s;
  TimelineBucket idle_bucket, busy_bucket;
  idle_bucket.host_outside_cuda_ns = 2 * s;
  busy_bucket.busy_ns = 3 * s / 2;
  busy_bucket.sync_drain_ns = s / 2;
  t.devices = {{0, {busy_bucket, busy_bucket}}};
  ProcessRow rank0;
  rank0.pid = 10;
  rank0.rank = 0;
  rank0.host = "node1";
  rank0.timeline = t;
  ProcessRow rank1 = rank0;
  rank1.pid = 11;
  rank1.rank = 1;
  rank1.timeline->devices = {{0, {idle_bucket, busy_bucket}}, {1, {busy_bucket, idle_bucket}}};
  r.processes = {rank0, rank1};
  r.job = JobSummary{2, 2, Straggler{1, 11, "outside CUDA 2 s vs median 0 s"}};
  r.job->timeline_rows_left_out = 1;
  r.job->timeline_note = "Timelines left out for 1 of 4 (process, GPU) rows: 1 whose buckets do "
                         "not add up to the breakdown.";
  const std::string html = RenderHtml(r);
  const std::vector<std::string> order = {
      "id=\"processes\"", "Each process over time", "buckets of 2.00 s",
      "id=\"timeline-pid-10-gpu-0\"", "<b>rank 0</b>",
      "<title>2.00 s - 4.00 s: busy 1.50 s (75.0%)</title>",
      "id=\"timeline-pid-11-gpu-0\"", "<b>rank 1</b>", "straggler</span>",
      "<title>0 ns - 2.00 s: host outside CUDA 2.00 s (100.0%)</title>",
      "id=\"timeline-pid-11-gpu-1\"",
      "Timelines left out for 1 of 4 (process, GPU) rows"};
  size_t at = 0;
  for (const std::string& part : order) {
    const size_t found = html.find(part, at);
    ASSERT_NE(found, std::string::npos) << part;
    at = found;
  }
  EXPECT_EQ(Count(html, "id=\"timeline-pid-"), 3u);
}

}  // namespace
}  // namespace brrr
