// Room for a shared-memory segment that can never fault: the segment file is sized to a geometry
// that fits a share of its filesystem's free space, and every page is reserved up front
// (posix_fallocate). A tmpfs file grown with ftruncate alone is sparse: touching a page past the
// tmpfs limit (Docker's 64 MiB /dev/shm) raises SIGBUS in whoever touches it — the app.
// Used by the shim (the segments it creates) and by `brrr run` (the one it creates for CMD).
//
// Must never: allocate, leave the file larger than the geometry it reports, or take more than
// kFreeSpaceShare of the free space (NCCL and the app use /dev/shm too).
#ifndef BRRR_SHIM_SEGMENT_RESERVE_H_
#define BRRR_SHIM_SEGMENT_RESERVE_H_

#include <cstddef>
#include <cstdint>

#include "shim/segment_layout.h"

namespace brrr::ring {

// At most a quarter of the filesystem's free space goes to one segment.
inline constexpr uint64_t kFreeSpaceShare = 4;

// What a shrunk segment keeps at least: below this, recording is not worth it.
inline constexpr uint32_t kFloorRingCapacity = 1024;
inline constexpr uint32_t kFloorDeviceCapacity = 4096;
inline constexpr uint32_t kFloorStackSlots = 512;
inline constexpr uint32_t kFloorCodeSlots = 64;
inline constexpr uint32_t kFloorMaxThreads = 8;

// The geometry closest to `want` whose segment takes at most `budget` bytes: thread rings shrink
// first (every thread keeps a ring), then the device ring, the Python code and stack tables, and
// last the number of threads, each halving down to its floor. False when even that does not fit.
constexpr bool FitGeometry(SegmentGeometry want, uint64_t budget, SegmentGeometry* out) {
  if (!IsValidGeometry(want)) return false;
  SegmentGeometry g = want;
  while (ComputeLayout(g).segment_size > budget) {
    if (g.ring_capacity > kFloorRingCapacity) {
      g.ring_capacity /= 2;
    } else if (g.device_capacity > kFloorDeviceCapacity) {
      g.device_capacity /= 2;
    } else if (g.code_slots > kFloorCodeSlots) {
      g.code_slots /= 2;
    } else if (g.stack_slots > kFloorStackSlots) {
      g.stack_slots /= 2;
    } else if (g.max_threads > kFloorMaxThreads) {
      g.max_threads /= 2;
    } else {
      return false;
    }
  }
  *out = g;
  return true;
}

struct SegmentReservation {
  bool ok = false;
  SegmentGeometry geometry;  // what was reserved: the wanted one, or a smaller one that fit
  uint64_t bytes = 0;        // the segment's size
  uint64_t wanted_bytes = 0; // the wanted geometry's size
  uint64_t free_bytes = 0;   // the filesystem's free space before (0: unknown)
  int error = 0;             // errno of the failure when !ok (ENOSPC: no geometry fits)
};

// Sizes the new, empty shared-memory file `fd` for `want` or the largest smaller geometry within
// 1/kFreeSpaceShare of the free space, and reserves every page. On failure the file is left empty.
SegmentReservation ReserveSegment(int fd, const SegmentGeometry& want);

// One line for the user when the reservation failed or shrank ("" when it got what it wanted):
// how much was free, what was kept or why nothing was, and how to get the full size.
// Written into `buf` (always terminated); returns buf.
const char* DescribeReservation(const SegmentReservation& r, char* buf, size_t size);

}  // namespace brrr::ring

#endif  // BRRR_SHIM_SEGMENT_RESERVE_H_
