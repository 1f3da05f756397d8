// InFlightWork (see in_flight_work.h).
#include "in_flight_work.h"

namespace simcuda::cupti {

void InFlightWork::Queued(uint64_t work_id, const Work& work) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_[work_id] = Entry{work, false};
  size_.store(entries_.size(), std::memory_order_relaxed);
}

bool InFlightWork::Completed(uint64_t work_id) {
  if (size_.load(std::memory_order_relaxed) == 0) return true;  // nothing tracked: the usual case
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = entries_.find(work_id);
  if (it == entries_.end()) return true;
  const bool handed_back = it->second.handed_back;
  entries_.erase(it);
  size_.store(entries_.size(), std::memory_order_relaxed);
  return !handed_back;
}

std::vector<InFlightWork::Work> InFlightWork::HandBack() {
  std::vector<Work> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, entry] : entries_) {
    if (entry.handed_back) continue;
    entry.handed_back = true;
    out.push_back(entry.work);
  }
  return out;
}

void InFlightWork::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  size_.store(0, std::memory_order_relaxed);
}

size_t InFlightWork::SizeForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace simcuda::cupti
