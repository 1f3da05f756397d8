// Which CUPTI records belong inside the capture ranges. The ranges are marked in CUPTI's own
// stream by the API records of cudaProfilerStart/cudaProfilerStop (runtime) and
// cuProfilerStart/cuProfilerStop (driver): the shim's hooks pass the app's calls on in
// cudaProfilerApi mode and make those calls themselves at NVTX range boundaries in nvtx mode.
// Correlation ids grow with call order, so a record is inside when the last marker before its
// correlation id is a start: kernels, copies, memsets and syncs go with the call that issued them,
// even when they complete after the range ended. The markers themselves are never kept.
//
// Not thread-safe (the shim calls it under its device-ring lock). Bounded: at most kMaxMarkers
// markers are kept; older ones fold into the state before the first. Must never allocate.
#ifndef BRRR_SHIM_CAPTURE_FILTER_H_
#define BRRR_SHIM_CAPTURE_FILTER_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::shim {

class CaptureFilter {
 public:
  static constexpr uint32_t kMaxMarkers = 1024;

  // True when `r` is to be written to the ring. A marker record updates the ranges and is not.
  bool Keep(const ring::DeviceRecord& r);

  // Whether a record is a capture marker, and which kind.
  static bool IsStartMarker(const ring::DeviceRecord& r);
  static bool IsStopMarker(const ring::DeviceRecord& r);

 private:
  void AddMarker(uint32_t correlation_id, bool start);
  bool InsideAt(uint32_t correlation_id) const;

  struct Marker {
    uint32_t correlation_id;
    bool start;
  };
  Marker markers_[kMaxMarkers] = {};  // sorted by correlation id
  uint32_t count_ = 0;
  bool open_before_first_ = false;  // state before markers_[0] (after older markers folded)
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_CAPTURE_FILTER_H_
