// Lazy resolution of the real CUDA runtime functions (see real_functions.h).
//
// Must never: return a pointer into libbrrr.so, or dlopen a library that is not loaded already.
#include "shim/real_functions.h"

#include <dlfcn.h>

#include "shim/log.h"

namespace brrr::shim {

std::atomic<void*> g_real_functions[kHookCount];

namespace {

std::atomic<bool> g_warned_missing[kHookCount];

// The base address of libbrrr.so (dladdr on one of our own symbols), resolved once.
const void* ShimBase() {
  static std::atomic<const void*> base{nullptr};
  const void* b = base.load(std::memory_order_acquire);
  if (b != nullptr) return b;
  Dl_info info;
  if (dladdr(reinterpret_cast<const void*>(&ShimBase), &info) != 0 && info.dli_fbase != nullptr) {
    base.store(info.dli_fbase, std::memory_order_release);
    return info.dli_fbase;
  }
  return nullptr;
}

void* FromLoadedCudart(const char* name) {
  static const char* const kSonames[] = {"libcudart.so.13", "libcudart.so.12"};
  for (const char* soname : kSonames) {
    void* handle = dlopen(soname, RTLD_NOLOAD | RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) continue;
    void* p = dlsym(handle, name);
    dlclose(handle);  // drops only the reference NOLOAD added
    if (p != nullptr && !IsInsideShim(p)) return p;
  }
  return nullptr;
}

}  // namespace

bool IsInsideShim(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0) return false;
  const void* base = ShimBase();
  return base != nullptr && info.dli_fbase == base;
}

void* ResolveNext(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (p != nullptr && !IsInsideShim(p)) return p;
  return nullptr;
}

void* ResolveRealFunction(HookId id) {
  const uint32_t i = static_cast<uint32_t>(id);
  if (i >= kHookCount) return nullptr;
  const char* name = kHooks[i].name;
  void* p = ResolveNext(name);
  if (p == nullptr) p = FromLoadedCudart(name);
  if (p == nullptr) {
    WarnOnce(g_warned_missing[i], "cannot find the real ", name,
             " (libcudart not loaded?); returning cudaErrorInitializationError");
    return nullptr;
  }
  g_real_functions[i].store(p, std::memory_order_relaxed);
  return p;
}

}  // namespace brrr::shim
