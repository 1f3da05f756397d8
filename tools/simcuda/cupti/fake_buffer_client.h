// Test helper: a CUPTI client's buffer callbacks (bufferRequested / bufferCompleted) backed by
// process-wide state, since the callbacks carry no user data. Records which buffers came back, on
// which thread, with how many valid bytes, and copies the records out. Test-only; never linked
// into libcupti.
#ifndef BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_BUFFER_CLIENT_H_
#define BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_BUFFER_CLIENT_H_

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace simcuda::cupti::testing {

struct ReturnedBuffer {
  std::thread::id thread;
  size_t size = 0;
  size_t valid_size = 0;
  std::vector<uint8_t> bytes;  // the valid bytes
};

// What bufferRequested hands out. buffer_size 0: no buffer (null).
struct BufferPolicy {
  size_t buffer_size = 4096;
  size_t max_records = 0;
  int complete_delay_ms = 0;  // bufferCompleted sleeps this long first (a slow client)
};

// Resets state and sets the policy. Not thread-safe with concurrent callbacks.
void ResetFakeClient(const BufferPolicy& policy);

// The callbacks to register.
void RequestBuffer(uint8_t** buffer, size_t* size, size_t* max_num_records);
void CompleteBuffer(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size,
                    size_t valid_size);

std::vector<ReturnedBuffer> ReturnedBuffers();
size_t RequestedBufferCount();
// Buffers handed out and not yet returned.
size_t OutstandingBufferCount();

// Every record of every returned buffer in return order, each copied into its own byte vector.
// Fails the current test if a buffer does not iterate cleanly to CUPTI_ERROR_MAX_LIMIT_REACHED.
std::vector<std::vector<uint8_t>> ReturnedRecords();

template <typename Record>
Record As(const std::vector<uint8_t>& bytes) {
  Record record;
  __builtin_memcpy(&record, bytes.data(), sizeof(record));
  return record;
}

CUpti_ActivityKind KindOf(const std::vector<uint8_t>& bytes);

}  // namespace simcuda::cupti::testing

#endif  // BRRR_TOOLS_SIMCUDA_CUPTI_FAKE_BUFFER_CLIENT_H_
