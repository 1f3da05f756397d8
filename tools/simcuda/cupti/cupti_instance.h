// CuptiInstance: the process-wide state behind the exported CUPTI functions: one ActivityRecorder,
// one SubscriberSlot, one ApiCallbackDispatcher (the engine's API callback sink), and the
// recorder's registration as the engine's activity sink (registered when the first kind is enabled,
// unregistered when the last is disabled or at finalize). The instance is created on first use and
// never destroyed, so device threads and process exit never see it half torn down. Must never be
// called from inside the sink.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_CUPTI_INSTANCE_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_CUPTI_INSTANCE_H_

#include <cupti_activity.h>

#include <mutex>

#include "activity_recorder.h"
#include "api_callback_dispatcher.h"
#include "subscriber_slot.h"

namespace simcuda::cupti {

// Environment variable: when set and non-empty, the subscriber slot starts held by a tool of that
// name, as under nsys or ncu (cuptiSubscribe then fails with MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED).
inline constexpr char kForeignSubscriberEnv[] = "SIMCUDA_CUPTI_FOREIGN_SUBSCRIBER";

// Thread-safe.
class CuptiInstance {
 public:
  static CuptiInstance& Get();

  ActivityRecorder& recorder() { return recorder_; }
  SubscriberSlot& subscribers() { return subscribers_; }
  ApiCallbackDispatcher& callbacks() { return callbacks_; }

  CUptiResult EnableKind(CUpti_ActivityKind kind);
  CUptiResult DisableKind(CUpti_ActivityKind kind);
  // Disables every kind, unregisters the sink, delivers pending buffers (when callbacks are
  // registered), restores the default clock, stops API callbacks and frees the subscriber slot.
  CUptiResult Finalize();

 private:
  CuptiInstance();
  void UpdateSinkRegistrationLocked();

  std::mutex mu_;  // serializes enable/disable/finalize and sink (un)registration
  bool sink_registered_ = false;
  bool finalizing_ = false;  // Finalize: the sink goes whatever was enabled before
  ActivityRecorder recorder_;
  SubscriberSlot subscribers_;
  ApiCallbackDispatcher callbacks_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_CUPTI_INSTANCE_H_
