// BufferDelivery: a queue of completed buffers drained by one worker thread or by a flushing
// caller. Client callbacks always run with the lock released.
#include "buffer_delivery.h"

namespace simcuda::cupti {

BufferDelivery::~BufferDelivery() {
  DeliverAllNow();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_available_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BufferDelivery::Enqueue(const CompletedBuffer& buffer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(buffer);
    if (!worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
  }
  work_available_.notify_one();
}

void BufferDelivery::DeliverAllNow() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!queue_.empty()) {
    CompletedBuffer buffer = queue_.front();
    queue_.pop_front();
    DeliverUnlocked(lock, buffer);
  }
  if (worker_.joinable() && std::this_thread::get_id() == worker_.get_id()) return;
  const uint64_t started_before_flush = worker_started_;
  delivery_done_.wait(lock, [&] { return worker_finished_ >= started_before_flush; });
}

void BufferDelivery::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_available_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    CompletedBuffer buffer = queue_.front();
    queue_.pop_front();
    ++worker_started_;
    DeliverUnlocked(lock, buffer);
    ++worker_finished_;
    delivery_done_.notify_all();
  }
}

void BufferDelivery::DeliverUnlocked(std::unique_lock<std::mutex>& lock,
                                     const CompletedBuffer& buffer) {
  lock.unlock();
  if (buffer.complete != nullptr) {
    buffer.complete(/*context=*/nullptr, /*streamId=*/0, buffer.data, buffer.size,
                    buffer.valid_size);
  }
  lock.lock();
}

}  // namespace simcuda::cupti
