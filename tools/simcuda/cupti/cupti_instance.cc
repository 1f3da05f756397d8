// CuptiInstance: the leaked singleton and the only code that calls simcuda_set_activity_sink.
#include "cupti_instance.h"

#include <cstdlib>

#include "attach_costs.h"
#include "simcuda/activity_sink.h"

namespace simcuda::cupti {

CuptiInstance& CuptiInstance::Get() {
  static CuptiInstance* const instance = new CuptiInstance();  // never destroyed, see header
  return *instance;
}

CuptiInstance::CuptiInstance() : callbacks_(&simcuda_set_api_callback_sink) {
  const char* foreign = std::getenv(kForeignSubscriberEnv);
  if (foreign != nullptr && foreign[0] != '\0') subscribers_.OccupyByForeignTool(foreign);
}

CUptiResult CuptiInstance::EnableKind(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  const CUptiResult result = recorder_.Enable(kind);
  UpdateSinkRegistrationLocked();
  return result;
}

CUptiResult CuptiInstance::DisableKind(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  const CUptiResult result = recorder_.Disable(kind);
  UpdateSinkRegistrationLocked();
  return result;
}

CUptiResult CuptiInstance::Finalize() {
  // The real cuptiFinalize waits for the device's queued work (29.7 ms with 30 ms queued, on an
  // H100: tools/gpu/workloads/attach_probe.cu); its records are dropped all the same.
  simcuda_wait_queued_work();
  SpendFinalizeCost();
  {
    std::lock_guard<std::mutex> lock(mu_);
    recorder_.DisableAll();
    finalizing_ = true;
    UpdateSinkRegistrationLocked();
    finalizing_ = false;
    recorder_.ForgetInFlight();  // unregistered: their completions will not come
    recorder_.ResetTimestampCallback();
    recorder_.EnableLatencyTimestamps(false);
  }
  if (recorder_.buffers().HasCallbacks()) recorder_.buffers().FlushAll();
  subscribers_.Release();
  callbacks_.DetachAny();
  return CUPTI_SUCCESS;
}

// Registered from the first enabled kind until Finalize, not only while a kind is on: work
// queued while its kind was on is still delivered when it completes after the kind went off (real
// CUPTI decides at launch; the recorder's WasEnabledAt), e.g. a window of sampled tracing whose
// kernels run after it closed.
void CuptiInstance::UpdateSinkRegistrationLocked() {
  const bool want = recorder_.AnyEnabled() || (sink_registered_ && !finalizing_);
  if (want == sink_registered_) return;
  simcuda_set_activity_sink(want ? &recorder_ : nullptr);
  sink_registered_ = want;
}

}  // namespace simcuda::cupti
