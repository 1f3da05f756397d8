// Test helper: stands in for the engine's simcuda_set_activity_sink,
// simcuda_set_api_callback_sink and simcuda_wait_queued_work (defined in
// fake_engine_registration.cc for the test binary only) and remembers what was registered.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_ENGINE_REGISTRATION_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_ENGINE_REGISTRATION_H_

#include "simcuda/activity_sink.h"

namespace simcuda::cupti::testing {

// The sink most recently registered (nullptr after unregistering), and the number of calls.
ActivitySink* RegisteredSink();
int SinkRegistrationCalls();
// The API callback sink most recently registered (nullptr after unregistering).
ApiCallbackSink* RegisteredApiCallbackSink();
// How many times the CUPTI side waited for the device's queued work (simcuda_wait_queued_work).
int QueuedWorkWaits();

}  // namespace simcuda::cupti::testing

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_ENGINE_REGISTRATION_H_
