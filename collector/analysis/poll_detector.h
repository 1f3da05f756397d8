// Detects query polling on one thread: a run of cudaStreamQuery/cudaEventQuery calls that return
// cudaErrorNotReady at least twice in a row (no other CUDA call in between) until the device is
// done. The whole run, from the first query's entry to the exit of the last query (the one that
// found the work finished, or the last NotReady one if the thread moved on) is one query_poll
// stall: the host spent that time waiting for the device, in small pieces.
//
// Per-thread state is O(1). Not thread-safe. Must never: report a single NotReady query (a
// pipelined loop that checks once per iteration is not polling).
#ifndef BRRR_COLLECTOR_ANALYSIS_POLL_DETECTOR_H_
#define BRRR_COLLECTOR_ANALYSIS_POLL_DETECTOR_H_

#include <cstdint>
#include <optional>

#include "collector/analysis/api_stats.h"
#include "collector/analysis/stall_classifier.h"

namespace brrr {

struct PollStall {
  CallKey key;  // the query API
  uint32_t stack_id;
  int64_t start_ns;
  int64_t end_ns;
  uint32_t queries;
};

class PollDetector {
 public:
  static constexpr uint32_t kMinNotReady = 2;

  bool active() const { return active_; }
  // Feeds the thread's next call; returns a finished polling run if this call ended one.
  std::optional<PollStall> OnCall(CallKey key, bool is_query, int32_t result, uint32_t stack_id,
                                  int64_t enter_ns, int64_t exit_ns);
  // Ends a run still open (end of data).
  std::optional<PollStall> Flush();

 private:
  std::optional<PollStall> Close(int64_t end_ns, uint32_t extra_queries);

  bool active_ = false;
  PollStall run_{};
  uint32_t not_ready_ = 0;
  int64_t last_exit_ = 0;
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_ANALYSIS_POLL_DETECTOR_H_
