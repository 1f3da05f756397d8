// An EventSink tee for the optional full event trace (`brrr run --trace[=N]`, BRRR_TRACE=N): every
// event is forwarded unchanged to the wrapped sink (the analysis), and the first `cap` host calls,
// device ops, API and synchronization activities and NVTX events (all kinds together, in arrival
// order) are kept
// as compact records in a Trace. Events past the cap are counted per kind, not kept. Kernel names
// are stored once each in the trace's string table, which has its own byte limit.
//
// Thread-safety: none; lives on the drain thread with the reader.
// Must never: drop, alter or reorder a forwarded event; keep more than `cap` events; let the name
// table grow past kMaxTraceNameBytes.
#ifndef BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_
#define BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "collector/events.h"
#include "viewer/format/trace.h"

namespace brrr::ingest {

class TraceRecorder : public EventSink {
 public:
  // Longest kernel name kept (longer ones are cut) and the most name bytes in the table; a new
  // name that does not fit leaves its op unnamed (kNoTraceName).
  static constexpr size_t kMaxTraceNameLength = 4096;
  static constexpr size_t kMaxTraceNameBytes = 64u << 20;

  // `inner` receives every event; it must outlive the recorder. `cap` is clamped to kMaxTraceCap.
  TraceRecorder(EventSink* inner, uint64_t cap, uint32_t app_pid);

  void OnHostCall(const HostCall& call) override;
  void OnDeviceOp(const DeviceOp& op) override;
  void OnApiActivity(const ApiActivity& api) override;
  void OnSyncActivity(const SyncActivity& sync) override;
  void OnStack(const Stack& stack) override { inner_->OnStack(stack); }
  // NVTX events count toward the cap like the others; messages and domains go to the name table.
  void OnNvtx(const NvtxEvent& event) override;
  // Counter samples are not trace events: passed through.
  void OnCountersRequested() override { inner_->OnCountersRequested(); }
  void OnCounterSample(const CounterSampleEvent& s) override { inner_->OnCounterSample(s); }
  void OnTracingWindow(const TracingWindowEvent& w) override { inner_->OnTracingWindow(w); }

  const Trace& trace() const { return trace_; }

 private:
  bool Full() const { return trace_.kept() >= trace_.cap; }
  uint32_t NameIndex(const std::string& name);

  EventSink* inner_;
  Trace trace_;
  absl::flat_hash_map<std::string, uint32_t> name_index_;
  size_t name_bytes_ = 0;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_
