// libunwind through dlopen (see unwinder.h).
//
// Must never: call unw_backtrace before LoadUnwinder published it, or unwind more than the
// caller's buffer holds.
#include "shim/unwinder.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>


namespace brrr::shim {
namespace {

using BacktraceFn = int (*)(void**, int);
std::atomic<BacktraceFn> g_backtrace{nullptr};
constexpr uint32_t kMaxFrames = 64;
// The executable segments of the object this code is in (libbrrr.so), set by LoadUnwinder before
// g_backtrace is published: a hook's own frames are dropped from the front of its stack.
constexpr int kMaxSegments = 4;
uintptr_t g_self_lo[kMaxSegments] = {}, g_self_hi[kMaxSegments] = {};

int FindSelf(dl_phdr_info* info, size_t, void*) {
  const uintptr_t self = reinterpret_cast<uintptr_t>(&FindSelf);
  int found = 0;
  uintptr_t lo[kMaxSegments] = {}, hi[kMaxSegments] = {};
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0 || found == kMaxSegments) continue;
    lo[found] = info->dlpi_addr + ph.p_vaddr;
    hi[found] = lo[found] + ph.p_memsz;
    contains |= self >= lo[found] && self < hi[found];
    ++found;
  }
  if (!contains) return 0;
  for (int i = 0; i < found; ++i) g_self_lo[i] = lo[i], g_self_hi[i] = hi[i];
  return 1;
}

bool InsideThisObject(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  for (int i = 0; i < kMaxSegments; ++i) {
    if (a >= g_self_lo[i] && a < g_self_hi[i]) return true;
  }
  return false;
}

// dlopen of `name` from the deps/ folder next to libbrrr.so, or nullptr.
void* OpenBundled(const char* name) {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&OpenBundled), &self) == 0 || self.dli_fname == nullptr) {
    return nullptr;
  }
  char path[4096];
  const size_t length = strnlen(self.dli_fname, sizeof(path));
  size_t dir = length;
  while (dir > 0 && self.dli_fname[dir - 1] != '/') --dir;
  const size_t name_size = strlen(name) + 1;
  if (dir == 0 || length >= sizeof(path) || dir + 5 + name_size > sizeof(path)) return nullptr;
  memcpy(path, self.dli_fname, dir);
  memcpy(path + dir, "deps/", 5);
  memcpy(path + dir + 5, name, name_size);
  return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

// libunwind.so.8 from deps/ (the GPU bundle ships it, and liblzma which it needs, for machines
// without the Debian package: a loaded liblzma.so.5 satisfies libunwind's NEEDED by soname), else
// from the system's search path.
void* OpenLibunwind() {
  OpenBundled("liblzma.so.5");
  if (void* lib = OpenBundled("libunwind.so.8")) return lib;
  return dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
}

}  // namespace

bool LoadUnwinder() {
  if (g_backtrace.load(std::memory_order_acquire) != nullptr) return true;
  void* lib = OpenLibunwind();
  if (lib == nullptr) return false;
  const auto fn = reinterpret_cast<BacktraceFn>(dlsym(lib, "unw_backtrace"));
  if (fn == nullptr) return false;
  dl_iterate_phdr(&FindSelf, nullptr);
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

__attribute__((noinline, cold)) uint32_t UnwindPastFramePointers(uint64_t* pcs, uint32_t fp_depth,
                                                                 uint32_t max_depth) {
  const BacktraceFn fn = g_backtrace.load(std::memory_order_acquire);
  if (fn == nullptr) return fp_depth;
  // This function and the hook lead (both in libbrrr.so), plus at most one more shim frame.
  constexpr uint32_t kShimFrames = 3;
  void* frames[kMaxFrames + kShimFrames];
  const uint32_t want = (max_depth < kMaxFrames ? max_depth : kMaxFrames) + kShimFrames;
  const int got = fn(frames, static_cast<int>(want));
  int first = 0;
  while (first < got && first < static_cast<int>(kShimFrames) && InsideThisObject(frames[first])) {
    ++first;
  }
  const uint32_t n = got > first ? static_cast<uint32_t>(got - first) : 0;
  if (n <= fp_depth) return fp_depth;
  const uint32_t keep = n < max_depth ? n : max_depth;
  for (uint32_t i = 0; i < keep; ++i) pcs[i] = reinterpret_cast<uint64_t>(frames[first + i]);
  return keep;
}

}  // namespace brrr::shim
