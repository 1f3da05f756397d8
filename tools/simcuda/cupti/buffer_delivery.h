// BufferDelivery: hands completed activity buffers to the client's bufferCompleted callback, from
// a CUPTI-owned worker thread (as real CUPTI does) or, on DeliverAllNow, on the calling thread.
// Every enqueued buffer is delivered exactly once. Must never call into the engine, and never call
// a client callback while holding its lock.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_BUFFER_DELIVERY_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_BUFFER_DELIVERY_H_

#include <cupti_activity.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

namespace simcuda::cupti {

// A buffer the client gave us, to be returned with valid_size bytes of records.
struct CompletedBuffer {
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t valid_size = 0;
};

// Thread-safe. The worker thread starts with the first Enqueue.
class BufferDelivery {
 public:
  BufferDelivery() = default;
  BufferDelivery(const BufferDelivery&) = delete;
  BufferDelivery& operator=(const BufferDelivery&) = delete;
  // Delivers what is still queued on the destroying thread, then stops the worker.
  ~BufferDelivery();

  // Queues a buffer for the worker thread. Never blocks on a client callback.
  void Enqueue(const CompletedBuffer& buffer);

  // Delivers every queued buffer on the calling thread and waits until a delivery the worker has
  // in progress has returned. Called from the worker itself (a client callback that flushes), it
  // does not wait for its own delivery.
  void DeliverAllNow();

 private:
  void WorkerLoop();
  // Runs one client callback with lock released; re-locks before returning.
  void DeliverUnlocked(std::unique_lock<std::mutex>& lock, const CompletedBuffer& buffer);

  std::mutex mu_;
  std::condition_variable work_available_;
  std::condition_variable delivery_done_;
  std::deque<CompletedBuffer> queue_;
  // Deliveries the worker has started / finished; a flush waits for those started before it.
  uint64_t worker_started_ = 0;
  uint64_t worker_finished_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace simcuda::cupti

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_BUFFER_DELIVERY_H_
