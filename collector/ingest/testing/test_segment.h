// A brrr segment in plain memory with a minimal writer, for tests, benchmarks and fuzzing of the
// reader: not the shim, just enough of rules R1-R4 to publish records, stacks and names.
//
// Thread-safety: a single writer thread; a reader may drain concurrently (R1/R2 are honoured).
// Must never: be linked into brrr or libbrrr.so.
#ifndef BRRR_COLLECTOR_INGEST_TESTING_TEST_SEGMENT_H_
#define BRRR_COLLECTOR_INGEST_TESTING_TEST_SEGMENT_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "shim/ring_format.h"
#include "shim/segment_layout.h"

namespace brrr::ingest::testing {

// The smallest geometry the layout accepts: fast to build, easy to fill.
ring::SegmentGeometry SmallGeometry();

class TestSegment {
 public:
  explicit TestSegment(const ring::SegmentGeometry& geometry = SmallGeometry(),
                       ring::ClockKind clock = ring::ClockKind::kMonotonicNs);

  void* base() const { return memory_.get(); }
  uint64_t size() const { return layout_.segment_size; }
  uint8_t* bytes() const { return static_cast<uint8_t*>(base()); }
  ring::SegmentHeader& header() const { return *static_cast<ring::SegmentHeader*>(base()); }
  const ring::SegmentLayout& layout() const { return layout_; }
  const ring::SegmentGeometry& geometry() const { return geometry_; }

  ring::RingHeader* thread_ring(uint32_t index) const;
  ring::RingHeader* device_ring() const;

  // R3: claims ring `index` for a thread and makes it active.
  void ActivateThread(uint32_t index, uint32_t tid, uint64_t pthread_id);
  // R3: the thread exited.
  void RetireThread(uint32_t index);
  // R1/R2: publishes a record; false (and `dropped` + 1) when the ring is full.
  bool AppendHost(uint32_t index, const ring::HostRecord& record);
  bool AppendDevice(const ring::DeviceRecord& record);
  // R4: stores a stack / name in the next free slot; returns its shim id (slot index + 1).
  uint32_t AddStack(const std::vector<uint64_t>& pcs, bool ready = true);
  uint32_t AddName(std::string_view name, bool ready = true);
  // R8: stores a Python code object in the next free code slot; returns its code id (index + 1).
  // Strings are cut to kMaxCodeStringLength, the line table to what is left of the slot.
  uint32_t AddCode(std::string_view filename, std::string_view qualname, uint32_t first_line,
                   const std::vector<uint8_t>& line_table, bool ready = true);
  // Makes a slot stored with ready = false ready.
  void MakeStackReady(uint32_t shim_id);

 private:
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  ring::SegmentGeometry geometry_;
  ring::SegmentLayout layout_;
  std::unique_ptr<void, FreeDeleter> memory_;
  uint32_t next_stack_ = 0;
  uint32_t next_name_ = 0;
  uint32_t next_code_ = 0;
};

// A valid host record for `api` entering at `enter` and leaving at `exit`.
ring::HostRecord MakeHostRecord(ring::Api api, uint64_t enter, uint64_t exit);

}  // namespace brrr::ingest::testing

#endif  // BRRR_COLLECTOR_INGEST_TESTING_TEST_SEGMENT_H_
