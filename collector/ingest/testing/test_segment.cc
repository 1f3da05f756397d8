// The plain-memory test segment. See test_segment.h.
//
// Must never: write a record without the release store that publishes it.
#include "collector/ingest/testing/test_segment.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace brrr::ingest::testing {

ring::SegmentGeometry SmallGeometry() {
  ring::SegmentGeometry g;
  g.max_threads = 2;
  g.ring_capacity = ring::kMinRingCapacity;
  g.device_capacity = ring::kMinDeviceCapacity;
  g.stack_slots = ring::kMinTableSlots;
  g.name_slots = ring::kMinTableSlots;
  g.code_slots = ring::kMinTableSlots;
  return g;
}

TestSegment::TestSegment(const ring::SegmentGeometry& geometry, ring::ClockKind clock)
    : geometry_(geometry), layout_(ring::ComputeLayout(geometry)) {
  memory_.reset(std::aligned_alloc(ring::kSegmentPageSize, layout_.segment_size));
  std::memset(memory_.get(), 0, layout_.segment_size);
  ring::WriteGeometry(geometry, &header());
  header().pid = 4242;
  header().clock_kind = clock;
  header().start_mono_ns = 1'000;
}

ring::RingHeader* TestSegment::thread_ring(uint32_t index) const {
  return ring::ThreadRingAt(base(), layout_, index);
}

ring::RingHeader* TestSegment::device_ring() const { return ring::DeviceRingAt(base(), layout_); }

void TestSegment::ActivateThread(uint32_t index, uint32_t tid, uint64_t pthread_id) {
  ring::RingHeader* ring = thread_ring(index);
  uint32_t expected = static_cast<uint32_t>(ring::RingState::kFree);
  ring->state.compare_exchange_strong(expected, static_cast<uint32_t>(ring::RingState::kClaimed),
                                      std::memory_order_acq_rel);
  ring->tid = tid;
  ring->pthread_id = pthread_id;
  ++ring->generation;
  ring->state.store(static_cast<uint32_t>(ring::RingState::kActive), std::memory_order_release);
}

void TestSegment::RetireThread(uint32_t index) {
  thread_ring(index)->state.store(static_cast<uint32_t>(ring::RingState::kRetired),
                                  std::memory_order_release);
}

namespace {

template <typename Record>
bool Append(ring::RingHeader* ring, Record* records, uint32_t capacity, const Record& record) {
  const uint64_t write = ring->write_index.load(std::memory_order_relaxed);
  const uint64_t read = ring->read_index.load(std::memory_order_acquire);
  if (write - read >= capacity) {
    ring->dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  records[write & (capacity - 1)] = record;
  ring->write_index.store(write + 1, std::memory_order_release);
  return true;
}

}  // namespace

bool TestSegment::AppendHost(uint32_t index, const ring::HostRecord& record) {
  ring::RingHeader* ring = thread_ring(index);
  return Append(ring, ring::ThreadRecords(ring), geometry_.ring_capacity, record);
}

bool TestSegment::AppendDevice(const ring::DeviceRecord& record) {
  ring::RingHeader* ring = device_ring();
  return Append(ring, ring::DeviceRecords(ring), geometry_.device_capacity, record);
}

uint32_t TestSegment::AddStack(const std::vector<uint64_t>& pcs, bool ready) {
  ring::StackSlot& slot = ring::StackSlotsAt(base(), layout_)[next_stack_];
  slot.hash.store(0x9e3779b97f4a7c15ull + next_stack_, std::memory_order_relaxed);
  slot.depth = static_cast<uint32_t>(std::min<size_t>(pcs.size(), ring::kMaxStackEntries));
  std::copy_n(pcs.begin(), slot.depth, slot.pcs);
  if (ready) slot.ready.store(1, std::memory_order_release);
  return ++next_stack_;
}

void TestSegment::MakeStackReady(uint32_t shim_id) {
  ring::StackSlotsAt(base(), layout_)[shim_id - 1].ready.store(1, std::memory_order_release);
}

uint32_t TestSegment::AddName(std::string_view name, bool ready) {
  ring::NameSlot& slot = ring::NameSlotsAt(base(), layout_)[next_name_];
  slot.hash.store(0x51ed27ull + next_name_, std::memory_order_relaxed);
  slot.length = static_cast<uint16_t>(std::min<size_t>(name.size(), ring::kMaxNameLength));
  std::memcpy(slot.text, name.data(), slot.length);
  if (ready) slot.ready.store(1, std::memory_order_release);
  return ++next_name_;
}

uint32_t TestSegment::AddCode(std::string_view filename, std::string_view qualname,
                             uint32_t first_line, const std::vector<uint8_t>& line_table,
                             bool ready) {
  ring::CodeSlot& slot = ring::CodeSlotsAt(base(), layout_)[next_code_];
  slot.hash.store(0xc0de0000ull + next_code_, std::memory_order_relaxed);
  slot.first_line = first_line;
  slot.filename_length =
      static_cast<uint16_t>(std::min<size_t>(filename.size(), ring::kMaxCodeStringLength));
  slot.qualname_length =
      static_cast<uint16_t>(std::min<size_t>(qualname.size(), ring::kMaxCodeStringLength));
  char* out = slot.data;
  std::memcpy(out, filename.data(), slot.filename_length);
  out += slot.filename_length;
  std::memcpy(out, qualname.data(), slot.qualname_length);
  out += slot.qualname_length;
  const size_t room = ring::kCodeSlotData - slot.filename_length - slot.qualname_length;
  slot.linetable_length = static_cast<uint32_t>(std::min(line_table.size(), room));
  slot.linetable_full_length = static_cast<uint32_t>(line_table.size());
  if (slot.linetable_length > 0) std::memcpy(out, line_table.data(), slot.linetable_length);
  if (ready) slot.ready.store(1, std::memory_order_release);
  return ++next_code_;
}

ring::HostRecord MakeHostRecord(ring::Api api, uint64_t enter, uint64_t exit) {
  ring::HostRecord r{};
  r.enter = enter;
  r.exit = exit;
  r.api = static_cast<uint16_t>(api);
  return r;
}

}  // namespace brrr::ingest::testing
