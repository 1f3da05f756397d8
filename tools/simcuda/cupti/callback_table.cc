// CallbackTable: per-domain bit sets sized from the toolkit's *_SIZE enumerators.
#include "callback_table.h"

#include <cupti_driver_cbid.h>
#include <cupti_nvtx_cbid.h>
#include <cupti_runtime_cbid.h>

namespace simcuda::cupti {
namespace {

// One past the largest valid id of a domain (0 for INVALID).
uint32_t DomainSize(CUpti_CallbackDomain domain) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return CUPTI_DRIVER_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return CUPTI_RUNTIME_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RESOURCE:
      return CUPTI_CBID_RESOURCE_SIZE;
    case CUPTI_CB_DOMAIN_SYNCHRONIZE:
      return CUPTI_CBID_SYNCHRONIZE_SIZE;
    case CUPTI_CB_DOMAIN_NVTX:
      return CUPTI_CBID_NVTX_SIZE;
    case CUPTI_CB_DOMAIN_STATE:
      return CUPTI_CBID_STATE_SIZE;
    default:
      return 0;
  }
}

}  // namespace

CallbackTable::CallbackTable() {
  for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    const uint32_t size = DomainSize(static_cast<CUpti_CallbackDomain>(d));
    bits_[d] = std::vector<std::atomic<uint64_t>>((size + 63) / 64);
    for (auto& word : bits_[d]) word.store(0, std::memory_order_relaxed);
  }
}

bool CallbackTable::IsValidDomain(CUpti_CallbackDomain domain) {
  return domain > CUPTI_CB_DOMAIN_INVALID && domain < CUPTI_CB_DOMAIN_SIZE;
}

bool CallbackTable::IsValidId(CUpti_CallbackDomain domain, uint32_t cbid) {
  return IsValidDomain(domain) && cbid > 0 && cbid < DomainSize(domain);
}

void CallbackTable::Set(CUpti_CallbackDomain domain, uint32_t cbid, bool enable) {
  if (!IsValidId(domain, cbid)) return;
  std::atomic<uint64_t>& word = bits_[domain][cbid / 64];
  const uint64_t mask = uint64_t{1} << (cbid % 64);
  if (enable) {
    word.fetch_or(mask, std::memory_order_relaxed);
  } else {
    word.fetch_and(~mask, std::memory_order_relaxed);
  }
}

void CallbackTable::SetDomain(CUpti_CallbackDomain domain, bool enable) {
  if (!IsValidDomain(domain)) return;
  const uint32_t size = DomainSize(domain);
  for (uint32_t cbid = 1; cbid < size; ++cbid) Set(domain, cbid, enable);
}

void CallbackTable::SetAll(bool enable) {
  for (int d = CUPTI_CB_DOMAIN_INVALID + 1; d < CUPTI_CB_DOMAIN_SIZE; ++d) {
    SetDomain(static_cast<CUpti_CallbackDomain>(d), enable);
  }
}

bool CallbackTable::AnyApiEnabled() const {
  for (const CUpti_CallbackDomain d : {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API}) {
    for (const auto& word : bits_[d]) {
      if (word.load(std::memory_order_relaxed) != 0) return true;
    }
  }
  return false;
}

}  // namespace simcuda::cupti
