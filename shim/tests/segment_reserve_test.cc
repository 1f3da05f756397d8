// Tests of segment sizing against free space: the fit (what shrinks first, the floors, the
// budget respected), a real reservation on a memfd (every page allocated, the file exactly the
// reported size), and the message the user gets.
#include "shim/segment_reserve.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace brrr::ring {
namespace {

using ::testing::HasSubstr;

uint64_t Size(const SegmentGeometry& g) { return ComputeLayout(g).segment_size; }

TEST(FitGeometryTest, AWantedGeometryThatFitsIsKept) {
  const SegmentGeometry want;
  SegmentGeometry got;
  ASSERT_TRUE(FitGeometry(want, Size(want), &got));
  EXPECT_EQ(got.ring_capacity, want.ring_capacity);
  EXPECT_EQ(got.max_threads, want.max_threads);
  EXPECT_EQ(got.device_capacity, want.device_capacity);
}

TEST(FitGeometryTest, RingsShrinkBeforeThreadsAndTheBudgetHolds) {
  const SegmentGeometry want;  // 64 threads x 16384 records: 75 MiB
  ASSERT_EQ(want.max_threads, 64u);
  SegmentGeometry got;
  // Docker's 64 MiB /dev/shm, a quarter of it: every thread keeps a ring of 1024 records.
  const uint64_t budget = (64u << 20) / kFreeSpaceShare;
  ASSERT_TRUE(FitGeometry(want, budget, &got));
  EXPECT_LE(Size(got), budget);
  EXPECT_EQ(got.max_threads, 64u);
  EXPECT_EQ(got.ring_capacity, kFloorRingCapacity);
  // One step larger would not have fitted: the fit is the largest of its kind.
  SegmentGeometry larger = got;
  larger.ring_capacity *= 2;
  EXPECT_GT(Size(larger), budget);
}

TEST(FitGeometryTest, ThreadsGoLastAndTheFloorIsAFloor) {
  const SegmentGeometry want;
  SegmentGeometry floor = want;
  floor.ring_capacity = kFloorRingCapacity;
  floor.device_capacity = kFloorDeviceCapacity;
  floor.code_slots = kFloorCodeSlots;
  floor.stack_slots = kFloorStackSlots;
  floor.max_threads = kFloorMaxThreads;
  SegmentGeometry got;
  ASSERT_TRUE(FitGeometry(want, Size(floor), &got));
  EXPECT_EQ(got.max_threads, kFloorMaxThreads);
  EXPECT_EQ(got.ring_capacity, kFloorRingCapacity);
  EXPECT_FALSE(FitGeometry(want, Size(floor) - 1, &got));
  EXPECT_FALSE(FitGeometry(want, 0, &got));
}

TEST(FitGeometryTest, ASmallWantedGeometryIsNeverGrown) {
  SegmentGeometry want;
  want.max_threads = 2;
  want.ring_capacity = 64;
  SegmentGeometry got;
  ASSERT_TRUE(FitGeometry(want, uint64_t{1} << 40, &got));
  EXPECT_EQ(got.max_threads, 2u);
  EXPECT_EQ(got.ring_capacity, 64u);
}

TEST(ReserveSegmentTest, ReservesEveryPageOfTheReportedSize) {
  const int fd = memfd_create("brrr-reserve-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  SegmentGeometry want;
  want.max_threads = 4;
  want.ring_capacity = 1024;
  const SegmentReservation r = ReserveSegment(fd, want);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.bytes, Size(want));
  EXPECT_EQ(r.wanted_bytes, Size(want));
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), r.bytes);
  // Allocated, not sparse: st_blocks (512-byte units) cover the whole file.
  EXPECT_GE(static_cast<uint64_t>(st.st_blocks) * 512, r.bytes);
  char buf[512];
  EXPECT_STREQ(DescribeReservation(r, buf, sizeof(buf)), "");  // nothing to say
  close(fd);
}

TEST(DescribeReservationTest, SaysWhatWasKeptOrWhyNothingWasAndHowToFixIt) {
  SegmentReservation shrunk;
  shrunk.ok = true;
  shrunk.geometry.ring_capacity = 1024;
  shrunk.geometry.max_threads = 64;
  shrunk.bytes = 15u << 20;
  shrunk.wanted_bytes = 75u << 20;
  shrunk.free_bytes = 64u << 20;
  char buf[512];
  EXPECT_EQ(std::string(DescribeReservation(shrunk, buf, sizeof(buf))),
            "/dev/shm has 64 MiB free: recording into a smaller segment (1024 records x 64 "
            "threads, 15 MiB of the 75 MiB wanted); give /dev/shm more room (docker run "
            "--shm-size=1g) for the full size, or ask for less (BRRR_RING_RECORDS, "
            "BRRR_MAX_THREADS)");
  SegmentReservation none;
  none.error = ENOSPC;
  none.wanted_bytes = 75u << 20;
  none.free_bytes = 1u << 20;
  EXPECT_THAT(DescribeReservation(none, buf, sizeof(buf)),
              HasSubstr("/dev/shm has 1 MiB free: too little for even the smallest segment; not "
                        "profiled (the full size is 75 MiB)"));
  SegmentReservation failed;
  failed.error = EROFS;
  failed.wanted_bytes = 75u << 20;
  EXPECT_THAT(DescribeReservation(failed, buf, sizeof(buf)),
              HasSubstr("cannot reserve the segment (Read-only file system); not profiled"));
}

}  // namespace
}  // namespace brrr::ring
