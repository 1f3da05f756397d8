// Deciding what a trace export draws. See trace_view.h.
//
// Must never: subtract timestamps in signed arithmetic, or build a lookup larger than the trace.
#include "viewer/trace_view.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace brrr {
namespace {

std::string Demangle(const std::string& name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && demangled != nullptr) ? std::string(demangled) : name;
  std::free(demangled);
  return result;
}

const char* DeviceOpCategory(uint8_t kind) {
  switch (kind) {
    case 1:
      return "memcpy";
    case 2:
      return "memset";
    default:
      return "kernel";
  }
}

// CUpti_ActivitySynchronizationType (cupti_activity.h) in words.
std::string SyncTypeName(uint32_t type) {
  switch (type) {
    case 1:
      return "event synchronize";
    case 2:
      return "stream wait event";
    case 3:
      return "stream synchronize";
    case 4:
      return "context synchronize";
    default:
      return absl::StrCat("synchronization (type ", type, ")");
  }
}

class TraceViewBuilder {
 public:
  TraceViewBuilder(const Trace& trace, const TraceViewOptions& options)
      : trace_(trace), options_(options) {}

  TraceView Build() {
    view_.origin_ns = Origin(trace_);
    view_.totals = {trace_.app_pid,
                    trace_.cap,
                    trace_.kept(),
                    trace_.omitted(),
                    trace_.omitted_host_calls,
                    trace_.omitted_device_ops,
                    trace_.omitted_api_activities,
                    trace_.omitted_sync_activities,
                    trace_.omitted_nvtx};
    // The keys of the view's fixed strings, at their fixed indexes (trace_view.h).
    String("unclosed");
    String("range_id");
    String("correlation_id");
    Rows();
    // The first device op of each correlation id, for the launch -> execution flows.
    for (size_t i = 0; i < trace_.device_ops.size(); ++i) {
      first_op_.try_emplace(trace_.device_ops[i].correlation_id, i);
    }
    // Room for every slice and argument at once (at most: a host call has 5 arguments, plus its
    // correlation id and stall reason when it has them; an NVTX range 1, when the trace ended
    // inside it): a vector that grows by doubling would hold up to twice what it needs.
    view_.slices.reserve(trace_.host_calls.size() + trace_.api_activities.size() +
                         trace_.sync_activities.size() + trace_.device_ops.size() +
                         trace_.nvtx.size());
    view_.args.reserve(7 * trace_.host_calls.size() + 3 * trace_.api_activities.size() +
                       2 * trace_.sync_activities.size() + 3 * trace_.device_ops.size() +
                       trace_.nvtx.size());
    HostCalls();
    ApiActivities();
    SyncActivities();
    DeviceOps();
    Nvtx();
    return std::move(view_);
  }

 private:
  static int64_t Origin(const Trace& t) {
    int64_t origin = std::numeric_limits<int64_t>::max();
    for (const auto& h : t.host_calls) origin = std::min(origin, h.enter_ns);
    for (const auto& d : t.device_ops) origin = std::min(origin, d.start_ns);
    for (const auto& a : t.api_activities) origin = std::min(origin, a.start_ns);
    for (const auto& s : t.sync_activities) origin = std::min(origin, s.start_ns);
    for (const auto& n : t.nvtx) origin = std::min(origin, n.time_ns);
    return t.kept() == 0 ? 0 : origin;
  }

  // The latest time in the trace: where ranges still open when it ends are closed.
  static int64_t LastTime(const Trace& t) {
    int64_t last = std::numeric_limits<int64_t>::min();
    for (const auto& h : t.host_calls) last = std::max(last, h.exit_ns);
    for (const auto& d : t.device_ops) last = std::max(last, d.end_ns);
    for (const auto& a : t.api_activities) last = std::max(last, a.end_ns);
    for (const auto& s : t.sync_activities) last = std::max(last, s.end_ns);
    for (const auto& n : t.nvtx) last = std::max(last, n.time_ns);
    return last;
  }

  uint32_t String(absl::string_view text) {
    auto [it, fresh] = string_index_.try_emplace(std::string(text),
                                                 static_cast<uint32_t>(view_.strings.size()));
    if (fresh) view_.strings.emplace_back(text);
    return it->second;
  }

  // "domain:message" outside the default domain, "(unnamed)" without a message (as phases).
  std::string NvtxLabel(const TraceNvtx& n) const {
    const auto name = [&](uint32_t i) {
      return i < trace_.names.size() ? trace_.names[i] : std::string();
    };
    std::string message = name(n.message_index);
    if (message.empty()) message = "(unnamed)";
    const std::string domain = name(n.domain_index);
    return domain.empty() ? message : absl::StrCat(domain, ":", message);
  }

  void Rows() {
    const std::string app = options_.process_name.empty() ? "app" : options_.process_name;
    // Not "(pid N)": the viewers add the pid to a process's title themselves.
    view_.processes.push_back({trace_.app_pid, String(app)});
    if (!trace_.sync_activities.empty()) {
      view_.threads.push_back({trace_.app_pid, kSyncTid, String("CUDA synchronization (CUPTI)")});
    }
    // Host threads by their tid (the main thread's is the pid), then CUPTI's thread ids where no
    // host call named the row already.
    absl::flat_hash_set<uint32_t> threads;
    for (const TraceHostCall& h : trace_.host_calls) {
      if (h.tid == kSyncTid || !threads.insert(h.tid).second) continue;
      view_.threads.push_back(
          {trace_.app_pid, h.tid,
           String(absl::StrCat(h.tid == trace_.app_pid ? "main thread " : "thread ", h.tid))});
    }
    for (const TraceApiActivity& a : trace_.api_activities) {
      if (a.thread_id == kSyncTid || !threads.insert(a.thread_id).second) continue;
      view_.threads.push_back({trace_.app_pid, a.thread_id,
                               String(absl::StrCat("CUDA API (CUPTI thread ", a.thread_id, ")"))});
    }
    // NVTX on a thread no call was seen on still gets its row named.
    for (const TraceNvtx& n : trace_.nvtx) {
      if (n.tid == kSyncTid || !threads.insert(n.tid).second) continue;
      view_.threads.push_back({trace_.app_pid, n.tid, String(absl::StrCat("thread ", n.tid))});
    }
    absl::flat_hash_set<uint32_t> devices;
    absl::flat_hash_set<std::pair<uint32_t, uint32_t>> streams;
    for (const TraceDeviceOp& d : trace_.device_ops) {
      if (devices.insert(d.device_id).second) {
        view_.processes.push_back(
            {kGpuPidBase + d.device_id, String(absl::StrCat("GPU ", d.device_id))});
      }
      if (streams.insert({d.device_id, d.stream_id}).second) {
        view_.threads.push_back({kGpuPidBase + d.device_id, d.stream_id,
                                 String(absl::StrCat("stream ", d.stream_id))});
      }
    }
  }

  TraceView::Slice& AddSlice(absl::string_view name, absl::string_view category, int64_t start,
                             int64_t end, int64_t pid, int64_t tid) {
    TraceView::Slice s{};
    s.start_ns = start;
    s.end_ns = end >= start ? end : start;
    s.pid = pid;
    s.tid = tid;
    s.name = String(name);
    s.category = String(category);
    s.first_arg = static_cast<uint32_t>(view_.args.size());
    return view_.slices.emplace_back(s);
  }
  // An argument of the slice added last.
  void Arg(absl::string_view key, TraceView::Arg::Kind kind, int64_t value) {
    view_.args.push_back({String(key), kind, value});
    ++view_.slices.back().arg_count;
  }
  void Arg(absl::string_view key, int64_t value) { Arg(key, TraceView::Arg::Kind::kInt, value); }

  std::string HostApiName(uint16_t api) const {
    return options_.host_api_name ? options_.host_api_name(api) : absl::StrCat("api ", api);
  }
  std::string CuptiCallName(bool driver, uint32_t cbid) const {
    if (options_.cupti_call_name) return options_.cupti_call_name(driver, cbid);
    return absl::StrCat(driver ? "driver cbid " : "cbid ", cbid);
  }

  // The flow from a call to the first device op of its correlation id: once per id, none for 0
  // or an id without device work. Returns the id when this call starts it.
  uint32_t FlowFrom(uint32_t correlation_id) {
    if (correlation_id == 0) return 0;
    const auto op = first_op_.find(correlation_id);
    if (op == first_op_.end() || !linked_.insert(correlation_id).second) return 0;
    flow_into_op_.insert(op->second);
    return correlation_id;
  }

  void HostCalls() {
    for (const TraceHostCall& h : trace_.host_calls) {
      const std::string stall = options_.stall_reason ? options_.stall_reason(h) : std::string();
      // A call whose CUPTI record was folded into it starts the flow to its kernel itself.
      const uint32_t flow = FlowFrom(h.correlation_id);
      // A call seen through a CUPTI callback is named by its callback id, as CUPTI's records are.
      const bool callback = h.source != kTraceCallHook;
      TraceView::Slice& s = AddSlice(
          callback ? CuptiCallName(h.source == kTraceCallDriverCallback, h.cbid)
                   : HostApiName(h.api),
          stall.empty() ? "host" : "host,stall", h.enter_ns, h.exit_ns, trace_.app_pid, h.tid);
      s.flow_out = flow;
      s.stall = !stall.empty();
      Arg("stream", TraceView::Arg::Kind::kPointer,
          static_cast<int64_t>(h.stream));  // cudaStream_t
      Arg("bytes", TraceView::Arg::Kind::kUint, static_cast<int64_t>(h.bytes));
      Arg("result", h.result);
      Arg("stack_id", h.stack_id);
      Arg("copy_kind", h.copy_kind);
      if (h.correlation_id != 0) Arg("correlation_id", h.correlation_id);
      if (callback) Arg("cbid", h.cbid);
      if (stall.empty()) continue;
      Arg("stall", TraceView::Arg::Kind::kText, String(stall));
      view_.instants.push_back({h.enter_ns, trace_.app_pid, h.tid,
                                String(absl::StrCat("stall: ", stall)), String("stall")});
    }
  }

  void ApiActivities() {
    for (const TraceApiActivity& a : trace_.api_activities) {
      const uint32_t flow = FlowFrom(a.correlation_id);
      TraceView::Slice& s =
          AddSlice(CuptiCallName(a.driver, a.cbid), a.driver ? "cuda_driver" : "cuda_runtime",
                   a.start_ns, a.end_ns, trace_.app_pid, a.thread_id);
      s.flow_out = flow;
      Arg("correlation_id", a.correlation_id);
      Arg("cbid", a.cbid);
      Arg("result", a.result);
    }
  }

  void SyncActivities() {
    for (const TraceSyncActivity& s : trace_.sync_activities) {
      AddSlice(SyncTypeName(s.type), "sync", s.start_ns, s.end_ns, trace_.app_pid, kSyncTid);
      Arg("correlation_id", s.correlation_id);
      Arg("stream", s.stream_id);
    }
  }

  void DeviceOps() {
    std::vector<int64_t> demangled(trace_.names.size(), -1);  // name index -> string index
    for (size_t i = 0; i < trace_.device_ops.size(); ++i) {
      const TraceDeviceOp& d = trace_.device_ops[i];
      uint32_t name = String(DeviceOpCategory(d.kind));
      if (d.name_index < trace_.names.size()) {
        int64_t& cached = demangled[d.name_index];
        if (cached < 0) cached = String(Demangle(trace_.names[d.name_index]));
        name = static_cast<uint32_t>(cached);
      }
      TraceView::Slice& s = AddSlice("", DeviceOpCategory(d.kind), d.start_ns, d.end_ns,
                                     kGpuPidBase + d.device_id, d.stream_id);
      s.name = name;
      if (flow_into_op_.contains(i)) s.flow_in = d.correlation_id;
      Arg("correlation_id", d.correlation_id);
      Arg("bytes", TraceView::Arg::Kind::kUint, static_cast<int64_t>(d.bytes));
      Arg("copy_kind", d.copy_kind);
    }
  }

  // NVTX: push/pop ranges as slices on their thread's row (nested as they were), start/end ranges
  // as async ranges (they may overlap and end on another thread), marks as instants; ranges still
  // open when the trace ends are closed at its last event, marked unclosed.
  void Nvtx() {
    if (trace_.nvtx.empty()) return;
    const int64_t last = LastTime(trace_);
    absl::flat_hash_map<uint32_t, std::vector<const TraceNvtx*>> pushed;  // per tid
    absl::flat_hash_map<uint64_t, const TraceNvtx*> started;             // by range id
    std::vector<uint64_t> start_order;
    for (const TraceNvtx& n : trace_.nvtx) {
      switch (n.op) {
        case 1:  // push
          pushed[n.tid].push_back(&n);
          break;
        case 2: {  // pop
          auto it = pushed.find(n.tid);
          if (it == pushed.end() || it->second.empty()) break;  // its push is not in the trace
          const TraceNvtx* open = it->second.back();
          it->second.pop_back();
          AddSlice(NvtxLabel(*open), "nvtx", open->time_ns, n.time_ns, trace_.app_pid, n.tid);
          break;
        }
        case 3:  // start
          if (started.try_emplace(n.range_id, &n).second) start_order.push_back(n.range_id);
          break;
        case 4: {  // end
          auto it = started.find(n.range_id);
          if (it == started.end()) break;
          AsyncRange(*it->second, n.time_ns, false);
          started.erase(it);
          break;
        }
        case 5:
          view_.instants.push_back(
              {n.time_ns, trace_.app_pid, n.tid, String(NvtxLabel(n)), String("nvtx")});
          break;
        default:
          break;
      }
    }
    std::vector<uint32_t> tids;
    for (const auto& [tid, stack] : pushed) tids.push_back(tid);
    std::sort(tids.begin(), tids.end());
    for (uint32_t tid : tids) {
      for (const TraceNvtx* open : pushed[tid]) {
        AddSlice(NvtxLabel(*open), "nvtx", open->time_ns, std::max(last, open->time_ns),
                 trace_.app_pid, tid);
        Arg("unclosed", TraceView::Arg::Kind::kBool, 1);
      }
    }
    for (uint64_t id : start_order) {
      auto it = started.find(id);
      if (it != started.end()) AsyncRange(*it->second, std::max(last, it->second->time_ns), true);
    }
  }

  void AsyncRange(const TraceNvtx& start, int64_t end, bool unclosed) {
    view_.async_ranges.push_back({start.time_ns, std::max(end, start.time_ns), trace_.app_pid,
                                  start.tid, start.range_id, String(NvtxLabel(start)),
                                  String("nvtx"), unclosed});
  }

  const Trace& trace_;
  const TraceViewOptions& options_;
  TraceView view_;
  absl::flat_hash_map<std::string, uint32_t> string_index_;
  absl::flat_hash_map<uint32_t, size_t> first_op_;  // correlation id -> first device op
  absl::flat_hash_set<uint32_t> linked_;            // ids whose flow is drawn
  absl::flat_hash_set<size_t> flow_into_op_;        // device ops a flow ends at
};

}  // namespace

TraceView BuildTraceView(const Trace& trace, const TraceViewOptions& options) {
  return TraceViewBuilder(trace, options).Build();
}

}  // namespace brrr
