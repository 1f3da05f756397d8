// See capture_summary.h.
#include "collector/analysis/capture_summary.h"

#include <cstdint>
#include <limits>

#include "shim/ring_format.h"

namespace brrr {

Capture SummarizeCapture(const RunInfo& info) {
  Capture c;
  switch (static_cast<ring::CaptureMode>(info.capture_mode)) {
    case ring::CaptureMode::kAll:
      c.mode = "all";
      break;
    case ring::CaptureMode::kProfilerApi:
      c.mode = "cudaProfilerApi";
      break;
    case ring::CaptureMode::kNvtx:
      c.mode = "nvtx";
      c.nvtx_name = info.capture_name;
      break;
    default:
      c.mode = "unknown";
      break;
  }
  c.ranges = info.capture_ranges;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  c.captured_ns = static_cast<int64_t>(info.capture_ns < kMax ? info.capture_ns : kMax);
  c.records_dropped = info.capture_dropped;
  return c;
}

}  // namespace brrr
