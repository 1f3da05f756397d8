// Whether the process has room for what brrr adds to it, checked once at load, before CUPTI, the
// segment and brrr's threads: where a limit leaves too little, the app runs unprofiled, as without
// brrr, and one line says which limit (the app must never fail for brrr's share of a limit).
//
//  - RLIMIT_AS (ulimit -v): brrr maps the segment and loads CUPTI and its buffers, about the
//    segment's size plus kOtherAddressSpaceBytes. It profiles only when that is at most half of
//    the room left under the limit (the limit less the process's VmSize now).
//  - RLIMIT_NPROC (ulimit -u, the user's processes and threads; not enforced for root): brrr adds
//    about kBrrrTasks (its threads in the app, CUPTI's, a plain preload's collector and its
//    threads). When the limit is under kNprocCountedBelow, the user's tasks are counted from /proc
//    and brrr profiles only when at least twice kBrrrTasks stay free.
//
// Init only; may read /proc. Must never: decline where no limit is set, or fail the app itself.
#ifndef BRRR_SHIM_RESOURCE_HEADROOM_H_
#define BRRR_SHIM_RESOURCE_HEADROOM_H_

#include <cstddef>
#include <cstdint>

namespace brrr::shim {

inline constexpr uint64_t kOtherAddressSpaceBytes = uint64_t{96} << 20;
inline constexpr uint64_t kBrrrTasks = 8;
inline constexpr uint64_t kNprocCountedBelow = 65536;

// The limits and use as read (pure, for tests): a limit of UINT64_MAX is none.
struct HeadroomFacts {
  uint64_t as_limit = UINT64_MAX;  // bytes
  uint64_t as_used = 0;            // bytes (VmSize)
  uint64_t nproc_limit = UINT64_MAX;
  uint64_t nproc_used = 0;  // the user's tasks (0 when not counted)
  bool root = false;
};

// True when brrr fits; else false with the reason in `why` (NUL-terminated, cut to `cap`).
bool EnoughHeadroom(const HeadroomFacts& facts, uint64_t segment_bytes, char* why, size_t cap);

// The facts of this process now.
HeadroomFacts ReadHeadroomFacts();

}  // namespace brrr::shim

#endif  // BRRR_SHIM_RESOURCE_HEADROOM_H_
