// Tests for the capture-range setting and the CUPTI-record filter: which records lie inside the
// ranges that cudaProfilerStart/Stop API records mark, in correlation-id order, with markers and
// work arriving out of order, and the bound on kept markers.
#include "shim/capture_filter.h"

#include <gtest/gtest.h>

#include "shim/capture_range.h"

namespace brrr::shim {
namespace {

ring::DeviceRecord Api(ring::DeviceKind kind, uint32_t cbid, uint32_t correlation_id) {
  ring::DeviceRecord r{};
  r.kind = static_cast<uint8_t>(kind);
  r.cbid = cbid;
  r.correlation_id = correlation_id;
  return r;
}
ring::DeviceRecord RuntimeCall(uint32_t correlation_id) {
  return Api(ring::DeviceKind::kRuntimeApi, 211 /* cudaLaunchKernel */, correlation_id);
}
ring::DeviceRecord Kernel(uint32_t correlation_id) {
  return Api(ring::DeviceKind::kKernel, 0, correlation_id);
}
// cupti_runtime_cbid.h: cudaProfilerStart_v4000 = 171, cudaProfilerStop_v4000 = 172;
// cupti_driver_cbid.h: cuProfilerStart = 308, cuProfilerStop = 309.
ring::DeviceRecord Start(uint32_t correlation_id) {
  return Api(ring::DeviceKind::kRuntimeApi, 171, correlation_id);
}
ring::DeviceRecord Stop(uint32_t correlation_id) {
  return Api(ring::DeviceKind::kRuntimeApi, 172, correlation_id);
}

TEST(CaptureRangeTest, ParsesBothFormsAndRejectsTheRest) {
  CaptureRange r;
  ASSERT_TRUE(ParseCaptureRange("cudaProfilerApi", &r));
  EXPECT_EQ(r.mode, ring::CaptureMode::kProfilerApi);
  ASSERT_TRUE(ParseCaptureRange("nvtx:train step", &r));
  EXPECT_EQ(r.mode, ring::CaptureMode::kNvtx);
  EXPECT_EQ(std::string(r.nvtx_name, r.nvtx_name_length), "train step");
  for (const char* bad : {"", "nvtx:", "nvtx", "cudaprofilerapi", "cudaProfilerApi ", "NVTX:x"}) {
    EXPECT_FALSE(ParseCaptureRange(bad, &r)) << bad;
  }
  EXPECT_FALSE(ParseCaptureRange(nullptr, &r));
  const std::string longest = "nvtx:" + std::string(ring::kMaxNameLength, 'n');
  EXPECT_TRUE(ParseCaptureRange(longest.c_str(), &r));
  EXPECT_FALSE(ParseCaptureRange((longest + "n").c_str(), &r));
}

TEST(CaptureFilterTest, NothingBeforeTheFirstStartEverythingBetweenNothingAfter) {
  CaptureFilter f;
  EXPECT_FALSE(f.Keep(RuntimeCall(1)));
  EXPECT_FALSE(f.Keep(Kernel(1)));
  EXPECT_FALSE(f.Keep(Start(2))) << "markers are never kept";
  EXPECT_TRUE(f.Keep(RuntimeCall(3)));
  EXPECT_TRUE(f.Keep(RuntimeCall(4)));
  EXPECT_FALSE(f.Keep(Stop(5)));
  EXPECT_FALSE(f.Keep(RuntimeCall(6)));
  EXPECT_TRUE(f.Keep(Kernel(4))) << "work of an inside call completing after the stop";
  EXPECT_TRUE(f.Keep(Kernel(3)));
  EXPECT_FALSE(f.Keep(Kernel(6)));
}

TEST(CaptureFilterTest, SeveralRangesAndDriverMarkers) {
  CaptureFilter f;
  f.Keep(Start(10));
  f.Keep(Stop(20));
  f.Keep(Api(ring::DeviceKind::kDriverApi, 308, 30));
  f.Keep(Api(ring::DeviceKind::kDriverApi, 309, 40));
  EXPECT_TRUE(f.Keep(Kernel(15)));
  EXPECT_FALSE(f.Keep(Kernel(25)));
  EXPECT_TRUE(f.Keep(Kernel(35)));
  EXPECT_FALSE(f.Keep(Kernel(45)));
  EXPECT_FALSE(f.Keep(Kernel(5)));
}

TEST(CaptureFilterTest, WorkDeliveredBeforeItsRangesStopMarkerIsStillDecidedByCorrelation) {
  CaptureFilter f;
  f.Keep(Start(10));
  EXPECT_TRUE(f.Keep(Kernel(12)));  // the stop (13) has not arrived yet
  f.Keep(Stop(13));
  EXPECT_FALSE(f.Keep(Kernel(14)));
  f.Keep(Start(8));  // a late marker from another thread lands in order
  EXPECT_TRUE(f.Keep(Kernel(9)));
}

TEST(CaptureFilterTest, MarkersBeyondTheBoundFoldIntoTheStateBeforeThem) {
  CaptureFilter f;
  uint32_t id = 1;
  for (uint32_t i = 0; i < CaptureFilter::kMaxMarkers * 2; ++i) {
    f.Keep(i % 2 == 0 ? Start(id) : Stop(id));
    id += 10;
  }
  // The last range: Start at id-20, Stop at id-10.
  EXPECT_TRUE(f.Keep(Kernel(id - 15)));
  EXPECT_FALSE(f.Keep(Kernel(id - 5)));
  EXPECT_FALSE(f.Keep(Kernel(id - 25)));
}

}  // namespace
}  // namespace brrr::shim
