// The untrusted segment reader. See segment_reader.h.
//
// Must never: dereference an address not derived from the validated layout and a masked index,
// or trust any value read from shared memory without a check.
#include "collector/ingest/segment_reader.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_cat.h"
#include "collector/ingest/clock_pair.h"
#include "collector/ingest/known_api.h"

namespace brrr::ingest {
namespace {

using ring::DeviceKind;
using ring::RingHeader;
using ring::RingState;

int64_t ClampNs(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(v);
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

// Belt and braces over ValidateHeader: every region, computed with checked arithmetic, lies
// within the segment and after the header.
bool RegionsFit(const ring::SegmentGeometry& g, const ring::SegmentLayout& l) {
  const auto region_fits = [&](uint64_t offset, uint64_t count, uint64_t unit) {
    uint64_t bytes = 0, end = 0;
    return offset >= ring::kSegmentHeaderSize && offset % ring::kCacheLine == 0 &&
           !__builtin_mul_overflow(count, unit, &bytes) &&
           !__builtin_add_overflow(offset, bytes, &end) && end <= l.segment_size;
  };
  return l.thread_ring_stride >= ring::ThreadRingBytes(g.ring_capacity) &&
         l.thread_ring_stride % ring::kCacheLine == 0 &&
         region_fits(l.threads_offset, g.max_threads, l.thread_ring_stride) &&
         region_fits(l.device_offset, 1, ring::DeviceRingBytes(g.device_capacity)) &&
         region_fits(l.stacks_offset, g.stack_slots, sizeof(ring::StackSlot)) &&
         region_fits(l.names_offset, g.name_slots, sizeof(ring::NameSlot)) &&
         region_fits(l.codes_offset, g.code_slots, sizeof(ring::CodeSlot));
}

bool ValidCopyKind(uint8_t v) { return v <= static_cast<uint8_t>(ring::CopyKind::kPeer); }
bool ValidHostMemory(uint8_t v) { return v <= static_cast<uint8_t>(ring::HostMemory::kUnknown); }

}  // namespace

std::string HostOnlyReasonText(uint32_t reason, int32_t detail) {
  switch (static_cast<ring::HostOnlyReason>(reason)) {
    case ring::HostOnlyReason::kNone:
      return "no device records";
    case ring::HostOnlyReason::kCuptiNotFound:
      return "CUPTI could not be loaded";
    case ring::HostOnlyReason::kCuptiBusy:
      return "CUPTI is in use by another tool (one subscriber per process)";
    case ring::HostOnlyReason::kCuptiError:
      return absl::StrCat("a CUPTI call failed (CUptiResult ", detail, ")");
    case ring::HostOnlyReason::kDisabledByUser:
      return "CUPTI disabled by BRRR_CUPTI=0";
    case ring::HostOnlyReason::kHandedOver:
      return "the app's own profiler (torch.profiler, Nsight, ...) asked for CUPTI, which serves "
             "one tool per process, and brrr handed it over: device records stop there";
  }
  return absl::StrCat("unknown reason ", reason);
}

absl::StatusOr<std::unique_ptr<SegmentReader>> SegmentReader::Open(
    void* base, uint64_t mapped_bytes, std::chrono::microseconds calibration_gap) {
  if (base == nullptr || reinterpret_cast<uintptr_t>(base) % ring::kCacheLine != 0) {
    return absl::InvalidArgumentError("segment mapping is not 64-byte aligned");
  }
  if (mapped_bytes < ring::kSegmentHeaderSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("segment of ", mapped_bytes, " bytes is smaller than its header"));
  }
  ring::SegmentGeometry geometry;
  ring::SegmentLayout layout;
  const ring::HeaderCheck check = ring::ValidateHeader(
      *static_cast<const ring::SegmentHeader*>(base), mapped_bytes, &geometry, &layout);
  if (check != ring::HeaderCheck::kOk) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a usable brrr segment: ", ring::HeaderCheckName(check)));
  }
  if (!RegionsFit(geometry, layout) || layout.segment_size > mapped_bytes) {
    return absl::InvalidArgumentError("not a usable brrr segment: regions exceed the segment");
  }
  auto reader = std::unique_ptr<SegmentReader>(new SegmentReader(base, geometry, layout));
  reader->SampleClock();
  if (calibration_gap.count() > 0) std::this_thread::sleep_for(calibration_gap);
  reader->SampleClock();
  return reader;
}

SegmentReader::SegmentReader(void* base, const ring::SegmentGeometry& geometry,
                             const ring::SegmentLayout& layout)
    : base_(base),
      geometry_(geometry),
      layout_(layout),
      stacks_(ring::StackSlotsAt(base, layout), geometry.stack_slots, &stats_),
      names_(ring::NameSlotsAt(base, layout), geometry.name_slots, &stats_),
      codes_(ring::CodeSlotsAt(base, layout), geometry.code_slots, &stats_),
      cursors_(geometry.max_threads),
      snapshots_(geometry.max_threads) {
  const auto kind = static_cast<uint32_t>(header().clock_kind);
  clock_kind_ = kind == static_cast<uint32_t>(ring::ClockKind::kTsc)
                    ? ring::ClockKind::kTsc
                    : ring::ClockKind::kMonotonicNs;
}

void SegmentReader::SampleClock() { clock_.AddPair(SampleClockPair()); }

void SegmentReader::RefreshHeaderClock() {
  // The shim may write its clock choice and pair after the reader opened (brrr run).
  const auto kind = static_cast<uint32_t>(header().clock_kind);
  if (kind == static_cast<uint32_t>(ring::ClockKind::kTsc)) {
    clock_kind_ = ring::ClockKind::kTsc;
  } else if (kind == static_cast<uint32_t>(ring::ClockKind::kMonotonicNs)) {
    clock_kind_ = ring::ClockKind::kMonotonicNs;
  }
  if (!header_pair_used_ && clock_kind_ == ring::ClockKind::kTsc) {
    const uint64_t tsc = header().clock_tsc;
    const uint64_t mono = header().clock_mono_ns;
    if (tsc != 0 && mono != 0) {
      header_pair_used_ = true;
      if (!clock_.AddPair({tsc, ClampNs(mono)})) ++stats_.rejected_clock_pairs;
    }
  }
}

int64_t SegmentReader::HostNs(uint64_t stamp) {
  return clock_kind_ == ring::ClockKind::kTsc ? clock_.ToNs(stamp) : ClampNs(stamp);
}

uint64_t SegmentReader::CheckIndices(uint64_t read, uint64_t write, uint32_t capacity,
                                     uint64_t* lost) {
  if (write < read) {  // went backwards: nothing sensible to read
    ++stats_.index_corruptions;
    return write;
  }
  const uint64_t waiting = write - read;
  if (waiting > capacity) {  // the writer may never get this far ahead (R2)
    ++stats_.index_corruptions;
    stats_.records_lost = SaturatingAdd(stats_.records_lost, waiting);
    *lost = SaturatingAdd(*lost, waiting);
    return write;
  }
  return read;
}

DrainResult SegmentReader::Drain(EventSink& sink) {
  DrainResult result;
  // 1. Snapshot every ring's state and write index, so that every record we read was published
  // before the clock pair below: conversions then interpolate instead of extrapolating. From the
  // last ring to the first, which is read first: the first ring (the process's first thread to
  // call CUDA or NVTX, its main thread as a rule) then holds everything it wrote before any record
  // read from the others, so a thread's call is read after the main thread's ranges around it
  // (PhaseStats: a thread with no range of its own is in the main thread's).
  for (uint32_t i = geometry_.max_threads; i-- > 0;) {
    RingHeader* ring = ring::ThreadRingAt(base_, layout_, i);
    const uint32_t state = ring->state.load(std::memory_order_acquire);
    snapshots_[i].state = static_cast<RingState>(state);
    snapshots_[i].write = 0;
    if (state == static_cast<uint32_t>(RingState::kActive) ||
        state == static_cast<uint32_t>(RingState::kRetired)) {
      snapshots_[i].write = ring->write_index.load(std::memory_order_acquire);
    } else if (state > static_cast<uint32_t>(RingState::kRetired)) {
      ++stats_.bad_ring_states;
    }
  }
  RingHeader* device = ring::DeviceRingAt(base_, layout_);
  const uint64_t device_write = device->write_index.load(std::memory_order_acquire);
  // 2. Calibrate.
  RefreshHeaderClock();
  if (clock_kind_ == ring::ClockKind::kTsc) SampleClock();
  // 3. Read.
  for (uint32_t i = 0; i < geometry_.max_threads; ++i) {
    const RingState state = snapshots_[i].state;
    if (state != RingState::kActive && state != RingState::kRetired) continue;
    double fill = 0;
    result.host_records += DrainThreadRing(i, snapshots_[i], sink, &fill);
    result.max_fill = std::max(result.max_fill, fill);
  }
  // Counters asked for: the shim leaves kCountersOff at its start, before any device record.
  if (!counters_announced_ &&
      header().counters_state.load(std::memory_order_acquire) != ring::kCountersOff) {
    counters_announced_ = true;
    sink.OnCountersRequested();
  }
  drain_now_ns_ = MonotonicNowNs();
  double fill = 0;
  result.device_records = DrainDeviceRing(device_write, sink, &fill);
  result.max_fill = std::max(result.max_fill, fill);
  stacks_.EmitPending(sink);
  return result;
}

uint64_t SegmentReader::DrainThreadRing(uint32_t index, const RingSnapshot& snap, EventSink& sink,
                                        double* fill) {
  RingHeader* ring = ring::ThreadRingAt(base_, layout_, index);
  RingCursor& cursor = cursors_[index];
  const uint32_t generation = ring->generation;
  if (!cursor.seen || generation != cursor.generation) {
    // A new owner: adopt the shared read index (a writer that resets its indices on claim resets
    // both; one that continues leaves them equal). Damage is caught by CheckIndices.
    cursor.seen = true;
    cursor.generation = generation;
    cursor.read = ring->read_index.load(std::memory_order_acquire);
  }
  const uint64_t dropped = ring->dropped.load(std::memory_order_relaxed);
  host_dropped_ =
      SaturatingAdd(host_dropped_, dropped >= cursor.dropped ? dropped - cursor.dropped : dropped);
  cursor.dropped = dropped;

  const uint32_t capacity = geometry_.ring_capacity;
  const uint64_t write = snap.write;
  const uint64_t first = CheckIndices(cursor.read, write, capacity, &host_lost_);
  current_tid_ = ring->tid;
  current_pthread_ = ring->pthread_id;
  const ring::HostRecord* records = ring::ThreadRecords(ring);
  const uint64_t mask = capacity - 1;
  ring::HostRecord record;
  const uint64_t nvtx_before = nvtx_records_;
  for (uint64_t idx = first; idx < write; ++idx) {
    std::memcpy(&record, &records[idx & mask], sizeof(record));
    DecodeHost(record, sink);
  }
  const uint64_t count = write - first;
  host_records_ += count - (nvtx_records_ - nvtx_before);
  *fill = static_cast<double>(count) / capacity;
  cursor.read = write;
  ring->read_index.store(write, std::memory_order_release);
  if (snap.state == RingState::kRetired) {
    // R3: drained to the final write index; give the slot back for another thread.
    uint32_t expected = static_cast<uint32_t>(RingState::kRetired);
    ring->state.compare_exchange_strong(expected, static_cast<uint32_t>(RingState::kFree),
                                        std::memory_order_acq_rel);
    cursor.seen = false;
  }
  return count;
}

void SegmentReader::DecodeNvtx(const ring::HostRecord& r, EventSink& sink) {
  ++nvtx_records_;
  if (r.api < static_cast<uint16_t>(ring::NvtxOp::kPush) ||
      r.api > static_cast<uint16_t>(ring::NvtxOp::kMark)) {
    ++stats_.bad_nvtx_ops;
    return;
  }
  NvtxEvent& e = nvtx_;
  e.op = static_cast<ring::NvtxOp>(r.api);
  e.tid = current_tid_;
  e.time_ns = HostNs(r.enter);
  // Name ids are 32-bit NameSlot index + 1 stored in 64-bit fields: anything wider is damage.
  const auto name_id = [&](uint64_t v) -> uint32_t {
    if (v > UINT32_MAX) {
      ++stats_.bad_name_ids;
      return 0;
    }
    return static_cast<uint32_t>(v);
  };
  e.message.assign(names_.Lookup(name_id(r.target)));  // copied: Lookup's reference is reused
  e.domain.assign(names_.Lookup(name_id(r.stream)));
  const bool start_end = e.op == ring::NvtxOp::kStart || e.op == ring::NvtxOp::kEnd;
  e.range_id = start_end ? r.bytes : 0;
  sink.OnNvtx(e);
}

void SegmentReader::DecodeHost(const ring::HostRecord& r, EventSink& sink) {
  if ((r.flags & ring::kRecordNvtx) != 0) {
    DecodeNvtx(r, sink);
    return;
  }
  HostCall& c = call_;
  const bool callback = (r.flags & ring::kRecordFromCallback) != 0;
  if (callback) {
    // A call seen through a CUPTI callback: the function is named by (driver, cbid), not api.
    c.source = CallSource::kCuptiCallback;
    c.api = ring::Api::kUnknown;
    c.driver = (r.flags & ring::kRecordDriverApi) != 0;
    c.cbid = static_cast<uint32_t>(r.target < UINT32_MAX ? r.target : 0);
    c.correlation_id = r.correlation_id;
  } else {
    c.source = CallSource::kHook;
    c.driver = false;
    c.cbid = 0;
    c.correlation_id = (r.flags & ring::kRecordCorrelationFromDriver) != 0 ? r.correlation_id : 0;
    if (IsKnownApi(r.api)) {
      c.api = static_cast<ring::Api>(r.api);
    } else {
      c.api = ring::Api::kUnknown;
      ++stats_.unknown_api;
    }
  }
  c.tid = current_tid_;
  c.pthread_id = current_pthread_;
  c.enter_ns = HostNs(r.enter);
  c.exit_ns = HostNs(r.exit);
  if (c.exit_ns < c.enter_ns) {
    ++stats_.bad_timestamps;
    c.exit_ns = c.enter_ns;
  }
  c.capture_ns = 0;
  if (r.capture_ticks != 0 && r.exit <= UINT64_MAX - r.capture_ticks) {
    // A span of at most 2^32 ticks or ns: seconds at most, whatever the app wrote there.
    c.capture_ns = std::max<int64_t>(HostNs(r.exit + r.capture_ticks) - HostNs(r.exit), 0);
  }
  c.stream = r.stream;
  c.bytes = r.bytes;
  c.target = callback ? 0 : r.target;  // a callback record's target is its cbid
  if (ValidCopyKind(r.copy_kind)) {
    c.copy_kind = static_cast<ring::CopyKind>(r.copy_kind);
  } else {
    c.copy_kind = ring::CopyKind::kNone;
    ++stats_.bad_enum_values;
  }
  if (ValidHostMemory(r.host_memory)) {
    c.host_memory = static_cast<ring::HostMemory>(r.host_memory);
  } else {
    c.host_memory = ring::HostMemory::kUnknown;
    ++stats_.bad_enum_values;
  }
  c.flags = r.flags;
  c.result = r.result;
  c.stack_id = stacks_.Resolve(r.stack_id, sink);
  sink.OnHostCall(c);
}

uint64_t SegmentReader::DrainDeviceRing(uint64_t write, EventSink& sink, double* fill) {
  RingHeader* ring = ring::DeviceRingAt(base_, layout_);
  if (!device_seen_) {
    device_seen_ = true;
    device_read_ = ring->read_index.load(std::memory_order_acquire);
  }
  const uint64_t dropped = ring->dropped.load(std::memory_order_relaxed);
  device_dropped_ = SaturatingAdd(
      device_dropped_, dropped >= device_dropped_seen_ ? dropped - device_dropped_seen_ : dropped);
  device_dropped_seen_ = dropped;

  const uint32_t capacity = geometry_.device_capacity;
  const uint64_t first = CheckIndices(device_read_, write, capacity, &device_lost_);
  const ring::DeviceRecord* records = ring::DeviceRecords(ring);
  const uint64_t mask = capacity - 1;
  ring::DeviceRecord record;
  for (uint64_t idx = first; idx < write; ++idx) {
    std::memcpy(&record, &records[idx & mask], sizeof(record));
    DecodeDevice(record, sink);
  }
  const uint64_t count = write - first;
  device_records_ += count;
  *fill = static_cast<double>(count) / capacity;
  device_read_ = write;
  ring->read_index.store(write, std::memory_order_release);
  return count;
}

void SegmentReader::DecodeDevice(const ring::DeviceRecord& r, EventSink& sink) {
  if (r.kind == static_cast<uint8_t>(DeviceKind::kCounterSample)) {
    DecodeCounterSample(r, sink);  // its times are not CLOCK_MONOTONIC: checked there
    return;
  }
  if (r.kind == static_cast<uint8_t>(DeviceKind::kTracingWindow)) {
    DecodeTracingWindow(r, sink);  // end 0 means "open", not a bad time
    return;
  }
  int64_t start = ClampNs(r.start);
  int64_t end = ClampNs(r.end);
  // Device work CUPTI could not time (DeviceOp.untimed): a start or end of 0 is CUPTI's own
  // marker, not damage; the op goes to the sink untimed.
  const bool untimed = ring::IsUntimedWork(r);
  if (end < start && !untimed) {
    ++stats_.bad_timestamps;
    end = start;
  }
  switch (static_cast<DeviceKind>(r.kind)) {
    case DeviceKind::kKernel:
    case DeviceKind::kMemcpy:
    case DeviceKind::kMemset: {
      DeviceOp& op = op_;
      op.untimed = untimed;
      if (untimed) start = end = 0;
      op.kind = r.kind == static_cast<uint8_t>(DeviceKind::kKernel)   ? DeviceOpKind::kKernel
                : r.kind == static_cast<uint8_t>(DeviceKind::kMemcpy) ? DeviceOpKind::kMemcpy
                                                                      : DeviceOpKind::kMemset;
      op.device_id = r.device_id;
      op.stream_id = r.stream_id;
      op.correlation_id = r.correlation_id;
      op.start_ns = start;
      op.end_ns = end;
      op.queued_ns = ClampNs(r.queued);
      op.submitted_ns = ClampNs(r.submitted);
      op.bytes = r.bytes;
      op.copy_kind = r.copy_kind;
      op.src_kind = r.src_kind;
      op.dst_kind = r.dst_kind;
      op.name_id = 0;
      if (op.kind == DeviceOpKind::kKernel) {
        // A ready slot's name never changes: the previous kernel's name is kept when it is the
        // same id (kernels of one name come in runs).
        if (r.name_id == 0 || r.name_id != op_name_id_) {
          op.name.assign(names_.Lookup(r.name_id));
          op_name_id_ = op.name.empty() ? 0 : r.name_id;  // not before the slot is ready
        }
        op.name_id = op_name_id_;
      } else {
        op.name.clear();
        op_name_id_ = 0;
      }
      sink.OnDeviceOp(op);
      return;
    }
    case DeviceKind::kSynchronization: {
      SyncActivity sync;
      sync.type = r.cbid;
      sync.correlation_id = r.correlation_id;
      sync.stream_id = r.stream_id;
      sync.start_ns = start;
      sync.end_ns = end;
      sink.OnSyncActivity(sync);
      return;
    }
    case DeviceKind::kRuntimeApi:
    case DeviceKind::kDriverApi: {
      ApiActivity api;
      api.driver = r.kind == static_cast<uint8_t>(DeviceKind::kDriverApi);
      api.cbid = r.cbid;
      api.thread_id = r.thread_id;
      api.correlation_id = r.correlation_id;
      api.start_ns = start;
      api.end_ns = end;
      api.result = r.result;
      sink.OnApiActivity(api);
      return;
    }
    case DeviceKind::kOverhead:
      return;  // reserved: not an error, nothing to report
    case DeviceKind::kCounterSample:
      return;  // decoded above
    case DeviceKind::kTracingWindow:
      return;  // decoded above
  }
  ++stats_.bad_enum_values;
}

namespace {

// A streamed counter value in percent; NaN when unknown or out of range (counted).
double CounterPercent(uint32_t milli, uint64_t* bad) {
  if (milli == ring::kCounterValueUnknown) return std::numeric_limits<double>::quiet_NaN();
  if (milli > ring::kMaxCounterMilliPct) {
    ++*bad;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return milli / 1000.0;
}

// The windows' length from the header: the shim takes 1..10,000 ms (shim/settings.def), so
// anything else is not a length it set (0 = unknown).
uint32_t WindowMs(const ring::SegmentHeader& h) {
  return h.device_window_ms <= 10'000 ? h.device_window_ms : 0;
}

}  // namespace

void SegmentReader::DecodeTracingWindow(const ring::DeviceRecord& r, EventSink& sink) {
  TracingWindowEvent w;
  w.start_ns = ClampNs(r.start);
  w.end_ns = r.end == 0 ? 0 : ClampNs(r.end);
  if (w.start_ns == 0 || (w.end_ns != 0 && w.end_ns <= w.start_ns)) {
    ++stats_.bad_timestamps;  // a window that closes before it opened
    return;
  }
  w.window_ms = WindowMs(header());  // written before the first window was published (R1)
  // The detach after a closed window: within 10 s of its close (the wait never exceeds a window,
  // itself at most 10 s: WindowMs), else unknown.
  if (w.end_ns != 0 && r.queued > r.end && r.queued - r.end <= 10'000'000'000ull) {
    w.detach_at_ns = ClampNs(r.queued);
  }
  w.kept_attached = w.end_ns != 0 && r.queued == ring::kWindowKeptAttached;
  sink.OnTracingWindow(w);
}

void SegmentReader::DecodeCounterSample(const ring::DeviceRecord& r, EventSink& sink) {
  if (!counter_clock_read_) {
    // R9: the pair was written before this record was published (R1 acquire above).
    const ring::SegmentHeader& h = header();
    counter_clock_ = CounterClock(
        {h.counters_clock_cupti_ns, h.counters_clock_realtime_ns, h.counters_clock_mono_ns});
    counter_clock_read_ = true;
  }
  CounterSampleEvent e;
  e.sm_pct = CounterPercent(r.correlation_id, &stats_.bad_counter_values);
  e.dram_pct = CounterPercent(r.stream_id, &stats_.bad_counter_values);
  e.active_pct = CounterPercent(r.thread_id, &stats_.bad_counter_values);
  e.number = r.bytes;
  e.device_id = r.device_id;
  uint64_t start = r.start, end = r.end;
  if (end < start) {
    ++stats_.bad_timestamps;
    end = start;
  }
  // The samples lie between the start of sampling (the pair; the shim's start when there is none)
  // and now; a second of slack either side.
  const int64_t from = ClampNs(header().counters_clock_mono_ns != 0 ? header().counters_clock_mono_ns
                                                                    : header().start_mono_ns);
  const std::optional<int64_t> s =
      counter_clock_.ToMonotonic(start, from - 1'000'000'000, drain_now_ns_ + 1'000'000'000);
  const std::optional<int64_t> t =
      s ? counter_clock_.ToMonotonic(end, INT64_MIN, INT64_MAX) : std::nullopt;
  if (s && t && *s >= 0) {
    e.aligned = true;
    e.start_ns = *s;
    e.end_ns = std::max(*t, *s);
  } else {
    e.start_ns = ClampNs(start);
    e.end_ns = ClampNs(end);
  }
  e.clock_basis = counter_clock_.basis();
  sink.OnCounterSample(e);
}

RunInfo SegmentReader::ReadRunInfo() const {
  const ring::SegmentHeader& h = header();
  RunInfo info;
  // command: NUL-separated arguments, ending at an empty one or the end of the field.
  char command[sizeof(h.command)];
  std::memcpy(command, h.command, sizeof(command));
  size_t pos = 0;
  while (pos < sizeof(command) && command[pos] != '\0') {
    const size_t len = strnlen(command + pos, sizeof(command) - pos);
    if (!info.command.empty()) info.command += ' ';
    info.command.append(command + pos, len);
    pos += len + 1;
  }
  for (char& c : info.command) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = '?';
  }
  info.pid = h.pid;
  info.start_ns = ClampNs(h.start_mono_ns);
  ring::SegmentHeader& mutable_h = header();  // atomics: loads only
  info.end_ns = ClampNs(mutable_h.end_mono_ns.load(std::memory_order_acquire));
  if (mutable_h.exit_code_valid.load(std::memory_order_acquire) == 1) {
    info.exited_normally = true;
    info.exit_code = mutable_h.exit_code.load(std::memory_order_relaxed);
  }
  const uint32_t flags = h.flags;
  if (flags & ring::kFlagHostOnly) {
    info.host_only = true;
    info.host_only_reason = HostOnlyReasonText(h.host_only_reason, h.host_only_detail);
    const uint64_t handed = mutable_h.cupti_handed_over_ns.load(std::memory_order_relaxed);
    if (h.host_only_reason == static_cast<uint32_t>(ring::HostOnlyReason::kHandedOver) &&
        handed > h.start_mono_ns && handed - h.start_mono_ns < (uint64_t{1} << 62)) {
      absl::StrAppend(&info.host_only_reason,
                      absl::StrFormat(", %.3f s into the run", (handed - h.start_mono_ns) / 1e9));
    }
  }
  info.host_records = host_records_;
  info.host_dropped_no_ring = mutable_h.threads_overflow_dropped.load(std::memory_order_relaxed);
  info.max_threads = h.max_threads;
  info.execs = mutable_h.execs.load(std::memory_order_relaxed);
  info.host_dropped =
      SaturatingAdd(SaturatingAdd(host_dropped_, host_lost_),
                    mutable_h.threads_overflow_dropped.load(std::memory_order_relaxed));
  info.device_records = device_records_;
  info.device_dropped = SaturatingAdd(SaturatingAdd(device_dropped_, device_lost_),
                                      mutable_h.cupti_dropped.load(std::memory_order_relaxed));
  // Python facts: plain numbers; the report judges them (an unknown status is said as such).
  info.python_status = mutable_h.python_status.load(std::memory_order_relaxed);
  info.python_version = mutable_h.python_version.load(std::memory_order_relaxed);
  info.python_notes = mutable_h.python_notes.load(std::memory_order_relaxed);
  info.python_failures = mutable_h.python_failures.load(std::memory_order_relaxed);
  info.code_overflow = mutable_h.code_overflow.load(std::memory_order_relaxed);
  info.launch_sample_period = h.launch_sample_period;
  info.capture_mode = h.capture_mode;
  const uint32_t name_length =
      std::min<uint32_t>(h.capture_name_length, sizeof(h.capture_name));  // untrusted
  info.capture_name.assign(h.capture_name, name_length);
  info.capture_ranges = mutable_h.capture_ranges.load(std::memory_order_relaxed);
  info.capture_ns = mutable_h.capture_ns.load(std::memory_order_relaxed);
  info.capture_dropped = mutable_h.capture_dropped.load(std::memory_order_relaxed);
  // Sampled device tracing: 0 (a zero-filled header) or anything past 1000 means no sampling.
  const uint32_t permille = mutable_h.device_sample_permille.load(std::memory_order_relaxed);
  info.device_sample_permille = permille == 0 || permille > 1000 ? 1000 : permille;
  info.device_budget_permille = h.device_budget_permille <= 1000 ? h.device_budget_permille : 0;
  info.device_window_ms = WindowMs(h);
  info.device_windows = mutable_h.device_windows.load(std::memory_order_relaxed);
  info.device_traced_ns = mutable_h.device_traced_ns.load(std::memory_order_relaxed);
  info.device_window_open_ns = mutable_h.device_window_open_ns.load(std::memory_order_relaxed);
  info.device_sampling_start_ns = h.device_sampling_start_ns;
  // A record path slower than 1 ms is damage, not a measurement.
  info.hook_record_ns = h.hook_record_ns <= 1'000'000 ? h.hook_record_ns : 0;
  info.cupti_detaches = mutable_h.cupti_detaches.load(std::memory_order_relaxed);
  // Sums of timed calls: anything past a day is damage, not a measurement.
  constexpr uint64_t kDayNs = 86'400'000'000'000;
  const uint64_t detach_ns = mutable_h.cupti_detach_ns.load(std::memory_order_relaxed);
  const uint64_t attach_ns = mutable_h.cupti_attach_ns.load(std::memory_order_relaxed);
  info.cupti_detach_ns = detach_ns <= kDayNs ? detach_ns : 0;
  info.cupti_attach_ns = attach_ns <= kDayNs ? attach_ns : 0;
  // The texts are final once the state is (acquire); kWriting or anything else reads as none.
  const uint32_t torch = mutable_h.torch_annotations.load(std::memory_order_acquire);
  if (torch == static_cast<uint32_t>(ring::TorchAnnotations::kActive) ||
      torch == static_cast<uint32_t>(ring::TorchAnnotations::kUnsupported)) {
    info.torch_annotations = torch;
    info.torch_version.assign(h.torch_version, strnlen(h.torch_version, sizeof(h.torch_version)));
    info.torch_reason.assign(h.torch_reason, strnlen(h.torch_reason, sizeof(h.torch_reason)));
  }
  return info;
}

uint32_t SegmentReader::SnapshotRequests() const {
  return header().snapshot_requests.load(std::memory_order_acquire);
}

bool SegmentReader::AppPaused() const {
  return header().paused.load(std::memory_order_acquire) != 0;
}

bool SegmentReader::AppFinished() const {
  return header().finished.load(std::memory_order_acquire) == 1;
}

uint32_t SegmentReader::ClaimReader(uint32_t self,
                                    const std::function<bool(uint32_t)>& alive) {
  std::atomic<uint32_t>& reader = header().reader_pid;
  uint32_t seen = reader.load(std::memory_order_acquire);
  while (seen != self) {
    if (seen != 0 && alive(seen)) return seen;
    if (reader.compare_exchange_weak(seen, self, std::memory_order_acq_rel)) break;
  }
  return 0;
}

void SegmentReader::MarkMapsCaptured() {
  header().maps_captured.store(1, std::memory_order_release);  // R7
}

void SegmentReader::RequestDeviceSample(uint32_t permille) {
  header().device_sample_wanted_permille.store(permille, std::memory_order_relaxed);
}

void SegmentReader::MarkCollectorDone() {
  header().collector_done.store(1, std::memory_order_release);
}

uint32_t SegmentReader::AppPid() const { return header().pid; }

}  // namespace brrr::ingest
