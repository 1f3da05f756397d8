// Reserving a segment's pages. See segment_reserve.h.
//
// Must never: allocate, or return ok for a file whose pages are not all reserved.
#include "shim/segment_reserve.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shim/text_append.h"

namespace brrr::ring {
namespace {

using text::Append;
using text::AppendU64;

// Whole MiB, rounded up (a 200 KiB segment is "1 MiB", never "0 MiB").
void AppendMiB(char* buf, size_t size, size_t* at, uint64_t bytes) {
  AppendU64(buf, size, at, (bytes + (1u << 20) - 1) >> 20);
  Append(buf, size, at, " MiB");
}

}  // namespace

SegmentReservation ReserveSegment(int fd, const SegmentGeometry& want) {
  SegmentReservation r;
  r.wanted_bytes = ComputeLayout(want).segment_size;
  struct statvfs fs {};
  uint64_t budget = r.wanted_bytes;
  // A tmpfs without a size limit (memfd's, or mounted with size=0) reports no blocks at all.
  if (fstatvfs(fd, &fs) == 0 && fs.f_blocks != 0) {
    r.free_bytes = uint64_t{fs.f_bavail} * fs.f_frsize;
    budget = r.free_bytes / kFreeSpaceShare;
  }
  // Another process may take space between the look and the reservation: halve and retry.
  for (int attempt = 0; attempt < 4; ++attempt, budget /= 2) {
    SegmentGeometry g;
    if (!FitGeometry(want, budget, &g)) {
      r.error = ENOSPC;
      return r;
    }
    const uint64_t bytes = ComputeLayout(g).segment_size;
    const int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    if (rc == 0) {
      r.ok = true;
      r.geometry = g;
      r.bytes = bytes;
      return r;
    }
    r.error = rc;
    if (ftruncate(fd, 0) != 0 || rc != ENOSPC) return r;  // give the pages back; only ENOSPC retries
  }
  return r;
}

const char* DescribeReservation(const SegmentReservation& r, char* buf, size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  if (r.ok && r.bytes >= r.wanted_bytes) return buf;
  if (r.free_bytes != 0) {
    Append(buf, size, &at, "/dev/shm has ");
    AppendMiB(buf, size, &at, r.free_bytes);
    Append(buf, size, &at, " free");
  } else {
    Append(buf, size, &at, "the shared-memory filesystem");
  }
  if (r.ok) {
    Append(buf, size, &at, ": recording into a smaller segment (");
    AppendU64(buf, size, &at, r.geometry.ring_capacity);
    Append(buf, size, &at, " records x ");
    AppendU64(buf, size, &at, r.geometry.max_threads);
    Append(buf, size, &at, " threads, ");
    AppendMiB(buf, size, &at, r.bytes);
    Append(buf, size, &at, " of the ");
  } else {
    Append(buf, size, &at, r.error == ENOSPC ? ": too little for even the smallest segment"
                                             : ": cannot reserve the segment (");
    if (r.error != ENOSPC) {
      Append(buf, size, &at, strerror(r.error));
      Append(buf, size, &at, ")");
    }
    Append(buf, size, &at, "; not profiled (the full size is ");
  }
  AppendMiB(buf, size, &at, r.wanted_bytes);
  Append(buf, size, &at, r.ok ? " wanted)" : ")");
  Append(buf, size, &at,
         "; give /dev/shm more room (docker run --shm-size=1g) for the full size, or ask for "
         "less (BRRR_RING_RECORDS, BRRR_MAX_THREADS)");
  return buf;
}

}  // namespace brrr::ring
