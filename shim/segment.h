// The shared-memory segment as the shim sees it: a mapped region plus its validated layout. Made
// either by the shim (plain LD_PRELOAD: shm_open O_EXCL, 0600) or by `brrr run` (BRRR_SHM: the shim
// maps it, validates it with ring::ValidateHeader and claims it for this process).
//
// Must never: be called on the hot path (these are syscalls), trust a segment it did not create
// before ValidateHeader accepted it, or leave a half-created segment behind on failure.
#ifndef BRRR_SHIM_SEGMENT_H_
#define BRRR_SHIM_SEGMENT_H_

#include <cstddef>
#include <cstdint>

#include "shim/ring_format.h"
#include "shim/segment_layout.h"

namespace brrr::shim {

struct SegmentView {
  void* base = nullptr;
  uint64_t mapped_bytes = 0;
  ring::SegmentHeader* header = nullptr;
  ring::SegmentGeometry geometry;  // validated copies: never re-read from the header
  ring::SegmentLayout layout;
};

// Lays out a fresh segment in zero-filled memory the caller owns (at least
// ComputeLayout(g).segment_size bytes, 64-byte aligned). Used for shm and for tests.
bool InitSegmentMemory(void* base, uint64_t bytes, const ring::SegmentGeometry& g,
                       SegmentView* out);

// Views memory holding an existing segment; false (and *why) when the header is rejected.
bool ViewSegmentMemory(void* base, uint64_t bytes, SegmentView* out, ring::HeaderCheck* why);

// Creates "/brrr-<pid>-<random>" (name written to `name`, NUL terminated), sized and laid out for
// `g`, and maps it. On failure warns, removes anything half-made, returns false.
bool CreateSharedSegment(const ring::SegmentGeometry& g, char* name, size_t name_cap,
                         SegmentView* out);

// Maps the segment `name` made by the collector and validates it. Warns and returns false on any
// problem.
bool OpenSharedSegment(const char* name, SegmentView* out);

// Claims an opened segment for this process (CAS of header.pid from 0): false when another
// process already records into it.
bool ClaimSegmentForProcess(ring::SegmentHeader* header, uint32_t pid, uint32_t* owner);

// Writes pid-independent process facts: command line (/proc/self/cmdline), clock kind and the
// calibration pair, start time (`start_mono_ns`: the process's start, process_start.h; now when
// 0 or later than now). Leaves flags and the atomics to the caller.
void FillProcessInfo(ring::SegmentHeader* header, uint64_t start_mono_ns);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_SEGMENT_H_
