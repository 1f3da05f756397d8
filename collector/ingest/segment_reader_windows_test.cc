// Tests of the reader's decoding of sampled device tracing (ring::DeviceKind::kTracingWindow and
// SegmentHeader.device_*): a window's opening (end 0) and close reach the sink in order; a close
// before its opening is dropped and counted, never passed on; the header's share (0 or past 1000
// permille: no sampling), window length and totals reach the run info.
#include <gtest/gtest.h>

#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/recording_sink.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using testing::RecordingSink;
using testing::TestSegment;

ring::DeviceRecord Window(uint64_t start, uint64_t end) {
  ring::DeviceRecord r{};
  r.kind = static_cast<uint8_t>(ring::DeviceKind::kTracingWindow);
  r.start = start;
  r.end = end;
  return r;
}

TEST(SegmentReaderWindowsTest, OpeningAndCloseInOrderAndDamagedOnesCounted) {
  TestSegment seg;
  seg.header().device_window_ms = 50;
  ASSERT_TRUE(seg.AppendDevice(Window(1'000, 0)));
  ASSERT_TRUE(seg.AppendDevice(Window(1'000, 51'000)));
  ASSERT_TRUE(seg.AppendDevice(Window(90'000, 80'000)));  // closes before it opened
  ASSERT_TRUE(seg.AppendDevice(Window(0, 0)));            // no start
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  RecordingSink sink;
  (*reader)->Drain(sink);
  ASSERT_EQ(sink.windows.size(), 2u);
  EXPECT_EQ(sink.order, "WW");
  EXPECT_EQ(sink.windows[0].start_ns, 1'000);
  EXPECT_EQ(sink.windows[0].end_ns, 0);
  EXPECT_EQ(sink.windows[1].end_ns, 51'000);
  EXPECT_EQ(sink.windows[0].window_ms, 50u);  // the header's length comes with each window
  EXPECT_EQ(sink.windows[1].window_ms, 50u);
  EXPECT_EQ((*reader)->stats().bad_timestamps, 2u);
}

// A close record's `queued` is when CUPTI was to be detached after the window: passed on when it
// is after the close and within 10 s of it, else unknown (0); an opening's is ignored.
TEST(SegmentReaderWindowsTest, TheDetachAfterAWindowComesWithItsClose) {
  TestSegment seg;
  const auto window = [](uint64_t start, uint64_t end, uint64_t detach_at) {
    ring::DeviceRecord r = Window(start, end);
    r.queued = detach_at;
    return r;
  };
  ASSERT_TRUE(seg.AppendDevice(window(1'000, 0, 9'000)));                 // an opening: ignored
  ASSERT_TRUE(seg.AppendDevice(window(1'000, 51'000, 2'051'000)));        // 2 ms after the close
  ASSERT_TRUE(seg.AppendDevice(window(60'000, 70'000, 65'000)));          // before the close
  ASSERT_TRUE(seg.AppendDevice(window(80'000, 90'000, 20'000'090'000)));  // 20 s after
  ASSERT_TRUE(seg.AppendDevice(window(95'000, 99'000, 0)));               // no detach asked
  ASSERT_TRUE(seg.AppendDevice(window(100'000, 110'000, ring::kWindowKeptAttached)));  // kept
  ASSERT_TRUE(seg.AppendDevice(window(120'000, 0, ring::kWindowKeptAttached)));        // an opening
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  RecordingSink sink;
  (*reader)->Drain(sink);
  ASSERT_EQ(sink.windows.size(), 7u);
  EXPECT_EQ(sink.windows[0].detach_at_ns, 0);
  EXPECT_EQ(sink.windows[1].detach_at_ns, 2'051'000);
  EXPECT_EQ(sink.windows[2].detach_at_ns, 0);
  EXPECT_EQ(sink.windows[3].detach_at_ns, 0);
  EXPECT_EQ(sink.windows[4].detach_at_ns, 0);
  EXPECT_EQ(sink.windows[5].detach_at_ns, 0);
  for (size_t i = 0; i < sink.windows.size(); ++i) {
    EXPECT_EQ(sink.windows[i].kept_attached, i == 5) << i;
  }
  EXPECT_EQ((*reader)->stats().bad_timestamps, 0u);
}

TEST(SegmentReaderWindowsTest, HeaderFactsReachTheRunInfo) {
  TestSegment seg;
  seg.header().device_sample_permille.store(100);
  seg.header().device_budget_permille = 20;
  seg.header().device_windows.store(7);
  seg.header().device_traced_ns.store(350'000'000);
  seg.header().device_window_open_ns.store(123);
  seg.header().device_sampling_start_ns = 77;
  seg.header().device_window_ms = 50;
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  RunInfo info = (*reader)->ReadRunInfo();
  EXPECT_EQ(info.device_sample_permille, 100u);
  EXPECT_EQ(info.device_budget_permille, 20u);
  EXPECT_EQ(info.device_windows, 7u);
  EXPECT_EQ(info.device_traced_ns, 350'000'000u);
  EXPECT_EQ(info.device_window_open_ns, 123u);
  EXPECT_EQ(info.device_sampling_start_ns, 77u);
  EXPECT_EQ(info.device_window_ms, 50u);
  for (uint32_t damaged : {0u, 1001u, 0xFFFFFFFFu}) {  // zero-filled or garbage: no sampling
    seg.header().device_sample_permille.store(damaged);
    EXPECT_EQ((*reader)->ReadRunInfo().device_sample_permille, 1000u) << damaged;
  }
  // A window length past what the shim takes (10 s) is not one: unknown, no span after windows.
  seg.header().device_window_ms = 10'001;
  EXPECT_EQ((*reader)->ReadRunInfo().device_window_ms, 0u);
}

}  // namespace
}  // namespace brrr::ingest
