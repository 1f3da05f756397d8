// ApiCallbackDispatcher: delivers CUPTI runtime/driver API callbacks (cupti_callbacks.h) to the
// active subscriber. It is the engine's API callback sink (simcuda/activity_sink.h): registered
// with the engine only while a subscriber has at least one RUNTIME_API or DRIVER_API id enabled,
// so with nothing enabled API calls pay one atomic load in the engine and nothing here.
//
// Delivery (OnApiEnter / OnApiExit, on the thread that made the API call):
// - ENTER when (domain, cbid) is enabled for the active subscriber; EXIT for exactly the calls
//   that got their ENTER, unless the subscriber unsubscribed in between (disabling the id between
//   ENTER and EXIT does not suppress the EXIT, so ENTER/EXIT stay paired).
// - No lock is held while the subscriber's callback runs; no allocation per call.
// - No recursion: an API call made on a thread while that thread is inside a callback gets no
//   callbacks (a thread-local flag), as with real CUPTI.
// - Detach (cuptiUnsubscribe) returns only when no callback is running on another thread, and no
//   callback starts after it returns. (A callback that unsubscribes its own subscriber may; it
//   then waits only for the other threads.)
// Unsupported domains (RESOURCE, SYNCHRONIZE, NVTX, STATE) can be enabled but never deliver.
// Thread-safe. Must never call into the engine except through the registration function, and
// never hold mu_ while a subscriber callback runs or while waiting for callbacks.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_API_CALLBACK_DISPATCHER_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_API_CALLBACK_DISPATCHER_H_

#include <cupti_callbacks.h>

#include <atomic>
#include <mutex>

#include "callback_table.h"
#include "simcuda/activity_sink.h"
#include "subscriber_slot.h"

namespace simcuda::cupti {

class ApiCallbackDispatcher final : public ApiCallbackSink {
 public:
  // How the dispatcher (un)registers itself with the engine: simcuda_set_api_callback_sink in
  // libcupti, a fake in unit tests.
  using RegisterFn = void (*)(ApiCallbackSink* sink);

  explicit ApiCallbackDispatcher(RegisterFn register_with_engine);
  ApiCallbackDispatcher(const ApiCallbackDispatcher&) = delete;
  ApiCallbackDispatcher& operator=(const ApiCallbackDispatcher&) = delete;
  ~ApiCallbackDispatcher() = default;

  // The subscriber the SubscriberSlot just granted: becomes active with nothing enabled.
  void Attach(CUpti_SubscriberHandle subscriber);
  // The subscriber the SubscriberSlot just released: stops delivery to it (see header comment).
  void Detach(CUpti_SubscriberHandle subscriber);
  // Detaches whichever subscriber is active (cuptiFinalize).
  void DetachAny();

  // The cuptiEnableCallback / cuptiEnableDomain / cuptiEnableAllDomains / cuptiGetCallbackState
  // contracts: CUPTI_ERROR_INVALID_PARAMETER for a subscriber that is not the active one, an
  // invalid domain, or a cbid outside 1 .. <domain>_SIZE - 1 (or a null `enable` out-pointer).
  CUptiResult EnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                             CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  CUptiResult EnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                           CUpti_CallbackDomain domain);
  CUptiResult EnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber);
  CUptiResult GetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                               CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

  // ApiCallbackSink.
  void OnApiEnter(const ApiCallSite& call) override;
  void OnApiExit(const ApiCallSite& call) override;

 private:
  void UpdateRegistrationLocked();
  void WaitForOtherThreadsCallbacks() const;

  const RegisterFn register_with_engine_;
  std::mutex mu_;  // control path only: attach/detach/enable and engine registration
  bool registered_ = false;
  CallbackTable table_;
  std::atomic<CUpti_Subscriber_st*> active_{nullptr};
  // Deliveries between "decided to deliver" and "callback returned", over all threads.
  std::atomic<int> in_flight_{0};
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_API_CALLBACK_DISPATCHER_H_
