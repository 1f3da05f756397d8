// Chrome trace / Perfetto JSON export of a Trace. See chrome_trace.h.
//
// Must never: subtract timestamps in signed arithmetic (any int64 values must work), or build a
// lookup larger than the trace itself.
#include "viewer/chrome_trace.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace brrr {
namespace {

constexpr int64_t kSyncTid = 0;  // the app process's row for synchronization activity

// Appends `text` as a quoted JSON string, escaped by nlohmann; bytes that are not valid UTF-8 (a
// kernel or NVTX name from the application) become U+FFFD, so the document stays valid.
void AppendJsonString(std::string& out, absl::string_view text) {
  try {
    out += nlohmann::json(std::string(text))
               .dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  } catch (const nlohmann::json::exception&) {
    out += "\"\"";  // not reached: with error_handler_t::replace, dump() throws nothing
  }
}

std::string Demangle(const std::string& name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && demangled != nullptr) ? std::string(demangled) : name;
  std::free(demangled);
  return result;
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

// Builds the document; events are appended one per line.
class ChromeTraceBuilder {
 public:
  ChromeTraceBuilder(const Trace& trace, const ChromeTraceOptions& options)
      : trace_(trace), options_(options), origin_(Origin(trace)) {}

  std::string Build() {
    out_ = "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
    absl::StrAppend(&out_, "\"producer\":\"brrr\",\"app_pid\":", trace_.app_pid,
                    ",\"trace_cap\":", trace_.cap, ",\"events_kept\":", trace_.kept(),
                    ",\"events_omitted\":", trace_.omitted(),
                    ",\"omitted_host_calls\":", trace_.omitted_host_calls,
                    ",\"omitted_device_ops\":", trace_.omitted_device_ops,
                    ",\"omitted_api_activities\":", trace_.omitted_api_activities,
                    ",\"omitted_sync_activities\":", trace_.omitted_sync_activities,
                    ",\"omitted_nvtx\":", trace_.omitted_nvtx,
                    ",\"time_origin_ns\":", origin_, "},\n\"traceEvents\":[");
    Metadata();
    // The first device op of each correlation id, for the launch -> execution flow arrows.
    for (size_t i = 0; i < trace_.device_ops.size(); ++i) {
      first_op_.try_emplace(trace_.device_ops[i].correlation_id, i);
    }
    HostCalls();
    ApiActivities();
    SyncActivities();
    DeviceOps();
    Nvtx();
    out_ += "\n]}\n";
    return std::move(out_);
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

  // Nanoseconds as microseconds with three decimals ("12.345").
  static std::string Micros(uint64_t ns) {
    return absl::StrFormat("%d.%03d", ns / 1000, ns % 1000);
  }
  std::string Ts(int64_t ns) const {
    return Micros(static_cast<uint64_t>(ns) - static_cast<uint64_t>(origin_));
  }
  static std::string Dur(int64_t start, int64_t end) {
    return Micros(end > start ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start) : 0);
  }

  void BeginEvent() {
    out_ += first_event_ ? "\n" : ",\n";
    first_event_ = false;
  }

  // {"name":...,"cat":...,"ph":"X","ts":...,"dur":...,"pid":...,"tid":...,"args":{<args>}}
  // `cname`: a Chrome trace colour name ("" = the viewer's choice).
  void Complete(absl::string_view name, absl::string_view cat, int64_t start, int64_t end,
                int64_t pid, int64_t tid, absl::string_view args, absl::string_view cname = "") {
    BeginEvent();
    out_ += "{\"name\":";
    AppendJsonString(out_, name);
    absl::StrAppend(&out_, ",\"cat\":\"", cat, "\",\"ph\":\"X\",\"ts\":", Ts(start),
                    ",\"dur\":", Dur(start, end), ",\"pid\":", pid, ",\"tid\":", tid);
    if (!cname.empty()) absl::StrAppend(&out_, ",\"cname\":\"", cname, "\"");
    absl::StrAppend(&out_, ",\"args\":{", args, "}}");
  }

  void NameMetadata(absl::string_view what, int64_t pid, int64_t tid, absl::string_view name) {
    BeginEvent();
    absl::StrAppend(&out_, "{\"name\":\"", what, "\",\"ph\":\"M\",\"pid\":", pid, ",\"tid\":", tid,
                    ",\"args\":{\"name\":");
    AppendJsonString(out_, name);
    out_ += "}}";
  }

  void Metadata() {
    const std::string app = options_.process_name.empty() ? "app" : options_.process_name;
    // Not "(pid N)": the viewers add the pid to a process's title themselves.
    NameMetadata("process_name", trace_.app_pid, 0, app);
    if (!trace_.sync_activities.empty()) {
      NameMetadata("thread_name", trace_.app_pid, kSyncTid, "CUDA synchronization (CUPTI)");
    }
    // Host threads by their tid (the main thread's is the pid), then CUPTI's thread ids where no
    // host call named the row already.
    absl::flat_hash_set<uint32_t> threads;
    for (const TraceHostCall& h : trace_.host_calls) {
      if (h.tid == kSyncTid || !threads.insert(h.tid).second) continue;
      NameMetadata("thread_name", trace_.app_pid, h.tid,
                   absl::StrCat(h.tid == trace_.app_pid ? "main thread " : "thread ", h.tid));
    }
    for (const TraceApiActivity& a : trace_.api_activities) {
      if (a.thread_id == kSyncTid || !threads.insert(a.thread_id).second) continue;
      NameMetadata("thread_name", trace_.app_pid, a.thread_id,
                   absl::StrCat("CUDA API (CUPTI thread ", a.thread_id, ")"));
    }
    absl::flat_hash_set<uint32_t> devices;
    absl::flat_hash_set<std::pair<uint32_t, uint32_t>> streams;
    for (const TraceDeviceOp& d : trace_.device_ops) {
      if (devices.insert(d.device_id).second) {
        NameMetadata("process_name", kGpuPidBase + d.device_id, 0,
                     absl::StrCat("GPU ", d.device_id));
      }
      if (streams.insert({d.device_id, d.stream_id}).second) {
        NameMetadata("thread_name", kGpuPidBase + d.device_id, d.stream_id,
                     absl::StrCat("stream ", d.stream_id));
      }
    }
  }

  std::string HostApiName(uint16_t api) const {
    return options_.host_api_name ? options_.host_api_name(api) : absl::StrCat("api ", api);
  }
  std::string CuptiCallName(bool driver, uint32_t cbid) const {
    if (options_.cupti_call_name) return options_.cupti_call_name(driver, cbid);
    return absl::StrCat(driver ? "driver cbid " : "cbid ", cbid);
  }

  void HostCalls() {
    for (const TraceHostCall& h : trace_.host_calls) {
      const std::string stall = options_.stall_reason ? options_.stall_reason(h) : std::string();
      std::string args =
          absl::StrCat("\"stream\":", h.stream, ",\"bytes\":", h.bytes, ",\"result\":", h.result,
                       ",\"stack_id\":", h.stack_id, ",\"copy_kind\":", h.copy_kind);
      if (h.correlation_id != 0) absl::StrAppend(&args, ",\"correlation_id\":", h.correlation_id);
      // A call whose CUPTI record was folded into it draws the arrow to its kernel itself.
      Flow(h.correlation_id, h.enter_ns, h.tid);
      if (stall.empty()) {
        Complete(HostApiName(h.api), "host", h.enter_ns, h.exit_ns, trace_.app_pid, h.tid, args);
        continue;
      }
      args += ",\"stall\":";
      AppendJsonString(args, stall);
      Complete(HostApiName(h.api), "host,stall", h.enter_ns, h.exit_ns, trace_.app_pid, h.tid,
               args, "terrible");
      BeginEvent();
      out_ += "{\"name\":";
      AppendJsonString(out_, absl::StrCat("stall: ", stall));
      absl::StrAppend(&out_, ",\"cat\":\"stall\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", Ts(h.enter_ns),
                      ",\"pid\":", trace_.app_pid, ",\"tid\":", h.tid, "}");
    }
  }

  // The arrow from a call (at `ts` on host thread `tid`) to the first device op of its
  // correlation id; once per id, none for 0 or an id without device work.
  void Flow(uint32_t correlation_id, int64_t ts, uint32_t tid) {
    const auto op = first_op_.find(correlation_id);
    if (correlation_id == 0 || op == first_op_.end() || !linked_.insert(correlation_id).second) {
      return;
    }
    const TraceDeviceOp& d = trace_.device_ops[op->second];
    BeginEvent();
    absl::StrAppend(&out_, "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":",
                    correlation_id, ",\"ts\":", Ts(ts), ",\"pid\":", trace_.app_pid,
                    ",\"tid\":", tid, "}");
    BeginEvent();
    absl::StrAppend(&out_,
                    "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":",
                    correlation_id, ",\"ts\":", Ts(d.start_ns),
                    ",\"pid\":", kGpuPidBase + d.device_id, ",\"tid\":", d.stream_id, "}");
  }

  void ApiActivities() {
    for (const TraceApiActivity& a : trace_.api_activities) {
      Complete(CuptiCallName(a.driver, a.cbid), a.driver ? "cuda_driver" : "cuda_runtime",
               a.start_ns, a.end_ns, trace_.app_pid, a.thread_id,
               absl::StrCat("\"correlation_id\":", a.correlation_id, ",\"cbid\":", a.cbid,
                            ",\"result\":", a.result));
      Flow(a.correlation_id, a.start_ns, a.thread_id);
    }
  }

  void SyncActivities() {
    for (const TraceSyncActivity& s : trace_.sync_activities) {
      Complete(SyncTypeName(s.type), "sync", s.start_ns, s.end_ns, trace_.app_pid, kSyncTid,
               absl::StrCat("\"correlation_id\":", s.correlation_id, ",\"stream\":", s.stream_id));
    }
  }

  void DeviceOps() {
    std::vector<std::string> demangled(trace_.names.size());
    for (const TraceDeviceOp& d : trace_.device_ops) {
      std::string name = DeviceOpCategory(d.kind);
      if (d.name_index < trace_.names.size()) {
        std::string& cached = demangled[d.name_index];
        if (cached.empty()) cached = Demangle(trace_.names[d.name_index]);
        name = cached;
      }
      Complete(name, DeviceOpCategory(d.kind), d.start_ns, d.end_ns, kGpuPidBase + d.device_id,
               d.stream_id,
               absl::StrCat("\"correlation_id\":", d.correlation_id, ",\"bytes\":", d.bytes,
                            ",\"copy_kind\":", d.copy_kind));
    }
  }

  // NVTX: push/pop ranges as "X" slices on their thread's row (nested as they were), start/end
  // ranges as async "b"/"e" pairs (they may overlap and end on another thread), marks as instant
  // events; ranges still open when the trace ends are closed at its last event, marked unclosed.
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
          Complete(NvtxLabel(*open), "nvtx", open->time_ns, n.time_ns, trace_.app_pid, n.tid, "");
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
          BeginEvent();
          out_ += "{\"name\":";
          AppendJsonString(out_, NvtxLabel(n));
          absl::StrAppend(&out_, ",\"cat\":\"nvtx\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
                          Ts(n.time_ns), ",\"pid\":", trace_.app_pid, ",\"tid\":", n.tid, "}");
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
        Complete(NvtxLabel(*open), "nvtx", open->time_ns, std::max(last, open->time_ns),
                 trace_.app_pid, tid, "\"unclosed\":true");
      }
    }
    for (uint64_t id : start_order) {
      auto it = started.find(id);
      if (it != started.end()) AsyncRange(*it->second, std::max(last, it->second->time_ns), true);
    }
  }

  void AsyncRange(const TraceNvtx& start, int64_t end, bool unclosed) {
    for (const char* ph : {"b", "e"}) {
      BeginEvent();
      out_ += "{\"name\":";
      AppendJsonString(out_, NvtxLabel(start));
      absl::StrAppend(&out_, ",\"cat\":\"nvtx\",\"ph\":\"", ph, "\",\"id\":", start.range_id,
                      ",\"ts\":", Ts(ph[0] == 'b' ? start.time_ns : end),
                      ",\"pid\":", trace_.app_pid, ",\"tid\":", start.tid,
                      unclosed ? ",\"args\":{\"unclosed\":true}}" : "}");
    }
  }

  const Trace& trace_;
  const ChromeTraceOptions& options_;
  const int64_t origin_;
  std::string out_;
  absl::flat_hash_map<uint32_t, size_t> first_op_;  // correlation id -> first device op
  absl::flat_hash_set<uint32_t> linked_;            // ids whose arrow is drawn
  bool first_event_ = true;
};

}  // namespace

std::string RenderChromeTrace(const Trace& trace, const ChromeTraceOptions& options) {
  return ChromeTraceBuilder(trace, options).Build();
}

}  // namespace brrr
