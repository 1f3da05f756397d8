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
#include "collector/ingest/clock_pair.h"
#include "collector/ingest/code_table.h"
#include "collector/ingest/known_api.h"
#include "collector/symbolize/python_line_table.h"
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
    if (c.capture_ns < 0) Fail("negative capture time");
  }
  void OnDeviceOp(const DeviceOp& op) override {
    ++events;
    if (op.end_ns < op.start_ns || op.start_ns < 0) Fail("device op times");
    if (op.untimed && (op.start_ns != 0 || op.end_ns != 0)) Fail("untimed op with times");
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
  void OnCounterSample(const CounterSampleEvent& e) override {
    ++events;
    if (e.end_ns < e.start_ns || e.start_ns < 0) Fail("counter sample times");
    for (double v : {e.sm_pct, e.dram_pct, e.active_pct}) {
      if (v == v && (v < 0 || v > ring::kMaxCounterMilliPct / 1000.0)) Fail("counter value");
    }
    if (!e.aligned && e.clock_basis != CounterClockBasis::kUndecided) Fail("unaligned sample with a basis");
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

// Every code slot the reader can reach (and ids beyond the table), read and decoded as the
// report's symbolization would: names stay valid UTF-8 within their limits, tables within the
// slot, and the line decoder (run on every format) never reads outside the copied table.
void CheckCodes(SegmentReader& reader, uint32_t code_slots, InvariantSink& sink) {
  for (uint32_t id = 0; id <= code_slots + 1; ++id) {
    const PythonCode* code = reader.codes().Lookup(id);
    if (code == nullptr) continue;
    ++sink.events;
    if (SanitizeUtf8(code->filename) != code->filename ||
        SanitizeUtf8(code->qualname) != code->qualname)
      sink.Fail("code name not valid UTF-8");
    if (code->filename.size() > 3 * ring::kMaxCodeStringLength ||
        code->qualname.size() > 3 * ring::kMaxCodeStringLength)
      sink.Fail("code name too long");
    if (code->line_table.size() > ring::kCodeSlotData) sink.Fail("line table beyond the slot");
    using symbolize::LineTable;
    using symbolize::LineTableFormat;
    for (const LineTableFormat format :
         {LineTableFormat::kLnotab, LineTableFormat::kPep626, LineTableFormat::kLocations}) {
      LineTable table;
      table.format = format;
      table.bytes = absl::MakeConstSpan(code->line_table);
      table.truncated = code->line_table_truncated;
      table.first_line = code->first_line;
      for (uint32_t offset : {0u, 2u, 6u, 40u, 0xFFFFFFFEu}) {
        const std::optional<uint32_t> line = symbolize::PythonLine(table, offset);
        if (line.has_value() && *line == 0) sink.Fail("line 0 decoded");
      }
    }
  }
}

void FillValidSegment(TestSegment& seg) {
  // Python code objects (a 3.11+ location table: line 31 for 8 bytes, then line 33) and a stack
  // with native PCs then tagged Python entries.
  const uint32_t log_loss = seg.AddCode("/srv/train.py", "Trainer.log_loss", 30,
                                        {0x80 | (11 << 3) | 3, 4, 9, 0x80 | (12 << 3), 4, 9});
  const uint32_t step = seg.AddCode("/srv/train.py", "step", 40, {0x80 | (13 << 3) | 7, 0});
  seg.AddCode("/srv/late.py", "late", 1, {}, /*ready=*/false);
  const uint32_t python_stack =
      seg.AddStack({0x401000, 0x405000, ring::PythonFrameEntry(log_loss, 2, false),
                    ring::PythonFrameEntry(step, 0, true), ring::PythonFrameEntry(3, 0, true)});
  seg.header().python_status.store(static_cast<uint32_t>(ring::PythonStatus::kActive));
  seg.header().python_version.store(0x030C01F0);
  seg.header().launch_sample_period = 16;
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
  // A sampled launch whose stack carries the Python frames.
  ring::HostRecord sampled =
      MakeHostRecord(ring::Api::kCudaLaunchKernel, 1000 + 7 * 100, 1050 + 7 * 100);
  sampled.stack_id = python_stack;
  sampled.flags = ring::kRecordLaunchSample;
  seg.AppendHost(1, sampled);
  seg.RetireThread(1);
  // Hardware counters: the sampler's clock pair (a realtime clock 10^18 ns ahead) and one
  // streamed sample 1 µs after it; with the 7 records below the device ring (8) is full.
  const uint64_t mono = static_cast<uint64_t>(MonotonicNowNs());
  seg.header().counters_state.store(ring::kCountersSampling);
  seg.header().counters_clock_realtime_ns = mono + 1'000'000'000'000'000'000ull;
  seg.header().counters_clock_mono_ns = mono;
  ring::DeviceRecord sample{};
  sample.kind = static_cast<uint8_t>(ring::DeviceKind::kCounterSample);
  sample.start = seg.header().counters_clock_realtime_ns + 1000;
  sample.end = sample.start + 1'000'000;
  sample.correlation_id = 70'000;  // SM 70 %
  sample.stream_id = 15'500;       // DRAM 15.5 %
  sample.thread_id = ring::kCounterValueUnknown;
  seg.AppendDevice(sample);
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
  CheckCodes(**reader, seg.geometry().code_slots, sink);
  (void)(*reader)->ReadRunInfo();
  outcome.events = sink.events;
  outcome.violation = sink.violation;
  return outcome;
}

}  // namespace brrr::ingest::testing
