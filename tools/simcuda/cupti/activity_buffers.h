// ActivityBuffers: writes activity records into buffers the client provides through
// bufferRequested, hands full buffers to BufferDelivery (worker thread), and on FlushAll returns
// partially filled ones too, synchronously. Counts records dropped for want of a buffer.
// Must never call into the engine. bufferRequested runs under this class's lock: a client's
// bufferRequested must not call cuptiActivityFlushAll (real CUPTI forbids it as well).
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_BUFFERS_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_BUFFERS_H_

#include <cupti_activity.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "buffer_delivery.h"

namespace simcuda::cupti {

// Thread-safe: records may be appended from any number of threads at once.
class ActivityBuffers {
 public:
  ActivityBuffers() = default;
  ActivityBuffers(const ActivityBuffers&) = delete;
  ActivityBuffers& operator=(const ActivityBuffers&) = delete;
  // Returns every buffer still held, even an empty one, then stops the delivery worker.
  ~ActivityBuffers();

  // CUPTI_ERROR_INVALID_PARAMETER if either is null.
  CUptiResult RegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                CUpti_BuffersCallbackCompleteFunc complete);
  bool HasCallbacks() const;

  // Copies one record (its size a multiple of 8) into the current buffer, requesting one when
  // needed. Without callbacks or a usable buffer the record is dropped and counted.
  void Append(const void* record, size_t size);

  // Delivers every buffer holding records, full or not, before returning. The completion callback
  // may run on the calling thread. CUPTI_ERROR_INVALID_OPERATION without registered callbacks.
  CUptiResult FlushAll();

  // Records dropped since the previous call; resets the count (as real CUPTI does).
  size_t TakeDroppedCount();

  // cuptiActivityFlushPeriod: the period (ms, 0 = CUPTI's heuristics) at which real CUPTI's worker
  // wakes to deliver buffers. As documented there, a periodic flush returns only full buffers with
  // every record complete; a partly filled buffer waits for a flush (cuptiActivityFlushAll, any
  // flag) or exit. Here full buffers go to the worker at once, which is within any period.
  void SetFlushPeriodMs(uint32_t ms) { flush_period_ms_.store(ms, std::memory_order_relaxed); }
  uint32_t FlushPeriodMs() const { return flush_period_ms_.load(std::memory_order_relaxed); }

 private:
  struct Current {
    uint8_t* data = nullptr;
    size_t size = 0;
    size_t used = 0;
    size_t max_records = 0;  // 0: fill
    size_t records = 0;
  };

  // Both run under mu_.
  bool EnsureRoomLocked(size_t record_size);
  void HandOffCurrentLocked();

  mutable std::mutex mu_;
  CUpti_BuffersCallbackRequestFunc request_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete_ = nullptr;
  Current current_;
  std::atomic<size_t> dropped_{0};
  std::atomic<uint32_t> flush_period_ms_{0};
  BufferDelivery delivery_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_ACTIVITY_BUFFERS_H_
