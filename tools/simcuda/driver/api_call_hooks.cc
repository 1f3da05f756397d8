// The begin/end of every runtime and driver API call (simcuda_api_begin / simcuda_api_end from
// engine.h), of the driver calls a runtime call makes (simcuda_api_nested_*), and the registration
// of the API callback sink (simcuda_set_api_callback_sink from activity_sink.h). The only place
// enter/exit hooks are issued. Must never take a lock or allocate on the call path, and never hold
// anything while a callback sink runs (it may call CUDA functions).
#include <atomic>

#include "clock.h"
#include "driver_call.h"
#include "engine_core.h"
#include "simcuda/activity_sink.h"
#include "simcuda/engine.h"

namespace {

// Registered callback sinks are never destroyed (activity_sink.h), so a pointer loaded here stays
// callable even if it is replaced right after.
std::atomic<simcuda::ApiCallbackSink*> g_callback_sink{nullptr};

simcuda::ApiCallSite SiteOf(simcuda_api_call* call) {
  simcuda::ApiCallSite site{};
  site.domain = static_cast<simcuda::ApiDomain>(call->domain);
  site.cbid = call->cbid;
  site.correlation_id = call->correlation_id;
  site.context_id = 1;
  site.context = simcuda::driver::PrimaryContext();
  site.correlation_data = &call->correlation_data;
  site.return_value = &call->return_value;
  site.sink_state = &call->sink_state;
  return site;
}

// Fills a call's state and runs the ENTER callback, if a sink wants it; then takes start_ns.
void Begin(simcuda_api_call* call, uint8_t domain, uint32_t cbid, uint32_t correlation_id) {
  call->correlation_data = 0;
  call->callback_sink = nullptr;
  call->sink_state = nullptr;
  call->correlation_id = correlation_id;
  call->cbid = cbid;
  call->return_value = 0;
  call->domain = domain;
  // The one load on the path when no callback is wanted (acquire: a plain load on x86).
  simcuda::ApiCallbackSink* const sink = g_callback_sink.load(std::memory_order_acquire);
  if (sink != nullptr) {
    sink->OnApiEnter(SiteOf(call));
    if (call->sink_state != nullptr) call->callback_sink = sink;
  }
  call->start_ns = simcuda::NowNs();
}

// Runs the EXIT callback, if the sink asked for it at ENTER.
void ExitCallback(simcuda_api_call* call) {
  if (call->callback_sink != nullptr) {
    static_cast<simcuda::ApiCallbackSink*>(call->callback_sink)->OnApiExit(SiteOf(call));
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void simcuda_set_api_callback_sink(
    simcuda::ApiCallbackSink* sink) {
  g_callback_sink.store(sink, std::memory_order_release);
}

SIMCUDA_ENGINE_API void simcuda_api_begin(simcuda_api_call* call, uint8_t domain, uint32_t cbid) {
  Begin(call, domain, cbid, simcuda::GetEngine().NextCorrelationId());
}

SIMCUDA_ENGINE_API void simcuda_api_end(simcuda_api_call* call, int32_t return_value) {
  const uint64_t end_ns = simcuda::NowNs();
  call->return_value = return_value;
  // The activity record first, so that an external correlation id pushed in the enter callback
  // and popped in the exit callback covers the call's record (as with real CUPTI).
  simcuda_report_api(call->domain, call->cbid, call->correlation_id, call->start_ns, end_ns,
                     return_value);
  ExitCallback(call);
}

SIMCUDA_ENGINE_API void simcuda_api_nested_begin(simcuda_api_call* nested,
                                                 const simcuda_api_call* outer, uint32_t cbid) {
  Begin(nested, /*domain=driver*/ 1, cbid, outer->correlation_id);
}

SIMCUDA_ENGINE_API void simcuda_api_nested_end(simcuda_api_call* nested, int32_t return_value) {
  nested->return_value = return_value;
  ExitCallback(nested);
}
