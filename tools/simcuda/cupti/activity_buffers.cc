// ActivityBuffers: fills client buffers record by record; full buffers go to the delivery worker,
// partial ones on flush. The only place that calls the client's bufferRequested.
#include "activity_buffers.h"

#include <cstring>

#include "record_layout.h"

namespace simcuda::cupti {

ActivityBuffers::~ActivityBuffers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_.data != nullptr) HandOffCurrentLocked();  // even empty: it is the client's
  }
  delivery_.DeliverAllNow();
}

CUptiResult ActivityBuffers::RegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                               CUpti_BuffersCallbackCompleteFunc complete) {
  if (request == nullptr || complete == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(mu_);
  request_ = request;
  complete_ = complete;
  return CUPTI_SUCCESS;
}

bool ActivityBuffers::HasCallbacks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return request_ != nullptr;
}

void ActivityBuffers::Append(const void* record, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!EnsureRoomLocked(size)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::memcpy(current_.data + current_.used, record, size);
  current_.used += size;
  ++current_.records;
  const bool at_record_limit =
      current_.max_records != 0 && current_.records >= current_.max_records;
  if (at_record_limit || current_.size - current_.used < kSmallestRecordSize) {
    HandOffCurrentLocked();
  }
}

bool ActivityBuffers::EnsureRoomLocked(size_t record_size) {
  if (current_.data != nullptr && current_.size - current_.used >= record_size) return true;
  if (current_.data != nullptr) HandOffCurrentLocked();
  if (request_ == nullptr) return false;
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t max_records = 0;
  request_(&data, &size, &max_records);
  if (data == nullptr) return false;
  if (size < record_size) {
    // Unusable: give it straight back, empty, so the client can reuse or free it.
    delivery_.Enqueue(CompletedBuffer{complete_, data, size, 0});
    return false;
  }
  current_ = Current{data, size, 0, max_records, 0};
  return true;
}

void ActivityBuffers::HandOffCurrentLocked() {
  delivery_.Enqueue(CompletedBuffer{complete_, current_.data, current_.size, current_.used});
  current_ = Current{};
}

CUptiResult ActivityBuffers::FlushAll() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (request_ == nullptr) return CUPTI_ERROR_INVALID_OPERATION;
    if (current_.data != nullptr && current_.used > 0) HandOffCurrentLocked();
  }
  delivery_.DeliverAllNow();
  return CUPTI_SUCCESS;
}

size_t ActivityBuffers::TakeDroppedCount() {
  return dropped_.exchange(0, std::memory_order_relaxed);
}

}  // namespace simcuda::cupti
