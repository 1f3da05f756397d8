// The header's capture-range facts in RunInfo: mode, name, counters, and a damaged name length
// that must not read past the header's name array.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using testing::TestSegment;

TEST(SegmentReaderCaptureTest, RunInfoCarriesTheCaptureFacts) {
  TestSegment seg;
  ring::SegmentHeader& h = seg.header();
  h.capture_mode = static_cast<uint32_t>(ring::CaptureMode::kNvtx);
  std::memcpy(h.capture_name, "train_step", 10);
  h.capture_name_length = 10;
  h.capture_ranges.store(4);
  h.capture_ns.store(123'456'789);
  h.capture_dropped.store(77);
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  const RunInfo info = (*reader)->ReadRunInfo();
  EXPECT_EQ(info.capture_mode, 2u);
  EXPECT_EQ(info.capture_name, "train_step");
  EXPECT_EQ(info.capture_ranges, 4u);
  EXPECT_EQ(info.capture_ns, 123'456'789u);
  EXPECT_EQ(info.capture_dropped, 77u);
}

TEST(SegmentReaderCaptureTest, DamagedNameLengthStaysInsideTheHeader) {
  TestSegment seg;
  ring::SegmentHeader& h = seg.header();
  h.capture_mode = 9999;  // no such mode: carried as a number, the report says "unknown"
  std::memset(h.capture_name, 'x', sizeof(h.capture_name));
  h.capture_name_length = 0xFFFFFFFFu;
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_TRUE(reader.ok()) << reader.status();
  const RunInfo info = (*reader)->ReadRunInfo();
  EXPECT_EQ(info.capture_mode, 9999u);
  EXPECT_EQ(info.capture_name, std::string(sizeof(h.capture_name), 'x'));
}

}  // namespace
}  // namespace brrr::ingest
