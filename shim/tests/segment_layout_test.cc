// Tests of the shared layout function and header validation (shim/segment_layout.h): regions do
// not overlap and stay inside the segment, geometry limits, and every kind of corrupted header is
// rejected.
#include "shim/segment_layout.h"

#include <gtest/gtest.h>

#include "shim/tests/test_segment.h"

namespace brrr::ring {
namespace {

TEST(SegmentLayoutTest, RegionsAreOrderedAlignedAndInside) {
  for (uint32_t threads : {1u, 3u, 64u}) {
    for (uint32_t cap : {8u, 64u, 16384u}) {
      SegmentGeometry g{threads, cap, 64, 32, 16};
      ASSERT_TRUE(IsValidGeometry(g));
      const SegmentLayout l = ComputeLayout(g);
      EXPECT_EQ(l.threads_offset, kSegmentHeaderSize);
      EXPECT_GE(l.thread_ring_stride, sizeof(RingHeader) + uint64_t{cap} * sizeof(HostRecord));
      EXPECT_EQ(l.thread_ring_stride % kCacheLine, 0u);
      EXPECT_GE(l.device_offset, l.threads_offset + threads * l.thread_ring_stride);
      EXPECT_GE(l.stacks_offset, l.device_offset + sizeof(RingHeader) + 64 * sizeof(DeviceRecord));
      EXPECT_GE(l.names_offset, l.stacks_offset + 32 * sizeof(StackSlot));
      EXPECT_GE(l.segment_size, l.names_offset + 16 * sizeof(NameSlot));
      EXPECT_EQ(l.segment_size % 4096, 0u);
      EXPECT_EQ(l.device_offset % kCacheLine, 0u);
      EXPECT_EQ(l.stacks_offset % kCacheLine, 0u);
      EXPECT_EQ(l.names_offset % kCacheLine, 0u);
    }
  }
}

TEST(SegmentLayoutTest, GeometryLimits) {
  EXPECT_TRUE(IsValidGeometry(SegmentGeometry{}));
  EXPECT_FALSE(IsValidGeometry(SegmentGeometry{0, 64, 64, 64, 64}));
  EXPECT_FALSE(IsValidGeometry(SegmentGeometry{1, 100, 64, 64, 64}));  // not a power of two
  EXPECT_FALSE(IsValidGeometry(SegmentGeometry{1, 4, 64, 64, 64}));    // below the minimum
  EXPECT_FALSE(IsValidGeometry(SegmentGeometry{1, 64, 64, 0, 64}));
  EXPECT_FALSE(IsValidGeometry(SegmentGeometry{4096, 1u << 22, 64, 64, 64}));  // > 8 GiB
}

TEST(SegmentLayoutTest, ValidateAcceptsFreshAndRejectsCorruption) {
  const SegmentGeometry g{2, 64, 64, 64, 64};
  brrr::shim::testing::HeapSegment seg(g);
  ASSERT_TRUE(seg.ok());
  SegmentHeader& h = *seg.header();
  const uint64_t size = ComputeLayout(g).segment_size;
  SegmentGeometry out_g;
  SegmentLayout out_l;
  EXPECT_EQ(ValidateHeader(h, size, &out_g, &out_l), HeaderCheck::kOk);
  EXPECT_EQ(out_g.ring_capacity, 64u);
  EXPECT_EQ(out_l.names_offset, h.names_offset);
  EXPECT_EQ(ValidateHeader(h, 100, nullptr, nullptr), HeaderCheck::kTooSmall);
  EXPECT_EQ(ValidateHeader(h, size - 4096, nullptr, nullptr), HeaderCheck::kMappingTooSmall);

  auto expect_rejected = [&](auto mutate, HeaderCheck why) {
    SegmentHeader saved;
    std::memcpy(static_cast<void*>(&saved), &h, sizeof(h));
    mutate(h);
    EXPECT_EQ(ValidateHeader(h, size, nullptr, nullptr), why);
    std::memcpy(static_cast<void*>(&h), &saved, sizeof(h));
  };
  expect_rejected([](SegmentHeader& x) { x.magic ^= 1; }, HeaderCheck::kBadMagic);
  expect_rejected([](SegmentHeader& x) { x.version = 99; }, HeaderCheck::kBadVersion);
  expect_rejected([](SegmentHeader& x) { x.record_size = 32; }, HeaderCheck::kBadRecordSizes);
  expect_rejected([](SegmentHeader& x) { x.ring_capacity = 65; }, HeaderCheck::kBadGeometry);
  expect_rejected([](SegmentHeader& x) { x.max_threads = 100000; }, HeaderCheck::kBadGeometry);
  expect_rejected([](SegmentHeader& x) { x.stacks_offset += 64; }, HeaderCheck::kBadOffsets);
  expect_rejected([](SegmentHeader& x) { x.segment_size *= 2; }, HeaderCheck::kBadOffsets);
  EXPECT_EQ(ValidateHeader(h, size, nullptr, nullptr), HeaderCheck::kOk);
}

}  // namespace
}  // namespace brrr::ring
