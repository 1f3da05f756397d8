// Collects CUPTI API callbacks (cupti_callbacks.h) for the simulated-stack tests, as a profiler's
// callback subscriber would: one subscriber per process, every callback it receives copied into
// a log with the calling thread's id and a CLOCK_MONOTONIC timestamp. At ENTER it writes
// CorrelationDataFor(correlationId) into the call's correlationData slot; at EXIT it logs what
// it reads back. Thread-safe. Runtime-free (usable by static-runtime programs); must never call
// a CUDA function itself except through the optional inside-ENTER action.
#ifndef BRRR_TESTS_SIM_API_CALLBACK_LOG_H_
#define BRRR_TESTS_SIM_API_CALLBACK_LOG_H_

#include <cupti.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace brrr::simtest {

struct ApiCallbackEvent {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  CUpti_ApiCallbackSite site;
  std::string function_name;  // "<null>" when CUPTI gave none
  uint32_t correlation_id;
  uint64_t correlation_data;  // ENTER: the value written; EXIT: the value read back
  int32_t return_value;       // EXIT only (cudaError_t / CUresult)
  pid_t thread_id;            // gettid() of the thread the callback ran on
  uint64_t time_ns;           // CLOCK_MONOTONIC when the callback ran
  CUcontext context;
  uint32_t context_uid;
  bool function_params_null;
};

// The value the ENTER callback stores in correlationData for a call.
inline uint64_t CorrelationDataFor(uint32_t correlation_id) {
  return 0x5eed000000000000ull | correlation_id;
}

// cuptiSubscribe with the log's callback. Returns "" on success, else what failed.
std::string SubscribeApiCallbackLog(CUpti_SubscriberHandle* handle);

// Every event logged since the last call, in callback order (per thread), and forgets them.
std::vector<ApiCallbackEvent> TakeApiCallbackEvents();

// Runs `action` inside every ENTER callback (nullptr: none), after logging the event.
void SetInsideEnterAction(void (*action)());

// The events of one correlation id.
std::vector<ApiCallbackEvent> EventsWithCorrelation(const std::vector<ApiCallbackEvent>& events,
                                                    uint32_t correlation_id);

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_API_CALLBACK_LOG_H_
