// Test helper: a fake simcuda_set_activity_sink so the exported CUPTI functions can be tested
// without the engine (libcuda.so.1). Test-only; never linked into libcupti.
#include "fake_engine_registration.h"

#include <atomic>

namespace {

std::atomic<simcuda::ActivitySink*> g_sink{nullptr};
std::atomic<int> g_calls{0};

}  // namespace

extern "C" void simcuda_set_activity_sink(simcuda::ActivitySink* sink) {
  g_sink.store(sink);
  g_calls.fetch_add(1);
}

namespace simcuda::cupti::testing {

ActivitySink* RegisteredSink() { return g_sink.load(); }
int SinkRegistrationCalls() { return g_calls.load(); }

}  // namespace simcuda::cupti::testing
