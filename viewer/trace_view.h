// What a trace export draws, decided once for every format (Chrome JSON in chrome_trace.h, native
// Perfetto in perfetto/perfetto_trace.h): the rows (the app's process with a row per thread and
// one for CUPTI's synchronization records; a process "GPU N" per device with a row per stream),
// the slices on them (host calls, CUPTI-seen calls, synchronization, device ops, NVTX push/pop
// ranges) with their arguments and stall marks, instants (stall marks, NVTX marks), NVTX start/end
// ranges (async: they may overlap and end on another thread) and the flows from each call to the
// first device op of its correlation id. Names, categories and argument keys are interned.
//
// Thread safety: pure function.
// Must never: make more than one slice per recorded call or op, give a flow an end without its
// start, or overflow on any timestamps.
#ifndef BRRR_VIEWER_TRACE_VIEW_H_
#define BRRR_VIEWER_TRACE_VIEW_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "viewer/format/trace.h"

namespace brrr {

inline constexpr int64_t kGpuPidBase = int64_t{1} << 30;  // above any Linux pid (at most 2^22)
inline constexpr int64_t kSyncTid = 0;  // the app process's row for synchronization activity

struct TraceViewOptions {
  std::string process_name;  // the app's row title, e.g. its command line ("" = "app")
  // Names for host calls (ring::Api values) and CUPTI-seen calls; defaults say "api N" / "cbid N".
  std::function<std::string(uint16_t api)> host_api_name;
  std::function<std::string(bool driver, uint32_t cbid)> cupti_call_name;
  // The stall reason of a host call ("d2h_copy") when the collector's rules make it a stall, ""
  // otherwise; unset: no call is marked. A stall's slice gets category "host,stall", its reason as
  // argument "stall" and the stall mark; an instant "stall: REASON" marks its start.
  std::function<std::string(const TraceHostCall& call)> stall_reason;
};

struct TraceView {
  struct Arg {
    enum class Kind : uint8_t { kInt, kUint, kText, kBool, kPointer };  // kPointer: a handle
    uint32_t key;  // index into strings
    Kind kind;
    int64_t value;  // kUint, kPointer: the bits of a uint64_t; kText: index into strings; kBool: 0
                    // or 1
  };
  struct Process {
    int64_t pid;
    uint32_t name;
  };
  struct Thread {  // a row of a process: a thread, CUPTI's synchronization row or a stream
    int64_t pid;
    int64_t tid;
    uint32_t name;
  };
  struct Slice {
    int64_t start_ns;
    int64_t end_ns;  // never before start_ns
    int64_t pid;
    int64_t tid;
    uint32_t name;
    uint32_t category;
    uint32_t first_arg;  // args[first_arg, first_arg + arg_count)
    uint32_t arg_count;
    uint32_t flow_out;  // a flow starts here (its correlation id); 0: none
    uint32_t flow_in;   // a flow ends here; 0: none
    bool stall;
  };
  struct Instant {
    int64_t time_ns;
    int64_t pid;
    int64_t tid;
    uint32_t name;
    uint32_t category;
  };
  struct AsyncRange {
    int64_t start_ns;
    int64_t end_ns;
    int64_t pid;
    int64_t tid;  // the thread that started it
    uint64_t id;
    uint32_t name;
    uint32_t category;
    bool unclosed;  // the trace ended inside it: it ends at the trace's last event
  };

  // strings[kUnclosedKey] is "unclosed" (the argument of a range the trace ended inside),
  // strings[kRangeIdKey] "range_id" (an NVTX start/end range's id, for a writer that shows it) and
  // strings[kCorrelationIdKey] "correlation_id" (CUPTI's, of a call and of the work it started:
  // a writer with a field of its own for it can tell it from the other arguments).
  static constexpr uint32_t kUnclosedKey = 0;
  static constexpr uint32_t kRangeIdKey = 1;
  static constexpr uint32_t kCorrelationIdKey = 2;
  // The trace's own figures, for a writer's header (the view needs the trace no longer).
  struct Totals {
    uint32_t app_pid = 0;
    uint64_t cap = 0;
    uint64_t kept = 0;
    uint64_t omitted = 0;
    uint64_t omitted_host_calls = 0;
    uint64_t omitted_device_ops = 0;
    uint64_t omitted_api_activities = 0;
    uint64_t omitted_sync_activities = 0;
    uint64_t omitted_nvtx = 0;
  };

  std::vector<std::string> strings;
  std::vector<Process> processes;
  std::vector<Thread> threads;
  std::vector<Slice> slices;
  std::vector<Arg> args;
  std::vector<Instant> instants;
  std::vector<AsyncRange> async_ranges;
  int64_t origin_ns = 0;  // the earliest event's time (0 for an empty trace)
  Totals totals;

  const std::string& Text(uint32_t index) const { return strings[index]; }
};

TraceView BuildTraceView(const Trace& trace, const TraceViewOptions& options = {});

}  // namespace brrr

#endif  // BRRR_VIEWER_TRACE_VIEW_H_
