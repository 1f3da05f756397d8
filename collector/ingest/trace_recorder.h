// An EventSink tee for the optional full event trace (`brrr run --trace[=N]`, BRRR_TRACE=N): every
// event is forwarded unchanged to the wrapped sink (the analysis), and the first `cap` host calls,
// device ops, API and synchronization activities and NVTX events (all kinds together, in arrival
// order) are kept
// as compact records in a Trace. Events past the cap are counted per kind, not kept. Kernel names
// are stored once each in the trace's string table, which has its own byte limit.
//
// A CUPTI API record of a host call already kept takes no slot: a record of the same call seen
// twice is folded into it (its correlation id goes onto the call, for the launch -> kernel flow),
// and a part of it (nvcc's launch configuration inside a <<<>>> launch) is left out. Which is
// which the FoldRule says (the collector's API catalog; without one, any RUNTIME record is the
// call itself). Candidates: RUNTIME records inside a hooked call of their thread (CUPTI thread
// id = tid, or the low 32 bits of pthread_self), and any record with the correlation id of a call
// recorded from a CUPTI callback. Driver records nested in a hooked call are its inner work: kept.
//
// Thread-safety: none; lives on the drain thread with the reader.
// Must never: drop, alter or reorder a forwarded event; keep more than `cap` events; let the name
// table grow past kMaxTraceNameBytes.
#ifndef BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_
#define BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "collector/events.h"
#include "viewer/format/trace.h"

namespace brrr::ingest {

class TraceRecorder : public EventSink {
 public:
  // What a RUNTIME record inside a hooked call (host_api: ring::Api) is to that call.
  enum class Fold : uint8_t { kOther, kSameCall, kPartOfCall };
  using FoldRule = Fold (*)(uint16_t host_api, const ApiActivity& record);
  // Longest kernel name kept (longer ones are cut) and the most name bytes in the table; a new
  // name that does not fit leaves its op unnamed (kNoTraceName).
  static constexpr size_t kMaxTraceNameLength = 4096;
  static constexpr size_t kMaxTraceNameBytes = 64u << 20;

  // `inner` receives every event; it must outlive the recorder. `cap` is clamped to kMaxTraceCap.
  TraceRecorder(EventSink* inner, uint64_t cap, uint32_t app_pid, FoldRule fold_rule = nullptr);

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
  uint64_t folded() const { return folded_; }  // API records folded into or part of host calls

 private:
  bool Full() const { return trace_.kept() >= trace_.cap; }
  uint32_t NameIndex(const std::string& name);
  // Folds `api` into a kept host call it duplicates; false when there is none.
  bool FoldIntoKeptCall(const ApiActivity& api);

  // Recent hooked host calls kept, per thread, by index into trace_.host_calls (time order); at
  // most kFoldWindow per thread: CUPTI's records arrive within a few flush periods of their call.
  static constexpr size_t kFoldWindow = 1 << 16;
  static constexpr int64_t kFoldSlackNs = 1'000;

  EventSink* inner_;
  FoldRule fold_rule_;
  Trace trace_;
  absl::flat_hash_map<std::string, uint32_t> name_index_;
  size_t name_bytes_ = 0;
  absl::flat_hash_map<uint32_t, std::deque<uint32_t>> hooked_by_tid_;
  absl::flat_hash_map<uint32_t, uint32_t> tid_of_pthread_;  // low 32 bits of pthread_self -> tid
  absl::flat_hash_set<uint32_t> callback_correlations_;     // kept callback calls not yet matched
  uint64_t folded_ = 0;
};

}  // namespace brrr::ingest

#endif  // BRRR_COLLECTOR_INGEST_TRACE_RECORDER_H_
