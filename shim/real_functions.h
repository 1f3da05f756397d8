// The real CUDA runtime functions behind the hooks, resolved lazily on first use: dlsym(RTLD_NEXT)
// first, then (libcudart loaded RTLD_LOCAL, e.g. by Python) dlopen("libcudart.so.<N>",
// RTLD_NOLOAD) for N = 13, 12 and dlsym on that handle. A candidate inside libbrrr.so itself is
// rejected, so a hook can never call itself.
//
// Must never: resolve to the shim, load a library that was not already loaded, or be slow after
// the first call of each function (one relaxed load).
#ifndef BRRR_SHIM_REAL_FUNCTIONS_H_
#define BRRR_SHIM_REAL_FUNCTIONS_H_

#include <atomic>

#include "shim/hook_table.h"

namespace brrr::shim {

extern std::atomic<void*> g_real_functions[kHookCount];

// Out of line: resolves and caches; null when the function exists nowhere (warns once).
void* ResolveRealFunction(HookId id);

inline void* RealFunction(HookId id) {
  void* p = g_real_functions[static_cast<uint32_t>(id)].load(std::memory_order_relaxed);
  return p != nullptr ? p : ResolveRealFunction(id);
}

// Resolves `name` the same way (used for libc functions the shim interposes: exit, ...).
void* ResolveNext(const char* name);

// True when `address` lies inside libbrrr.so.
bool IsInsideShim(const void* address);

}  // namespace brrr::shim

#endif  // BRRR_SHIM_REAL_FUNCTIONS_H_
