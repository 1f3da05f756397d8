// SubscriberSlot: the single CUPTI callback subscriber a process may have (before CUDA 13.3), as
// cuptiSubscribe / cuptiSubscribe_v2 / cuptiUnsubscribe see it. A second subscriber while one is
// active is refused with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED. The slot can start taken
// by a named foreign tool to simulate running under nsys/ncu. It delivers no callbacks (that is
// ApiCallbackDispatcher's job).
// Must never call into the engine or the subscriber's callback.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_SUBSCRIBER_SLOT_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_SUBSCRIBER_SLOT_H_

#include <cupti_callbacks.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

// The opaque handle type cupti_callbacks.h declares; defined here, by the library that owns it.
struct CUpti_Subscriber_st {
  CUpti_CallbackFunc callback;
  void* userdata;
};

namespace simcuda::cupti {

// Thread-safe.
class SubscriberSlot {
 public:
  SubscriberSlot() = default;
  SubscriberSlot(const SubscriberSlot&) = delete;
  SubscriberSlot& operator=(const SubscriberSlot&) = delete;
  ~SubscriberSlot();

  // Marks the slot as held by another tool (never released); its name is reported to v2 callers.
  void OccupyByForeignTool(const std::string& name);

  // name may be null. On refusal, the holder's name ("CUPTI for <name>") is copied into
  // old_name[0, old_name_size) when old_name is not null.
  CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                        void* userdata, const char* name, char* old_name, size_t old_name_size);
  // CUPTI_ERROR_INVALID_PARAMETER unless `subscriber` is the active subscriber.
  CUptiResult Unsubscribe(CUpti_SubscriberHandle subscriber);
  bool IsActive(CUpti_SubscriberHandle subscriber) const;
  // Frees the slot whoever holds it (cuptiFinalize), except a foreign tool.
  void Release();

 private:
  mutable std::mutex mu_;
  CUpti_SubscriberHandle active_ = nullptr;
  std::string holder_name_;
  bool foreign_ = false;
  // Handles are never reused while the slot lives, so a stale handle never matches a new one.
  std::vector<std::unique_ptr<CUpti_Subscriber_st>> handles_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_SUBSCRIBER_SLOT_H_
