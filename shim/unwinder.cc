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

// The executable segments of libcupti and libcuda, which deliver a CUPTI callback: their frames
// lead a callback's stack, under libbrrr.so's. Filled once, at the first callback unwound (both
// are loaded by then), and published with g_delivery_known.
constexpr int kMaxDeliverySegments = 16;
constexpr uint32_t kMaxDeliveryFrames = 64;
uintptr_t g_delivery_lo[kMaxDeliverySegments] = {}, g_delivery_hi[kMaxDeliverySegments] = {};
std::atomic<bool> g_delivery_known{false};
std::atomic_flag g_delivery_filling = ATOMIC_FLAG_INIT;
int g_delivery_count = 0;

int FindDeliveryModules(dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name == nullptr) return 0;
  const char* base = strrchr(info->dlpi_name, '/');
  base = base != nullptr ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libcupti.so", 11) != 0 && strncmp(base, "libcuda.so", 10) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum && g_delivery_count < kMaxDeliverySegments; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    g_delivery_lo[g_delivery_count] = info->dlpi_addr + ph.p_vaddr;
    g_delivery_hi[g_delivery_count] = g_delivery_lo[g_delivery_count] + ph.p_memsz;
    ++g_delivery_count;
  }
  return 0;
}

// Once per process (a second thread that finds it being filled goes on without it: its stack
// then keeps the delivering frames, which the collector drops).
void NoteDeliveryModules() {
  if (g_delivery_filling.test_and_set(std::memory_order_acq_rel)) return;
  dl_iterate_phdr(&FindDeliveryModules, nullptr);
  g_delivery_known.store(true, std::memory_order_release);
}

bool InsideDeliveryModule(const void* address) {
  if (!g_delivery_known.load(std::memory_order_acquire)) return false;
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  for (int i = 0; i < g_delivery_count; ++i) {
    if (a >= g_delivery_lo[i] && a < g_delivery_hi[i]) return true;
  }
  return false;
}

// How many of `frames` lead inside libbrrr.so, libcupti or libcuda; all of them but the last
// when every frame does (the outermost then says where the unwind stopped).
uint32_t LeadingDeliveryFrames(void* const* frames, uint32_t count) {
  uint32_t first = 0;
  while (first < count && (InsideThisObject(frames[first]) || InsideDeliveryModule(frames[first]))) {
    ++first;
  }
  return first == count && count > 0 ? count - 1 : first;
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
  // One walk now, at initialization (under its LowFdGuard): libunwind sets itself up on its first
  // walk, opening a pipe it keeps for the process's life; on a hook's first stall it would open
  // it there, and on fds 1 and 2 of an app that closed them.
  void* warm[1];
  (void)fn(warm, 1);
  g_backtrace.store(fn, std::memory_order_release);
  return true;
}

__attribute__((noinline)) uint32_t UnwindCallerStack(uint64_t* pcs, uint32_t max_depth) {
  const BacktraceFn fn = g_backtrace.load(std::memory_order_acquire);
  if (fn == nullptr || max_depth == 0) return 0;
  if (!g_delivery_known.load(std::memory_order_acquire)) NoteDeliveryModules();
  // Room for the delivering frames (this function, the callback, libcupti's and the driver's),
  // which are dropped, and max_depth frames of the caller after them.
  void* frames[kMaxFrames + kMaxDeliveryFrames];
  const uint32_t want = (max_depth < kMaxFrames ? max_depth : kMaxFrames) + kMaxDeliveryFrames;
  const int got = fn(frames, static_cast<int>(want));
  const uint32_t first = LeadingDeliveryFrames(frames, got > 0 ? static_cast<uint32_t>(got) : 0);
  uint32_t n = 0;
  for (uint32_t i = first; i < static_cast<uint32_t>(got > 0 ? got : 0) && n < max_depth; ++i) {
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
