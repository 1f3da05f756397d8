// See capture_filter.h. Markers stay sorted by correlation id (insertion from the back: they
// arrive nearly in order); lookups are a binary search.
#include "shim/capture_filter.h"

namespace brrr::shim {
namespace {

// CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 / Stop_v4000 and
// CUPTI_DRIVER_TRACE_CBID_cuProfilerStart / Stop (cupti_*_cbid.h; stable numbers).
constexpr uint32_t kRuntimeStart = 171;
constexpr uint32_t kRuntimeStop = 172;
constexpr uint32_t kDriverStart = 308;
constexpr uint32_t kDriverStop = 309;

bool IsApi(const ring::DeviceRecord& r, uint32_t runtime_cbid, uint32_t driver_cbid) {
  if (r.kind == static_cast<uint8_t>(ring::DeviceKind::kRuntimeApi)) return r.cbid == runtime_cbid;
  if (r.kind == static_cast<uint8_t>(ring::DeviceKind::kDriverApi)) return r.cbid == driver_cbid;
  return false;
}

}  // namespace

bool CaptureFilter::IsStartMarker(const ring::DeviceRecord& r) {
  return IsApi(r, kRuntimeStart, kDriverStart);
}

bool CaptureFilter::IsStopMarker(const ring::DeviceRecord& r) {
  return IsApi(r, kRuntimeStop, kDriverStop);
}

bool CaptureFilter::Keep(const ring::DeviceRecord& r) {
  if (IsStartMarker(r)) {
    AddMarker(r.correlation_id, true);
    return false;
  }
  if (IsStopMarker(r)) {
    AddMarker(r.correlation_id, false);
    return false;
  }
  return InsideAt(r.correlation_id);
}

void CaptureFilter::AddMarker(uint32_t correlation_id, bool start) {
  if (count_ == kMaxMarkers) {
    // Fold the older half into the state before the first kept marker.
    const uint32_t half = kMaxMarkers / 2;
    open_before_first_ = markers_[half - 1].start;
    for (uint32_t i = half; i < count_; ++i) markers_[i - half] = markers_[i];
    count_ -= half;
  }
  uint32_t i = count_;
  while (i > 0 && markers_[i - 1].correlation_id > correlation_id) {
    markers_[i] = markers_[i - 1];
    --i;
  }
  markers_[i] = Marker{correlation_id, start};
  ++count_;
}

bool CaptureFilter::InsideAt(uint32_t correlation_id) const {
  // The last marker whose correlation id is below this one.
  uint32_t lo = 0, hi = count_;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (markers_[mid].correlation_id < correlation_id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? open_before_first_ : markers_[lo - 1].start;
}

}  // namespace brrr::shim
