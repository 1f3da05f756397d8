// Frame-pointer stack walk for the hot path: raw return addresses, innermost first, bounded by the
// calling thread's stack. Most code is built without frame pointers, so the chain may be garbage:
// every frame pointer is checked (8-byte aligned, inside [start frame, stack top), strictly
// increasing) before it is read, and the walk stops at the first bad one. It therefore only ever
// reads the live part of the current thread's stack.
//
// Must never: read outside the thread's live stack, loop, allocate, or call anything.
#ifndef BRRR_SHIM_STACK_WALK_H_
#define BRRR_SHIM_STACK_WALK_H_

#include <cstdint>

namespace brrr::shim {

struct StackBounds {
  uintptr_t lo = 0;  // lowest address of the thread's stack mapping
  uintptr_t hi = 0;  // one past the highest
};

// The calling thread's stack (pthread_getattr_np). Allocates inside glibc for the main thread:
// call once per thread, off the hot path. {0,0} when unknown (then no stacks are captured).
StackBounds CurrentThreadStackBounds();

// Walks the frame chain starting at `frame` (a frame address from __builtin_frame_address(0) of a
// function compiled with frame pointers). pcs[0] is that function's return address. Returns the
// number of pcs written (<= max_depth).
inline uint32_t WalkFramePointers(const void* frame, StackBounds bounds, uint64_t* pcs,
                                  uint32_t max_depth) {
  uintptr_t fp = reinterpret_cast<uintptr_t>(frame);
  // Below the starting frame lies only our own (live) frames; above `hi` is not stack.
  const uintptr_t lo = fp > bounds.lo ? fp : bounds.lo;
  // The highest address a frame record (saved fp, return address) may start at.
  const uintptr_t last = bounds.hi >= lo + 16 ? bounds.hi - 16 : 0;
  uint32_t depth = 0;
  while (depth < max_depth) {
    if ((fp & 7u) != 0 || fp < lo || fp > last) break;
    const uintptr_t* slot = reinterpret_cast<const uintptr_t*>(fp);
    const uintptr_t pc = slot[1];
    const uintptr_t next = slot[0];
    if (pc < 4096) break;
    pcs[depth++] = pc;
    if (next <= fp) break;
    fp = next;
  }
  return depth;
}

}  // namespace brrr::shim

#endif  // BRRR_SHIM_STACK_WALK_H_
