// The hook table as data, generated from hooks.def: one id per hook, its exported name, the Api
// value it records and whether it is a per-thread-stream variant. Used by the real-function slots
// and by tests (completeness against ring::Api); needs no CUDA header.
//
// Must never: be edited by hand (add a line to hooks.def instead).
#ifndef BRRR_SHIM_HOOK_TABLE_H_
#define BRRR_SHIM_HOOK_TABLE_H_

#include <cstdint>

#include "shim/ring_format.h"

namespace brrr::shim {

enum class HookId : uint32_t {
#define BRRR_HOOK(name, api, per_thread, params, args, extract) k_##name,
#include "shim/hooks.def"
#undef BRRR_HOOK
  kCount
};

inline constexpr uint32_t kHookCount = static_cast<uint32_t>(HookId::kCount);

struct HookInfo {
  const char* name;
  ring::Api api;
  bool per_thread;
};

inline constexpr HookInfo kHooks[kHookCount] = {
#define BRRR_HOOK(name, api, per_thread, params, args, extract) \
  {#name, ring::Api::api, per_thread != 0},
#include "shim/hooks.def"
#undef BRRR_HOOK
};

}  // namespace brrr::shim

#endif  // BRRR_SHIM_HOOK_TABLE_H_
