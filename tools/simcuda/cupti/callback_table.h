// CallbackTable: which (domain, callback id) pairs the subscriber enabled, as cuptiEnableCallback /
// cuptiEnableDomain / cuptiEnableAllDomains / cuptiGetCallbackState see them. One bit per id of
// every domain of cupti_callbacks.h, bounded by the domain's *_SIZE enumerator. Lookups are one
// relaxed atomic load; writers are serialized by the caller. Must never allocate after
// construction or call into the engine.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_TABLE_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_TABLE_H_

#include <cupti_callbacks.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace simcuda::cupti {

// Reads are thread-safe at any time; writes (Set*, Clear) must be serialized by the caller.
class CallbackTable {
 public:
  CallbackTable();
  CallbackTable(const CallbackTable&) = delete;
  CallbackTable& operator=(const CallbackTable&) = delete;

  // A domain other than INVALID / SIZE.
  static bool IsValidDomain(CUpti_CallbackDomain domain);
  // A valid domain and 0 < cbid < the domain's *_SIZE (id 0 is every domain's *_INVALID).
  static bool IsValidId(CUpti_CallbackDomain domain, uint32_t cbid);

  // Preconditions: IsValidId / IsValidDomain.
  void Set(CUpti_CallbackDomain domain, uint32_t cbid, bool enable);
  void SetDomain(CUpti_CallbackDomain domain, bool enable);
  void SetAll(bool enable);
  void Clear() { SetAll(false); }

  // False for invalid ids.
  bool IsEnabled(CUpti_CallbackDomain domain, uint32_t cbid) const {
    if (!IsValidId(domain, cbid)) return false;
    const std::atomic<uint64_t>& word = bits_[domain][cbid / 64];
    return (word.load(std::memory_order_relaxed) >> (cbid % 64) & 1u) != 0;
  }
  // Whether any id of the RUNTIME_API or DRIVER_API domain is enabled (the only domains whose
  // callbacks the simulation delivers).
  bool AnyApiEnabled() const;

 private:
  std::array<std::vector<std::atomic<uint64_t>>, CUPTI_CB_DOMAIN_SIZE> bits_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_CALLBACK_TABLE_H_
