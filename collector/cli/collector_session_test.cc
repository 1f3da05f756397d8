// Tests CollectorSession on a segment built in plain memory (test_segment.h): what it drains
// reaches the analysis (and the trace when one is kept), the report goes to the file it claimed
// at the start and never over an existing report, and a snapshot asked for is written.
#include "collector/cli/collector_session.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collector/ingest/clock_pair.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"
#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"

namespace brrr::cli {
namespace {

using ingest::testing::MakeHostRecord;
using ingest::testing::TestSegment;

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "brrr-collector-session-XXXXXX";
  const char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

// Two launches and their kernels, timed from CLOCK_MONOTONIC now.
void FillTwoLaunches(TestSegment& seg, uint32_t pid) {
  const int64_t t0 = ingest::MonotonicNowNs() - 5'000'000;
  seg.header().start_mono_ns = static_cast<uint64_t>(t0);
  seg.ActivateThread(0, pid, 0x10);
  for (uint32_t i = 0; i < 2; ++i) {
    const int64_t at = t0 + 100'000 + i * 1'000'000;
    ring::HostRecord launch = MakeHostRecord(ring::Api::kCudaLaunchKernel, at, at + 10'000);
    ASSERT_TRUE(seg.AppendHost(0, launch));
    ring::DeviceRecord k{};
    k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
    k.start = static_cast<uint64_t>(at + 50'000);
    k.end = static_cast<uint64_t>(at + 550'000);
    k.correlation_id = i + 1;
    k.name_id = seg.AddName("_Z6kernelv");
    ASSERT_TRUE(seg.AppendDevice(k));
  }
}

struct Collected {
  uint64_t host_calls = 0;
  size_t trace_events = 0;
  bool had_trace = false;
  std::string path;  // the claimed report file ("" = none)
};

// One collection of a two-launch segment into `dir`/report.brrr, as brrr attach makes it.
Collected CollectInto(const std::string& dir, std::optional<uint64_t> trace_cap) {
  Collected out;
  TestSegment seg;
  FillTwoLaunches(seg, 4242);
  auto reader = ingest::SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return out;
  std::vector<std::string> said;
  RunInfo known;
  known.pid = 4242;
  CollectorSession session({reader->get(), 4242, "", trace_cap, known},
                           [&](const std::string& line) { said.push_back(line); });
  ReportOutput output;
  output.output_pattern = dir + "/report.brrr";
  output.quiet = true;
  ProcessIdentity who;
  who.pid = 4242;
  session.ClaimReportFile(&output, who);
  if (output.destination != nullptr) out.path = output.destination->path();
  session.StartSnapshots(std::chrono::milliseconds(0), ReportFile(output, 4242), &who, output);
  session.AfterDrain(known);
  session.FinalDrain();
  out.host_calls = session.analysis().counters().host_calls;
  out.had_trace = session.trace() != nullptr;
  if (out.had_trace) out.trace_events = session.trace()->host_calls.size();
  RunInfo info = known;
  info.exited_normally = true;
  info.end_ns = ingest::MonotonicNowNs();
  EXPECT_TRUE(session.FinishAndReport(info, output, &who).ok());
  return out;
}

TEST(CollectorSessionTest, DrainsIntoTheAnalysisAndTheTraceAndReportsToTheClaimedFile) {
  const std::string dir = TempDir();
  const Collected first = CollectInto(dir, /*trace_cap=*/1000);
  EXPECT_EQ(first.host_calls, 2u);
  ASSERT_TRUE(first.had_trace);
  EXPECT_EQ(first.trace_events, 2u);
  EXPECT_EQ(first.path, dir + "/report.brrr");
  auto report = ReadBrrrFile(first.path);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->kernels.launches, 2u);
  EXPECT_EQ(report->kernels.launch_calls, 2u);

  // A second collection with the same output keeps the first report and writes its own beside it.
  const Collected second = CollectInto(dir, std::nullopt);
  EXPECT_FALSE(second.had_trace);
  EXPECT_EQ(second.path, dir + "/report-1.brrr");
  EXPECT_TRUE(ReadBrrrFile(first.path).ok());
  EXPECT_TRUE(ReadBrrrFile(second.path).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace brrr::cli
