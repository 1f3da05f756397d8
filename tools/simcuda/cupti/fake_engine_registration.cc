// Test helper: fake simcuda_set_activity_sink / simcuda_set_api_callback_sink so the exported CUPTI
// functions can be tested without the engine (libcuda.so.1). Test-only; never linked into libcupti.
#include "fake_engine_registration.h"

#include <atomic>

namespace {

std::atomic<simcuda::ActivitySink*> g_sink{nullptr};
std::atomic<int> g_calls{0};
std::atomic<simcuda::ApiCallbackSink*> g_callback_sink{nullptr};
std::atomic<int> g_waits{0};

}  // namespace

extern "C" void simcuda_set_activity_sink(simcuda::ActivitySink* sink) {
  g_sink.store(sink);
  g_calls.fetch_add(1);
}

extern "C" void simcuda_set_api_callback_sink(simcuda::ApiCallbackSink* sink) {
  g_callback_sink.store(sink);
}

extern "C" void simcuda_wait_queued_work() { g_waits.fetch_add(1); }

namespace simcuda::cupti::testing {

int QueuedWorkWaits() { return g_waits.load(); }

ActivitySink* RegisteredSink() { return g_sink.load(); }
int SinkRegistrationCalls() { return g_calls.load(); }
ApiCallbackSink* RegisteredApiCallbackSink() { return g_callback_sink.load(); }

}  // namespace simcuda::cupti::testing
