// libunwind through dlopen (see unwinder.h).
//
// Must never: call unw_backtrace before LoadUnwinder published it, or unwind more than the
// caller's buffer holds.
#include "shim/unwinder.h"

#include <dlfcn.h>

#include <atomic>

namespace brrr::shim {
namespace {

using BacktraceFn = int (*)(void**, int);
std::atomic<BacktraceFn> g_backtrace{nullptr};
constexpr uint32_t kMaxFrames = 64;

}  // namespace

bool LoadUnwinder() {
  if (g_backtrace.load(std::memory_order_acquire) != nullptr) return true;
  void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  const auto fn = reinterpret_cast<BacktraceFn>(dlsym(lib, "unw_backtrace"));
  if (fn == nullptr) return false;
  g_backtrace.store(fn, std::memory_order_release);
  return true;
}

__attribute__((noinline)) uint32_t UnwindCallerStack(uint64_t* pcs, uint32_t max_depth) {
  const BacktraceFn fn = g_backtrace.load(std::memory_order_acquire);
  if (fn == nullptr || max_depth == 0) return 0;
  void* frames[kMaxFrames + 1];
  const uint32_t want = (max_depth < kMaxFrames ? max_depth : kMaxFrames) + 1;
  const int got = fn(frames, static_cast<int>(want));
  if (got <= 1) return 0;
  // frames[0] is this function; the caller comes first in the result.
  uint32_t n = 0;
  for (int i = 1; i < got && n < max_depth; ++i) {
    pcs[n++] = reinterpret_cast<uint64_t>(frames[i]);
  }
  return n;
}

}  // namespace brrr::shim
