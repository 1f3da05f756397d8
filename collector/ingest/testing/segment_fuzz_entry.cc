// The shared fuzz entry point for the segment reader. See segment_fuzz_entry.h.
//
// Must never: write outside the test segment while applying damage.
#include "collector/ingest/testing/segment_fuzz_entry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collector/events.h"
#include "collector/ingest/known_api.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest::testing {
namespace {

// Checks every decoded event against what the reader promises.
class InvariantSink : public EventSink {
 public:
  explicit InvariantSink(uint32_t stack_slots) : stack_slots_(stack_slots) {}
  void OnHostCall(const HostCall& c) override {
    ++events;
    if (c.api != ring::Api::kUnknown && !IsKnownApi(static_cast<uint16_t>(c.api)))
      Fail("host call with an unknown api");
    if (c.exit_ns < c.enter_ns) Fail("host call exits before it enters");
    if (static_cast<uint8_t>(c.copy_kind) > static_cast<uint8_t>(ring::CopyKind::kPeer))
      Fail("copy kind out of range");
    if (static_cast<uint8_t>(c.host_memory) > static_cast<uint8_t>(ring::HostMemory::kUnknown))
      Fail("host memory out of range");
    if (c.stack_id > stack_slots_) Fail("stack id beyond the slots");
  }
  void OnDeviceOp(const DeviceOp& op) override {
    ++events;
    if (op.end_ns < op.start_ns || op.start_ns < 0) Fail("device op times");
    if (op.name.size() > ring::kMaxNameLength) Fail("name too long");
  }
  void OnApiActivity(const ApiActivity& a) override {
    ++events;
    if (a.end_ns < a.start_ns) Fail("api activity times");
  }
  void OnSyncActivity(const SyncActivity& s) override {
    ++events;
    if (s.end_ns < s.start_ns) Fail("sync activity times");
  }
  void OnStack(const Stack& s) override {
    ++events;
    if (s.pcs.size() > ring::kMaxStackEntries) Fail("stack too deep");
    if (s.id == 0 || s.id > stack_slots_) Fail("stack id out of range");
    if (!seen_stacks_.insert(s.id).second) Fail("stack emitted twice");
  }
  void OnNvtx(const NvtxEvent& e) override {
    ++events;
    const auto op = static_cast<uint16_t>(e.op);
    if (op < static_cast<uint16_t>(ring::NvtxOp::kPush) ||
        op > static_cast<uint16_t>(ring::NvtxOp::kMark))
      Fail("nvtx op out of range");
    if (e.message.size() > ring::kMaxNameLength || e.domain.size() > ring::kMaxNameLength)
      Fail("nvtx name too long");
    if (e.range_id != 0 && e.op != ring::NvtxOp::kStart && e.op != ring::NvtxOp::kEnd)
      Fail("range id on a push/pop/mark");
  }
  void Fail(const char* what) {
    if (violation.empty()) violation = what;
  }

  uint64_t events = 0;
  std::string violation;

 private:
  uint32_t stack_slots_;
  std::set<uint32_t> seen_stacks_;
};

void FillValidSegment(TestSegment& seg) {
  const uint32_t stack = seg.AddStack({0x401000, 0x402000, 0x403000});
  const uint32_t late_stack = seg.AddStack({0x404000}, /*ready=*/false);
  const uint32_t name = seg.AddName("_Z6kernelPfi");
  seg.ActivateThread(0, 100, 0x7f0000001000);
  seg.ActivateThread(1, 101, 0x7f0000002000);
  for (uint32_t i = 0; i < 6; ++i) {
    ring::HostRecord r =
        MakeHostRecord(ring::Api::kCudaLaunchKernel, 1000 + i * 100, 1050 + i * 100);
    r.stack_id = i % 2 ? stack : late_stack;
    r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kHtoD);
    r.host_memory = static_cast<uint8_t>(ring::HostMemory::kPinned);
    seg.AppendHost(i % 2, r);
  }
  // NVTX records interleaved with thread 0's calls: push/pop, a start/end pair in a domain, a mark.
  const uint32_t message = seg.AddName("step");
  const uint32_t domain = seg.AddName("app");
  for (uint16_t op = 1; op <= 5; ++op) {
    ring::HostRecord n = MakeHostRecord(ring::Api::kUnknown, 1020 + op * 100, 1020 + op * 100);
    n.api = op;
    n.flags = ring::kRecordNvtx;
    n.target = message;
    n.stream = op >= 3 ? domain : 0;
    n.bytes = op == 3 || op == 4 ? 9 : 0;
    seg.AppendHost(0, n);
  }
  seg.RetireThread(1);
  for (uint8_t kind = 1; kind <= 7; ++kind) {
    ring::DeviceRecord d{};
    d.kind = kind;
    d.start = 2000 + kind;
    d.end = 3000 + kind;
    d.name_id = name;
    d.correlation_id = kind;
    seg.AppendDevice(d);
  }
}

}  // namespace

FuzzOutcome FuzzSegmentReader(const uint8_t* data, size_t size) {
  FuzzOutcome outcome;
  TestSegment seg;
  FillValidSegment(seg);
  uint64_t mapped = seg.size();
  size_t pos = 0;
  if (size > 0) {
    if (data[0] >= 128) mapped = (seg.size() * (data[0] - 127)) / 129 / 64 * 64;
    pos = 1;
  }
  // The reader works on a copy of exactly `mapped` bytes, so that a read past a truncated mapping
  // is a heap overflow the sanitizers catch.
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  const uint64_t alloc = std::max<uint64_t>(mapped, 64);
  std::unique_ptr<uint8_t, FreeDeleter> copy(static_cast<uint8_t*>(std::aligned_alloc(64, alloc)));
  std::memcpy(copy.get(), seg.bytes(), std::min(alloc, seg.size()));
  // Decode patches per phase.
  struct Patch {
    uint64_t offset;
    int width;
    uint64_t value;
  };
  std::vector<Patch> phases[4];
  while (pos + 4 <= size) {
    const uint8_t op = data[pos];
    const int width = 1 << (op & 3);
    const uint64_t offset =
        (data[pos + 1] | (uint64_t{data[pos + 2]} << 8) | (uint64_t{data[pos + 3]} << 16)) % alloc;
    pos += 4;
    uint64_t value = 0;
    for (int b = 0; b < width && pos < size; ++b, ++pos) value |= uint64_t{data[pos]} << (8 * b);
    phases[op >> 6].push_back({offset, width, value});
  }
  const auto apply = [&](int phase) {
    for (const Patch& p : phases[phase]) {
      const uint64_t width = std::min<uint64_t>(p.width, alloc - p.offset);
      std::memcpy(copy.get() + p.offset, &p.value, width);  // little-endian host
    }
  };
  apply(0);
  auto reader = SegmentReader::Open(copy.get(), mapped, std::chrono::microseconds(0));
  if (!reader.ok()) return outcome;
  outcome.opened = true;
  InvariantSink sink(seg.geometry().stack_slots);
  const uint64_t per_drain_limit =
      uint64_t{seg.geometry().max_threads} * seg.geometry().ring_capacity +
      seg.geometry().device_capacity;
  for (int phase = 1; phase <= 3; ++phase) {
    apply(phase);
    const DrainResult r = (*reader)->Drain(sink);
    if (r.host_records + r.device_records > per_drain_limit) sink.Fail("drained beyond capacity");
  }
  (void)(*reader)->ReadRunInfo();
  outcome.events = sink.events;
  outcome.violation = sink.violation;
  return outcome;
}

}  // namespace brrr::ingest::testing
