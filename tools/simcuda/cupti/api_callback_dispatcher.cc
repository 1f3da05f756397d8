// ApiCallbackDispatcher: the enable/disable bookkeeping and the per-call delivery of API
// callbacks. The per-call path never locks or allocates; the thread-local recursion flag is
// trivially destructible.
#include "api_callback_dispatcher.h"

#include <cstdlib>
#include <thread>

#include "callback_names.h"

namespace simcuda::cupti {
namespace {

// True while this thread runs a subscriber callback: API calls it makes get no callbacks.
thread_local bool t_in_callback = false;

CUpti_CallbackDomain ToCuptiDomain(ApiDomain domain) {
  return domain == ApiDomain::kDriver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
}

// SIMCUDA_CUPTI_CALLBACK_DEPTH=N: each callback is delivered N frames deeper inside this library,
// as the real driver and CUPTI deliver theirs under many frames of their own (a subscriber that
// unwinds a fixed number of frames then never reaches the app). Read once; 0 when unset.
int CallbackDepth() {
  static const int depth = [] {
    const char* v = std::getenv("SIMCUDA_CUPTI_CALLBACK_DEPTH");
    const int n = v != nullptr ? std::atoi(v) : 0;
    return n > 0 && n <= 1000 ? n : 0;
  }();
  return depth;
}

volatile int g_frames_below = 0;

void Deliver(const CUpti_Subscriber_st& subscriber, CUpti_CallbackDomain domain,
             const CUpti_CallbackData& data, CUpti_CallbackId cbid) {
  subscriber.callback(subscriber.userdata, domain, cbid, &data);
}

// Not a tail call (the store after it), so each level is a frame of its own.
__attribute__((noinline)) void DeliverBelow(int levels, const CUpti_Subscriber_st& subscriber,
                                            CUpti_CallbackDomain domain,
                                            const CUpti_CallbackData& data, CUpti_CallbackId cbid) {
  if (levels > 0) {
    DeliverBelow(levels - 1, subscriber, domain, data, cbid);
  } else {
    Deliver(subscriber, domain, data, cbid);
  }
  g_frames_below = levels;
}

void Invoke(const CUpti_Subscriber_st& subscriber, CUpti_CallbackDomain domain,
            CUpti_ApiCallbackSite site, const ApiCallSite& call) {
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.functionName = ApiFunctionName(domain, call.cbid);
  data.functionParams = nullptr;  // the generated *_params structs are not simulated
  data.functionReturnValue = call.return_value;
  data.symbolName = nullptr;
  data.context = static_cast<CUcontext>(call.context);
  data.contextUid = call.context_id;
  data.correlationData = call.correlation_data;
  data.correlationId = call.correlation_id;
  t_in_callback = true;
  if (const int depth = CallbackDepth(); depth > 0) {
    DeliverBelow(depth, subscriber, domain, data, call.cbid);
  } else {
    Deliver(subscriber, domain, data, call.cbid);
  }
  t_in_callback = false;
}

}  // namespace

ApiCallbackDispatcher::ApiCallbackDispatcher(RegisterFn register_with_engine)
    : register_with_engine_(register_with_engine) {}

void ApiCallbackDispatcher::Attach(CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  table_.Clear();
  active_.store(subscriber, std::memory_order_seq_cst);
  UpdateRegistrationLocked();
}

void ApiCallbackDispatcher::Detach(CUpti_SubscriberHandle subscriber) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (subscriber != nullptr && active_.load(std::memory_order_relaxed) == subscriber) {
      active_.store(nullptr, std::memory_order_seq_cst);
      table_.Clear();
      UpdateRegistrationLocked();
    }
  }
  WaitForOtherThreadsCallbacks();
}

void ApiCallbackDispatcher::DetachAny() { Detach(active_.load(std::memory_order_relaxed)); }

CUptiResult ApiCallbackDispatcher::EnableCallback(uint32_t enable,
                                                  CUpti_SubscriberHandle subscriber,
                                                  CUpti_CallbackDomain domain,
                                                  CUpti_CallbackId cbid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (subscriber == nullptr || subscriber != active_.load(std::memory_order_relaxed) ||
      !CallbackTable::IsValidId(domain, cbid)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  table_.Set(domain, cbid, enable != 0);
  UpdateRegistrationLocked();
  return CUPTI_SUCCESS;
}

CUptiResult ApiCallbackDispatcher::EnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                                CUpti_CallbackDomain domain) {
  std::lock_guard<std::mutex> lock(mu_);
  if (subscriber == nullptr || subscriber != active_.load(std::memory_order_relaxed) ||
      !CallbackTable::IsValidDomain(domain)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  table_.SetDomain(domain, enable != 0);
  UpdateRegistrationLocked();
  return CUPTI_SUCCESS;
}

CUptiResult ApiCallbackDispatcher::EnableAllDomains(uint32_t enable,
                                                    CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  if (subscriber == nullptr || subscriber != active_.load(std::memory_order_relaxed)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  table_.SetAll(enable != 0);
  UpdateRegistrationLocked();
  return CUPTI_SUCCESS;
}

CUptiResult ApiCallbackDispatcher::GetCallbackState(uint32_t* enable,
                                                    CUpti_SubscriberHandle subscriber,
                                                    CUpti_CallbackDomain domain,
                                                    CUpti_CallbackId cbid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (enable == nullptr || subscriber == nullptr ||
      subscriber != active_.load(std::memory_order_relaxed) ||
      !CallbackTable::IsValidId(domain, cbid)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *enable = table_.IsEnabled(domain, cbid) ? 1 : 0;
  return CUPTI_SUCCESS;
}

void ApiCallbackDispatcher::OnApiEnter(const ApiCallSite& call) {
  if (t_in_callback) return;  // a call made from inside a callback: no callbacks
  const CUpti_CallbackDomain domain = ToCuptiDomain(call.domain);
  if (!table_.IsEnabled(domain, call.cbid)) return;  // cheap reject, outside the window
  // The window Detach waits for. seq_cst on both sides (increment here, then load active_;
  // store active_ there, then load in_flight_): either Detach sees this delivery in flight and
  // waits for it, or this delivery sees the subscriber gone.
  in_flight_.fetch_add(1, std::memory_order_seq_cst);
  CUpti_Subscriber_st* const subscriber = active_.load(std::memory_order_seq_cst);
  if (subscriber != nullptr && subscriber->callback != nullptr &&
      table_.IsEnabled(domain, call.cbid)) {
    *call.sink_state = subscriber;  // the engine calls OnApiExit for this call
    Invoke(*subscriber, domain, CUPTI_API_ENTER, call);
  }
  in_flight_.fetch_sub(1, std::memory_order_release);
}

void ApiCallbackDispatcher::OnApiExit(const ApiCallSite& call) {
  if (t_in_callback) return;
  in_flight_.fetch_add(1, std::memory_order_seq_cst);
  CUpti_Subscriber_st* const subscriber = active_.load(std::memory_order_seq_cst);
  // Handles are never reused (SubscriberSlot), so equality means "the subscriber that got ENTER".
  if (subscriber != nullptr && subscriber == *call.sink_state) {
    Invoke(*subscriber, ToCuptiDomain(call.domain), CUPTI_API_EXIT, call);
  }
  in_flight_.fetch_sub(1, std::memory_order_release);
}

void ApiCallbackDispatcher::UpdateRegistrationLocked() {
  const bool want = active_.load(std::memory_order_relaxed) != nullptr && table_.AnyApiEnabled();
  if (want == registered_) return;
  register_with_engine_(want ? this : nullptr);
  registered_ = want;
}

void ApiCallbackDispatcher::WaitForOtherThreadsCallbacks() const {
  const int own = t_in_callback ? 1 : 0;
  while (in_flight_.load(std::memory_order_seq_cst) > own) std::this_thread::yield();
}

}  // namespace simcuda::cupti
