// InFlightWork: device work queued while its activity kind was on and not completed yet, kept for
// what real CUPTI does on a forced flush (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)):
// it hands back every record in its buffers, those of work still queued or running included, with
// no timestamps, and never delivers them again (pytorch/pytorch#195844: "a still-running kernel
// handed back with a zero end timestamp and never re-delivered"; the CUPTI docs: "a value of 0 for
// both the start and end timestamps indicates that timestamp information could not be collected").
// So HandBack returns the work not handed back yet and marks it; its completion is then dropped.
//
// Thread-safe. Must never call into the engine (Queued runs under the engine's lock).
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_IN_FLIGHT_WORK_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_IN_FLIGHT_WORK_H_

#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "simcuda/activity_sink.h"

namespace simcuda::cupti {

class InFlightWork {
 public:
  // One piece of queued work: the event its completion would carry (times 0) and the kind its
  // record has.
  struct Work {
    CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID;  // KERNEL/CONCURRENT_KERNEL/MEMCPY/MEMSET
    KernelEvent kernel{};
    MemcpyEvent memcpy{};
    MemsetEvent memset{};
  };

  void Queued(uint64_t work_id, const Work& work);
  // The work completed: true when its record is to be written (it was not handed back).
  bool Completed(uint64_t work_id);
  // The work not handed back yet, which is marked handed back (its completion will be dropped).
  std::vector<Work> HandBack();
  // CUPTI was finalized: nothing is in flight for it any more.
  void Clear();
  size_t SizeForTest() const;

 private:
  struct Entry {
    Work work;
    bool handed_back = false;
  };
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::atomic<size_t> size_{0};  // entries_.size(), read without the lock
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_IN_FLIGHT_WORK_H_
