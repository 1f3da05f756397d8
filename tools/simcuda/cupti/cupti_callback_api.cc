// Exported CUPTI callback API (cupti_callbacks.h): subscription only. Enabling callbacks succeeds
// for the active subscriber but no callback is ever delivered by the simulation.
#include <cupti_callbacks.h>

#include "cupti_instance.h"
#include "export.h"

using simcuda::cupti::CuptiInstance;

namespace {

bool IsValidDomain(CUpti_CallbackDomain domain) {
  return domain > CUPTI_CB_DOMAIN_INVALID && domain < CUPTI_CB_DOMAIN_SIZE;
}

}  // namespace

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                                         CUpti_CallbackFunc callback,
                                                         void* userdata) {
  return CuptiInstance::Get().subscribers().Subscribe(subscriber, callback, userdata,
                                                      /*name=*/nullptr, /*old_name=*/nullptr, 0);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                                            CUpti_CallbackFunc callback,
                                                            void* userdata,
                                                            CUpti_SubscriberParams* pParams) {
  if (pParams != nullptr && pParams->structSize == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  const char* name = pParams != nullptr ? pParams->subscriberName : nullptr;
  char* old_name = pParams != nullptr ? pParams->oldSubscriberName : nullptr;
  const size_t old_name_size = pParams != nullptr ? pParams->oldSubscriberSize : 0;
  return CuptiInstance::Get().subscribers().Subscribe(subscriber, callback, userdata, name,
                                                      old_name, old_name_size);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  return CuptiInstance::Get().subscribers().Unsubscribe(subscriber);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t /*enable*/,
                                                              CUpti_SubscriberHandle subscriber,
                                                              CUpti_CallbackDomain domain,
                                                              CUpti_CallbackId /*cbid*/) {
  if (!CuptiInstance::Get().subscribers().IsActive(subscriber) || !IsValidDomain(domain)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t /*enable*/,
                                                            CUpti_SubscriberHandle subscriber,
                                                            CUpti_CallbackDomain domain) {
  if (!CuptiInstance::Get().subscribers().IsActive(subscriber) || !IsValidDomain(domain)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t /*enable*/,
                                                                CUpti_SubscriberHandle subscriber) {
  if (!CuptiInstance::Get().subscribers().IsActive(subscriber)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}
