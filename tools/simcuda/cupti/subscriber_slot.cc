// SubscriberSlot: one-subscriber bookkeeping. Callbacks are stored, never invoked.
#include "subscriber_slot.h"

#include <algorithm>
#include <cstring>

namespace simcuda::cupti {

SubscriberSlot::~SubscriberSlot() = default;

void SubscriberSlot::OccupyByForeignTool(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  foreign_ = true;
  holder_name_ = "CUPTI for " + name;
}

CUptiResult SubscriberSlot::Subscribe(CUpti_SubscriberHandle* subscriber,
                                      CUpti_CallbackFunc callback, void* userdata, const char* name,
                                      char* old_name, size_t old_name_size) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(mu_);
  if (foreign_ || active_ != nullptr) {
    if (old_name != nullptr && old_name_size > 0) {
      const size_t n = std::min(holder_name_.size(), old_name_size - 1);
      std::memcpy(old_name, holder_name_.data(), n);
      old_name[n] = '\0';
    }
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  handles_.push_back(
      std::make_unique<CUpti_Subscriber_st>(CUpti_Subscriber_st{callback, userdata}));
  active_ = handles_.back().get();
  holder_name_ = std::string("CUPTI for ") + (name != nullptr ? name : "unnamed subscriber");
  *subscriber = active_;
  return CUPTI_SUCCESS;
}

CUptiResult SubscriberSlot::Unsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard<std::mutex> lock(mu_);
  if (subscriber == nullptr || subscriber != active_) return CUPTI_ERROR_INVALID_PARAMETER;
  active_ = nullptr;
  holder_name_.clear();
  return CUPTI_SUCCESS;
}

bool SubscriberSlot::IsActive(CUpti_SubscriberHandle subscriber) const {
  std::lock_guard<std::mutex> lock(mu_);
  return subscriber != nullptr && subscriber == active_;
}

void SubscriberSlot::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  if (foreign_) return;
  active_ = nullptr;
  holder_name_.clear();
}

}  // namespace simcuda::cupti
