// Test helper: fake CUPTI client buffer callbacks. Buffers are 8-byte aligned heap blocks, filled
// with 0xAB so stale bytes would show; every one handed out must come back.
#include "fake_buffer_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "record_layout.h"

namespace simcuda::cupti::testing {
namespace {

struct State {
  std::mutex mu;
  BufferPolicy policy;
  std::vector<ReturnedBuffer> returned;
  size_t requested = 0;
  size_t outstanding = 0;
};

State& GetState() {
  static State* state = new State();
  return *state;
}

}  // namespace

void ResetFakeClient(const BufferPolicy& policy) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.policy = policy;
  s.returned.clear();
  s.requested = 0;
  s.outstanding = 0;
}

void RequestBuffer(uint8_t** buffer, size_t* size, size_t* max_num_records) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.requested;
  *max_num_records = s.policy.max_records;
  if (s.policy.buffer_size == 0) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  const size_t rounded = (s.policy.buffer_size + 7) / 8 * 8;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, rounded));
  std::memset(*buffer, 0xAB, rounded);
  *size = s.policy.buffer_size;
  ++s.outstanding;
}

void CompleteBuffer(CUcontext /*context*/, uint32_t /*stream_id*/, uint8_t* buffer, size_t size,
                    size_t valid_size) {
  State& s = GetState();
  int delay_ms;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    delay_ms = s.policy.complete_delay_ms;
  }
  if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  ReturnedBuffer returned;
  returned.thread = std::this_thread::get_id();
  returned.size = size;
  returned.valid_size = valid_size;
  returned.bytes.assign(buffer, buffer + valid_size);
  std::free(buffer);
  std::lock_guard<std::mutex> lock(s.mu);
  s.returned.push_back(std::move(returned));
  --s.outstanding;
}

std::vector<ReturnedBuffer> ReturnedBuffers() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.returned;
}

size_t RequestedBufferCount() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.requested;
}

size_t OutstandingBufferCount() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.outstanding;
}

std::vector<std::vector<uint8_t>> ReturnedRecords() {
  std::vector<std::vector<uint8_t>> records;
  for (ReturnedBuffer& buffer : ReturnedBuffers()) {
    if (buffer.bytes.empty()) continue;
    CUpti_Activity* record = nullptr;
    CUptiResult result;
    while ((result = NextRecord(buffer.bytes.data(), buffer.bytes.size(), &record)) ==
           CUPTI_SUCCESS) {
      const auto* begin = reinterpret_cast<const uint8_t*>(record);
      records.emplace_back(begin, begin + RecordSize(record->kind));
    }
    EXPECT_EQ(result, CUPTI_ERROR_MAX_LIMIT_REACHED);
  }
  return records;
}

CUpti_ActivityKind KindOf(const std::vector<uint8_t>& bytes) {
  CUpti_ActivityKind kind;
  std::memcpy(&kind, bytes.data(), sizeof(kind));
  return kind;
}

}  // namespace simcuda::cupti::testing
