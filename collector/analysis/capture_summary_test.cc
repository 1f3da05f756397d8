// Tests for the report's capture summary: each header mode, the NVTX name only in nvtx mode, an
// unknown mode said as such, the counters carried over.
#include "collector/analysis/capture_summary.h"

#include <gtest/gtest.h>

namespace brrr {
namespace {

TEST(CaptureSummaryTest, ModesNamesAndCounters) {
  RunInfo info;
  EXPECT_EQ(SummarizeCapture(info).mode, "all");
  info.capture_mode = 1;
  info.capture_name = "ignored";
  info.capture_ranges = 3;
  info.capture_ns = 12'000'000;
  info.capture_dropped = 40;
  Capture c = SummarizeCapture(info);
  EXPECT_EQ(c.mode, "cudaProfilerApi");
  EXPECT_EQ(c.nvtx_name, "");
  EXPECT_EQ(c.ranges, 3u);
  EXPECT_EQ(c.captured_ns, 12'000'000);
  EXPECT_EQ(c.records_dropped, 40u);
  info.capture_mode = 2;
  info.capture_name = "step";
  c = SummarizeCapture(info);
  EXPECT_EQ(c.mode, "nvtx");
  EXPECT_EQ(c.nvtx_name, "step");
  info.capture_mode = 77;
  EXPECT_EQ(SummarizeCapture(info).mode, "unknown");
  info.capture_ns = ~uint64_t{0};
  EXPECT_GT(SummarizeCapture(info).captured_ns, 0) << "saturates instead of going negative";
}

}  // namespace
}  // namespace brrr
