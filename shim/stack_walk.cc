// Thread stack bounds for the frame-pointer walk (see stack_walk.h). Once per thread.
//
// Must never: be called on the hot path (pthread_getattr_np reads /proc/self/maps for the main
// thread).
#include "shim/stack_walk.h"

#include <pthread.h>

namespace brrr::shim {

StackBounds CurrentThreadStackBounds() {
  StackBounds b;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size > 0) {
    b.lo = reinterpret_cast<uintptr_t>(addr);
    b.hi = b.lo + size;
  }
  pthread_attr_destroy(&attr);
  return b;
}

}  // namespace brrr::shim
