// The untrusted reader of a brrr shared-memory segment. Validates the header once (magic, version,
// sizes, geometry, every offset and size against the bytes really mapped) and keeps its own copy of
// the geometry; then, at every Drain, copies published records out of each ring (rules R1-R3 of
// ring_format.h), validates every field (indices, enums, ids, lengths, depths, timestamps), maps
// host TSC timestamps to CLOCK_MONOTONIC ns, and hands decoded events to an EventSink. Damage is
// clamped or skipped and counted (stats()), never trusted and never fatal.
//
// Thread-safety: not thread-safe. One thread drains; ReadRunInfo/stats may be called by another
// thread only once draining has stopped.
// Must never: read outside the validated layout, hold pointers into shared memory in events, loop
// for longer than the records published at the moment it looked, or block the writer.
#ifndef BRRR_COLLECTOR_INGEST_SEGMENT_READER_H_
#define BRRR_COLLECTOR_INGEST_SEGMENT_READER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "collector/events.h"
#include "collector/ingest/clock_fit.h"
#include "collector/ingest/code_table.h"
#include "collector/ingest/counter_clock.h"
#include "collector/ingest/name_table.h"
#include "collector/ingest/reader_stats.h"
#include "collector/ingest/stack_table.h"
#include "shim/ring_format.h"
#include "shim/segment_layout.h"

namespace brrr::ingest {

// What one Drain call did.
struct DrainResult {
  uint64_t host_records = 0;
  uint64_t device_records = 0;
  double max_fill = 0;  // largest fraction of a ring's capacity found waiting (0..1)
};

class SegmentReader {
 public:
  // Validates the segment at `base` (`mapped_bytes` really mapped, 64-byte aligned) and prepares
  // to read it. The memory must outlive the reader. Samples two clock pairs `calibration_gap`
  // apart (tests that do not use the TSC pass 0).
  static absl::StatusOr<std::unique_ptr<SegmentReader>> Open(
      void* base, uint64_t mapped_bytes,
      std::chrono::microseconds calibration_gap = std::chrono::milliseconds(2));

  SegmentReader(const SegmentReader&) = delete;
  SegmentReader& operator=(const SegmentReader&) = delete;

  // Copies out every record published so far, in every ring, into `sink`.
  DrainResult Drain(EventSink& sink);

  // Header facts plus the counters gathered so far (records, drops, losses).
  RunInfo ReadRunInfo() const;

  // R5: the app's shim has flushed and set `finished`.
  bool AppFinished() const;
  // R6: tells the exiting shim that the report is out.
  void MarkCollectorDone();
  // R7: the app's memory map was read after `finished`; the exiting app may go.
  void MarkMapsCaptured();
  // An overhead budget's steering: the traced share (permille, 1..999) the shim is to use from
  // now (SegmentHeader.device_sample_wanted_permille).
  void RequestDeviceSample(uint32_t permille);
  // The pid the shim wrote into the header (0 before the shim initialized).
  uint32_t AppPid() const;
  // R10: makes `self` the segment's one reader. Returns 0 when it is now (it had none, it was
  // `self` already, or its reader is gone: `alive` says no), else the live reader's pid, which
  // keeps it.
  uint32_t ClaimReader(uint32_t self, const std::function<bool(uint32_t)>& alive);
  // Control (`brrr ctl`): snapshots asked for so far, and whether the shim says it is paused.
  uint32_t SnapshotRequests() const;
  bool AppPaused() const;

  // The shared header itself, for readers of its own tables (the counter table: see
  // collector/counters/counter_table.h), which must bounds-check every field they read.
  const ring::SegmentHeader& SharedHeader() const { return header(); }

  const ReaderStats& stats() const { return stats_; }
  const StackTable& stacks() const { return stacks_; }
  // Python code objects of the stacks' Python frames. Reading a slot only copies it out of
  // shared memory into the table's cache, so a const reader may look codes up (at the report's
  // symbolization, after draining).
  CodeTable& codes() const { return codes_; }
  const ring::SegmentGeometry& geometry() const { return geometry_; }

  // Adds a calibration pair sampled now (Drain does this itself).
  void SampleClock();

 private:
  struct RingCursor {
    bool seen = false;  // an owner's generation has been adopted
    uint32_t generation = 0;
    uint64_t read = 0;     // our read index (the shared copy is only written, never trusted)
    uint64_t dropped = 0;  // last `dropped` value seen
  };
  struct RingSnapshot {
    ring::RingState state;
    uint64_t write;
  };

  SegmentReader(void* base, const ring::SegmentGeometry& geometry,
                const ring::SegmentLayout& layout);

  ring::SegmentHeader& header() const { return *static_cast<ring::SegmentHeader*>(base_); }
  void RefreshHeaderClock();
  int64_t HostNs(uint64_t stamp);
  uint64_t DrainThreadRing(uint32_t index, const RingSnapshot& snap, EventSink& sink, double* fill);
  uint64_t DrainDeviceRing(uint64_t write, EventSink& sink, double* fill);
  void DecodeHost(const ring::HostRecord& record, EventSink& sink);
  // An NVTX record (kRecordNvtx): an NvtxEvent, never a HostCall.
  void DecodeNvtx(const ring::HostRecord& record, EventSink& sink);
  void DecodeDevice(const ring::DeviceRecord& record, EventSink& sink);
  // A kCounterSample record: values checked, times put on CLOCK_MONOTONIC when a basis fits.
  void DecodeCounterSample(const ring::DeviceRecord& record, EventSink& sink);
  // A kTracingWindow record: its opening (end 0) or its close; a close before the opening is
  // counted as a bad timestamp and dropped.
  void DecodeTracingWindow(const ring::DeviceRecord& record, EventSink& sink);
  // Shared index handling: returns the first index to read, or resyncs (counting) and returns
  // `write` when the indices are impossible.
  uint64_t CheckIndices(uint64_t read, uint64_t write, uint32_t capacity, uint64_t* lost);

  void* base_;
  ring::SegmentGeometry geometry_;
  ring::SegmentLayout layout_;
  ReaderStats stats_;
  StackTable stacks_;
  NameTable names_;
  mutable CodeTable codes_;
  ClockFit clock_;
  ring::ClockKind clock_kind_ = ring::ClockKind::kMonotonicNs;
  bool header_pair_used_ = false;

  std::vector<RingCursor> cursors_;
  std::vector<RingSnapshot> snapshots_;
  uint64_t device_read_ = 0;
  uint64_t device_dropped_seen_ = 0;
  bool device_seen_ = false;
  bool counters_announced_ = false;    // OnCountersRequested sent
  bool counter_clock_read_ = false;    // counter_clock_ holds the header's pair (R9)
  CounterClock counter_clock_;
  int64_t drain_now_ns_ = 0;           // CLOCK_MONOTONIC at this drain's start

  uint64_t host_records_ = 0;  // host calls (NVTX records not included)
  uint64_t nvtx_records_ = 0;
  uint64_t host_dropped_ = 0;  // sum of ring `dropped` deltas
  uint64_t host_lost_ = 0;     // skipped by index resynchronization
  uint64_t device_records_ = 0;
  uint64_t device_dropped_ = 0;
  uint64_t device_lost_ = 0;

  // Scratch events reused for every record (their strings keep capacity).
  HostCall call_;
  DeviceOp op_;
  uint32_t op_name_id_ = 0;  // the name id whose name op_.name holds (0: none)
  NvtxEvent nvtx_;
  RingCursor* current_ring_ = nullptr;
  uint32_t current_tid_ = 0;
  uint64_t current_pthread_ = 0;
};

// A short description of a HostOnlyReason (with its detail for kCuptiError).
std::string HostOnlyReasonText(uint32_t reason, int32_t detail);

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_SEGMENT_READER_H_
