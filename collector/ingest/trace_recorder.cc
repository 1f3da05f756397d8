// Keeps the first N events of a run while forwarding all of them. See trace_recorder.h.
//
// Must never: allocate for an event past the cap.
#include "collector/ingest/trace_recorder.h"

#include <algorithm>

namespace brrr::ingest {

TraceRecorder::TraceRecorder(EventSink* inner, uint64_t cap, uint32_t app_pid, FoldRule fold_rule)
    : inner_(inner), fold_rule_(fold_rule) {
  trace_.cap = std::min(cap, kMaxTraceCap);
  trace_.app_pid = app_pid;
}

void TraceRecorder::OnHostCall(const HostCall& call) {
  if (Full()) {
    ++trace_.omitted_host_calls;
  } else {
    TraceHostCall r;
    r.enter_ns = call.enter_ns;
    r.exit_ns = call.exit_ns;
    r.stream = call.stream;
    r.bytes = call.bytes;
    r.tid = call.tid;
    r.stack_id = call.stack_id;
    r.result = call.result;
    r.api = static_cast<uint16_t>(call.api);
    r.copy_kind = static_cast<uint8_t>(call.copy_kind);
    const uint32_t index = static_cast<uint32_t>(trace_.host_calls.size());
    if (call.source == CallSource::kCuptiCallback) {
      r.source = call.driver ? kTraceCallDriverCallback : kTraceCallRuntimeCallback;
      r.cbid = call.cbid;
      r.correlation_id = call.correlation_id;
      if (call.correlation_id != 0) callback_correlations_.insert(call.correlation_id);
    } else {
      // A hooked call's id, when it carries one (its device work's): its flow to its kernels,
      // also when CUPTI wrote no RUNTIME record for it.
      r.correlation_id = call.correlation_id;
      std::deque<uint32_t>& recent = hooked_by_tid_[call.tid];
      recent.push_back(index);
      if (recent.size() > kFoldWindow) recent.pop_front();
      tid_of_pthread_.try_emplace(static_cast<uint32_t>(call.pthread_id), call.tid);
    }
    trace_.host_calls.push_back(r);
  }
  inner_->OnHostCall(call);
}

bool TraceRecorder::FoldIntoKeptCall(const ApiActivity& api) {
  if (api.correlation_id != 0 && callback_correlations_.erase(api.correlation_id) != 0) {
    ++folded_;  // the callback's host call already carries the id
    return true;
  }
  if (api.driver) return false;
  auto by_tid = hooked_by_tid_.find(api.thread_id);
  if (by_tid == hooked_by_tid_.end()) {
    const auto tid = tid_of_pthread_.find(api.thread_id);
    if (tid == tid_of_pthread_.end()) return false;
    by_tid = hooked_by_tid_.find(tid->second);
    if (by_tid == hooked_by_tid_.end()) return false;
  }
  const std::deque<uint32_t>& recent = by_tid->second;
  // The last call that entered by the record's start (give or take the slack).
  auto it = std::upper_bound(recent.begin(), recent.end(), api.start_ns,
                             [this](int64_t start, uint32_t i) {
                               return start + kFoldSlackNs < trace_.host_calls[i].enter_ns;
                             });
  if (it == recent.begin()) return false;
  TraceHostCall& call = trace_.host_calls[*std::prev(it)];
  if (api.end_ns > call.exit_ns + kFoldSlackNs) return false;
  const Fold kind = fold_rule_ != nullptr ? fold_rule_(call.api, api) : Fold::kSameCall;
  if (kind == Fold::kPartOfCall) {
    ++folded_;
    return true;
  }
  if (kind != Fold::kSameCall) return false;
  if (call.correlation_id != 0 && call.correlation_id != api.correlation_id) return false;
  call.correlation_id = api.correlation_id;
  ++folded_;
  return true;
}

void TraceRecorder::OnDeviceOp(const DeviceOp& op) {
  if (op.untimed) {
    // No place on a timeline: the report counts it (Coverage.untimed_device_ops).
  } else if (Full()) {
    ++trace_.omitted_device_ops;
  } else {
    TraceDeviceOp r;
    r.start_ns = op.start_ns;
    r.end_ns = op.end_ns;
    r.bytes = op.bytes;
    r.device_id = op.device_id;
    r.stream_id = op.stream_id;
    r.correlation_id = op.correlation_id;
    r.name_index = op.name.empty() ? kNoTraceName : NameIndex(op.name);
    r.kind = static_cast<uint8_t>(op.kind);
    r.copy_kind = op.copy_kind;
    trace_.device_ops.push_back(r);
  }
  inner_->OnDeviceOp(op);
}

void TraceRecorder::OnApiActivity(const ApiActivity& api) {
  if (FoldIntoKeptCall(api)) {
    // The same call, already kept: no slot of its own.
  } else if (Full()) {
    ++trace_.omitted_api_activities;
  } else {
    TraceApiActivity r;
    r.start_ns = api.start_ns;
    r.end_ns = api.end_ns;
    r.cbid = api.cbid;
    r.thread_id = api.thread_id;
    r.correlation_id = api.correlation_id;
    r.result = api.result;
    r.driver = api.driver;
    trace_.api_activities.push_back(r);
  }
  inner_->OnApiActivity(api);
}

void TraceRecorder::OnSyncActivity(const SyncActivity& sync) {
  if (Full()) {
    ++trace_.omitted_sync_activities;
  } else {
    TraceSyncActivity r;
    r.start_ns = sync.start_ns;
    r.end_ns = sync.end_ns;
    r.type = sync.type;
    r.correlation_id = sync.correlation_id;
    r.stream_id = sync.stream_id;
    trace_.sync_activities.push_back(r);
  }
  inner_->OnSyncActivity(sync);
}

void TraceRecorder::OnNvtx(const NvtxEvent& event) {
  if (Full()) {
    ++trace_.omitted_nvtx;
  } else {
    TraceNvtx r;
    r.time_ns = event.time_ns;
    r.range_id = event.range_id;
    r.tid = event.tid;
    r.message_index = event.message.empty() ? kNoTraceName : NameIndex(event.message);
    r.domain_index = event.domain.empty() ? kNoTraceName : NameIndex(event.domain);
    r.op = static_cast<uint8_t>(event.op);
    trace_.nvtx.push_back(r);
  }
  inner_->OnNvtx(event);
}

uint32_t TraceRecorder::NameIndex(const std::string& full_name) {
  const std::string name =
      full_name.size() > kMaxTraceNameLength ? full_name.substr(0, kMaxTraceNameLength) : full_name;
  if (auto it = name_index_.find(name); it != name_index_.end()) return it->second;
  // Each new name costs its bytes twice (table and index); both stay under the limit.
  if (name_bytes_ + name.size() > kMaxTraceNameBytes / 2) return kNoTraceName;
  const uint32_t index = static_cast<uint32_t>(trace_.names.size());
  name_bytes_ += name.size();
  trace_.names.push_back(name);
  name_index_.emplace(name, index);
  return index;
}

}  // namespace brrr::ingest
