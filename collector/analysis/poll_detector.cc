// PollDetector state machine (see poll_detector.h).
//
// Must never: emit a run with fewer than kMinNotReady NotReady answers.
#include "collector/analysis/poll_detector.h"

#include "collector/analysis/stall_classifier.h"

namespace brrr {

std::optional<PollStall> PollDetector::Close(int64_t end_ns, uint32_t extra_queries) {
  active_ = false;
  if (not_ready_ < kMinNotReady) return std::nullopt;
  PollStall out = run_;
  out.end_ns = end_ns;
  out.queries = not_ready_ + extra_queries;
  return out;
}

std::optional<PollStall> PollDetector::OnCall(CallKey key, bool is_query, int32_t result,
                                              uint32_t stack_id, int64_t enter_ns,
                                              int64_t exit_ns) {
  if (!is_query) {
    if (!active_) return std::nullopt;
    return Close(last_exit_, 0);
  }
  if (result == kResultNotReady) {
    if (!active_ || key != run_.key) {
      std::optional<PollStall> previous;
      if (active_) previous = Close(last_exit_, 0);
      active_ = true;
      run_ = {key, stack_id, enter_ns, exit_ns, 0};
      not_ready_ = 1;
      last_exit_ = exit_ns;
      return previous;
    }
    ++not_ready_;
    last_exit_ = exit_ns;
    return std::nullopt;
  }
  // The query answered (done or an error): the run, if any, ends with this call.
  if (!active_) return std::nullopt;
  if (key != run_.key) return Close(last_exit_, 0);
  return Close(exit_ns, 1);
}

std::optional<PollStall> PollDetector::Flush() {
  if (!active_) return std::nullopt;
  return Close(last_exit_, 0);
}

}  // namespace brrr
