// Exported CUPTI callback API (cupti_callbacks.h): subscription (one subscriber at a time,
// SubscriberSlot) and runtime/driver API callbacks (ApiCallbackDispatcher: enable state and
// delivery on the calling thread). Must never deliver a callback itself: delivery belongs to the
// dispatcher, reached from the engine.
#include <cupti_callbacks.h>

#include "attach_costs.h"
#include "callback_names.h"
#include "callback_table.h"
#include "cupti_instance.h"
#include "export.h"
#include "simcuda/activity_sink.h"

using simcuda::cupti::CuptiInstance;

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                                         CUpti_CallbackFunc callback,
                                                         void* userdata) {
  CuptiInstance& cupti = CuptiInstance::Get();
  simcuda_wait_queued_work();  // as the real one: attach_probe.cu
  simcuda::cupti::SpendSubscribeCost();
  const CUptiResult result = cupti.subscribers().Subscribe(
      subscriber, callback, userdata, /*name=*/nullptr, /*old_name=*/nullptr, 0);
  if (result == CUPTI_SUCCESS) cupti.callbacks().Attach(*subscriber);
  return result;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                                            CUpti_CallbackFunc callback,
                                                            void* userdata,
                                                            CUpti_SubscriberParams* pParams) {
  if (pParams != nullptr && pParams->structSize == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  const char* name = pParams != nullptr ? pParams->subscriberName : nullptr;
  char* old_name = pParams != nullptr ? pParams->oldSubscriberName : nullptr;
  const size_t old_name_size = pParams != nullptr ? pParams->oldSubscriberSize : 0;
  CuptiInstance& cupti = CuptiInstance::Get();
  simcuda_wait_queued_work();  // as the real one: attach_probe.cu
  simcuda::cupti::SpendSubscribeCost();
  const CUptiResult result =
      cupti.subscribers().Subscribe(subscriber, callback, userdata, name, old_name, old_name_size);
  if (result == CUPTI_SUCCESS) cupti.callbacks().Attach(*subscriber);
  return result;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  CuptiInstance& cupti = CuptiInstance::Get();
  const CUptiResult result = cupti.subscribers().Unsubscribe(subscriber);
  if (result == CUPTI_SUCCESS) cupti.callbacks().Detach(subscriber);
  return result;
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable,
                                                              CUpti_SubscriberHandle subscriber,
                                                              CUpti_CallbackDomain domain,
                                                              CUpti_CallbackId cbid) {
  return CuptiInstance::Get().callbacks().EnableCallback(enable, subscriber, domain, cbid);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable,
                                                            CUpti_SubscriberHandle subscriber,
                                                            CUpti_CallbackDomain domain) {
  return CuptiInstance::Get().callbacks().EnableDomain(enable, subscriber, domain);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable,
                                                                CUpti_SubscriberHandle subscriber) {
  return CuptiInstance::Get().callbacks().EnableAllDomains(enable, subscriber);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t* enable,
                                                                CUpti_SubscriberHandle subscriber,
                                                                CUpti_CallbackDomain domain,
                                                                CUpti_CallbackId cbid) {
  return CuptiInstance::Get().callbacks().GetCallbackState(enable, subscriber, domain, cbid);
}

SIMCUDA_CUPTI_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain,
                                                               uint32_t cbid, const char** name) {
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = simcuda::cupti::CallbackIdName(domain, cbid);
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
