// Tests that a live snapshot (`brrr ctl PID snapshot`, --snapshot-every) carries its timeline's
// start on the wall clock as the final report does (SetTimelineOrigin), so that `brrr merge` of
// snapshots of running processes gives each process a row on the job's clock instead of a note.
// The segments are built in plain memory (test_segment.h) with records timed at CLOCK_MONOTONIC
// now, so the origin must land within a few seconds of CLOCK_REALTIME now.
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "collector/analysis/analysis.h"
#include "collector/cli/command_line.h"
#include "collector/cli/live_snapshot.h"
#include "collector/cli/subcommands.h"
#include "collector/ingest/clock_pair.h"
#include "collector/symbolize/process_maps.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"
#include "gtest/gtest.h"
#include "viewer/format/brrr_file.h"
#include "viewer/format/timeline_sums_for_test.h"

namespace brrr::cli {
namespace {

using ingest::testing::MakeHostRecord;
using ingest::testing::TestSegment;

constexpr int64_t kSecond = 1'000'000'000;

int64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kSecond + ts.tv_nsec;
}

std::string TempDir() {
  std::string pattern = ::testing::TempDir() + "brrr-snapshot-origin-XXXXXX";
  const char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

// One running process: a launch and its 1 ms kernel on device 0, timed from CLOCK_MONOTONIC now;
// `brrr ctl snapshot` asked once; the snapshot written to `path` with `identity`. Returns the
// CLOCK_REALTIME time just before the snapshot was asked for.
int64_t WriteSnapshot(const std::string& path, const ProcessIdentity& identity) {
  TestSegment seg;
  const int64_t t0 = ingest::MonotonicNowNs() - 5'000'000;  // the run began 5 ms ago
  seg.header().start_mono_ns = static_cast<uint64_t>(t0);   // the shim's start, as it writes it
  seg.ActivateThread(0, identity.pid, 0x10);
  ring::HostRecord launch =
      MakeHostRecord(ring::Api::kCudaLaunchKernel, t0 + 100'000, t0 + 110'000);
  launch.correlation_id = 1;
  EXPECT_TRUE(seg.AppendHost(0, launch));
  ring::DeviceRecord k{};
  k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  k.start = t0 + 200'000;
  k.end = t0 + 1'200'000;
  k.correlation_id = 1;
  k.device_id = 0;
  k.name_id = seg.AddName("_Z6kernelv");
  EXPECT_TRUE(seg.AppendDevice(k));
  auto reader = ingest::SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return 0;
  RunInfo known;
  known.pid = identity.pid;
  known.start_ns = t0;
  Analysis analysis;
  analysis.SetRunInfo(known);
  (*reader)->Drain(analysis);
  symbolize::ProcessMaps maps;
  LiveSnapshots snapshots(std::chrono::milliseconds(0), path, &identity);  // only when asked
  const int64_t asked_at = RealtimeNs();
  seg.header().snapshot_requests.fetch_add(1);  // what `brrr ctl PID snapshot` does
  snapshots.MaybeWrite(**reader, analysis, maps, known);
  EXPECT_EQ(snapshots.written(), 1u);
  return asked_at;
}

TEST(SnapshotOriginTest, SnapshotTimelineIsOnTheWallClock) {
  const std::string dir = TempDir();
  const std::string path = dir + "/1001.brrr";
  const int64_t asked_at = WriteSnapshot(path, {.pid = 1001, .host = "h", .rank = 0});
  auto report = ReadBrrrFile(path);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->end, "running") << "a snapshot, not a final report";
  ASSERT_TRUE(report->timeline.has_value());
  // Bucket 0 starts at the run's start, 5 ms before the snapshot (monotonic), so on the wall
  // clock about 5 ms before asked_at; a few seconds either way allows for a slow machine.
  EXPECT_GT(report->timeline->origin_unix_ns, 0);
  EXPECT_GT(report->timeline->origin_unix_ns, asked_at - 3 * kSecond);
  EXPECT_LT(report->timeline->origin_unix_ns, asked_at + 3 * kSecond);
  std::filesystem::remove_all(dir);
}

TEST(SnapshotOriginTest, MergingTwoSnapshotsGivesEachProcessATimeline) {
  const std::string dir = TempDir();
  const std::string a = dir + "/1001.brrr", b = dir + "/1002.brrr", job = dir + "/job.brrr";
  WriteSnapshot(a, {.pid = 1001, .host = "h", .rank = 0});
  WriteSnapshot(b, {.pid = 1002, .host = "h", .rank = 1});
  auto ra = ReadBrrrFile(a), rb = ReadBrrrFile(b);
  ASSERT_TRUE(ra.ok() && rb.ok());
  ASSERT_TRUE(ra->timeline.has_value() && rb->timeline.has_value());
  MergeOptions options;
  options.files = {a, b};
  options.output = job;
  options.quiet = true;
  ASSERT_EQ(MergeSubcommand(options), 0);
  auto merged = ReadBrrrFile(job);
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_TRUE(merged->job.has_value());
  EXPECT_EQ(merged->job->timeline_rows_left_out, 0u) << merged->job->timeline_note;
  ASSERT_EQ(merged->processes.size(), 2u);
  // The job's clock starts at the earlier process's start (job_timeline.h).
  const int64_t earliest = std::min(ra->timeline->origin_unix_ns, rb->timeline->origin_unix_ns);
  for (const ProcessRow& row : merged->processes) {
    ASSERT_TRUE(row.timeline.has_value()) << "process " << row.pid;
    EXPECT_EQ(row.timeline->origin_unix_ns, earliest);
    ASSERT_EQ(row.timeline->devices.size(), row.devices.size());
    for (size_t d = 0; d < row.devices.size(); ++d) {
      EXPECT_EQ(DescribeParts(SumOfBuckets(row.timeline->devices[d])),
                DescribeParts(PartsOf(row.devices[d])));
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace brrr::cli
