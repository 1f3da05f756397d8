// Blocking copies seen through a CUPTI callback (static cudart, driver API) wait here for their
// CUPTI memcpy record before their stall reason is decided: unlike a hooked call, such a call does
// not carry its direction or whether its host memory is pageable; the memcpy record with the same
// correlation id does. d2h_copy vs sync_copy and pageable_async_copy vs async_copy_blocked depend
// on it. A copy whose record never comes is decided without it after `window_ns` or at Finish.
//
// Not thread-safe. Must never: hold more than `max_pending` copies (over the cap a copy is decided
// at once), or decide one copy twice.
#ifndef BRRR_COLLECTOR_ANALYSIS_PENDING_COPY_STALLS_H_
#define BRRR_COLLECTOR_ANALYSIS_PENDING_COPY_STALLS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "collector/analysis/api_stats.h"
#include "collector/analysis/stall_classifier.h"
#include "collector/events.h"

namespace brrr {

class PendingCopyStalls {
 public:
  struct Copy {
    CallKey key;
    BlockingCallFacts facts;  // facts.cupti_name is ignored: see cupti_name
    std::string cupti_name;   // the function's CUPTI name when facts.api is kUnknown
    uint32_t stack_id = 0;
    int64_t duration_ns = 0;
    int64_t seen_at = 0;  // event time when held (for expiry)
    uint32_t phase_tag = 0;  // the NVTX phases of the call (PhaseStats::TagFor)
  };
  // Receives each decided copy with its reason.
  using Decide = std::function<void(const Copy&, StallReason)>;

  PendingCopyStalls(int64_t window_ns, size_t max_pending, Decide decide);

  // Holds the copy until its memcpy record (correlation id) arrives; decides it now when full.
  void Hold(uint32_t correlation_id, const Copy& copy);
  // A CUPTI memcpy record: decides the copy waiting for it, if any.
  void OnMemcpy(const DeviceOp& op);
  // Decides the copies held since before `now - window_ns`.
  void Expire(int64_t now);
  // Decides everything still held.
  void Finish();
  size_t size() const { return held_.size(); }

  // Takes `other`'s pending copies, keeping this one's decision callback (a snapshot's copy of
  // the analysis decides into its own statistics).
  void CopyPendingFrom(const PendingCopyStalls& other) {
    Decide keep = std::move(decide_);
    *this = other;
    decide_ = std::move(keep);
  }

 private:
  void DecideNow(const Copy& copy);

  int64_t window_ns_;
  size_t max_pending_;
  Decide decide_;
  absl::flat_hash_map<uint32_t, Copy> held_;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_PENDING_COPY_STALLS_H_
