// The API callback log: a mutex-protected vector filled by the subscriber callback.
#include "api_callback_log.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace brrr::simtest {
namespace {

std::mutex g_mu;
std::vector<ApiCallbackEvent>* g_events = new std::vector<ApiCallbackEvent>();  // never freed
std::atomic<void (*)()> g_inside_enter{nullptr};

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void CUPTIAPI LogCallback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* cbdata) {
  const uint64_t now = NowNs();
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  ApiCallbackEvent event{};
  event.domain = domain;
  event.cbid = cbid;
  event.site = data->callbackSite;
  event.function_name = data->functionName != nullptr ? data->functionName : "<null>";
  event.correlation_id = data->correlationId;
  if (data->callbackSite == CUPTI_API_ENTER) {
    *data->correlationData = CorrelationDataFor(data->correlationId);
  } else if (data->functionReturnValue != nullptr) {
    event.return_value = *static_cast<const int32_t*>(data->functionReturnValue);
  }
  event.correlation_data = *data->correlationData;
  event.thread_id = static_cast<pid_t>(syscall(SYS_gettid));
  event.time_ns = now;
  event.context = data->context;
  event.context_uid = data->contextUid;
  event.function_params_null = data->functionParams == nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_events->push_back(std::move(event));
  }
  void (*action)() = g_inside_enter.load();
  if (data->callbackSite == CUPTI_API_ENTER && action != nullptr) action();
}

}  // namespace

std::string SubscribeApiCallbackLog(CUpti_SubscriberHandle* handle) {
  const CUptiResult result = cuptiSubscribe(handle, &LogCallback, nullptr);
  if (result == CUPTI_SUCCESS) return "";
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return std::string("cuptiSubscribe: ") + (text != nullptr ? text : "?");
}

std::vector<ApiCallbackEvent> TakeApiCallbackEvents() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::vector<ApiCallbackEvent> taken;
  taken.swap(*g_events);
  return taken;
}

void SetInsideEnterAction(void (*action)()) { g_inside_enter.store(action); }

std::vector<ApiCallbackEvent> EventsWithCorrelation(const std::vector<ApiCallbackEvent>& events,
                                                    uint32_t correlation_id) {
  std::vector<ApiCallbackEvent> found;
  for (const ApiCallbackEvent& event : events) {
    if (event.correlation_id == correlation_id) found.push_back(event);
  }
  return found;
}

}  // namespace brrr::simtest
