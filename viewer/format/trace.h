// The optional full event trace: the first N decoded events of a run (host calls, device ops, CUDA
// API activity, synchronization activity, NVTX ranges and marks) in compact fixed-size records, kernel names in a
// deduplicated string table, and how many events the cap left out. Recorded by the collector
// (collector/ingest/trace_recorder.h), stored as section type 2 of a .brrr file
// (viewer/format/trace_payload.h, viewer/format/BRRR_FORMAT.md) and exported by `brrr report --chrome-trace`.
// All times are CLOCK_MONOTONIC nanoseconds, as in events.h.
//
// Must never: hold anything but plain values (no pointers into shared memory); grow without the
// cap that the recorder enforces.
#ifndef BRRR_VIEWER_FORMAT_TRACE_H_
#define BRRR_VIEWER_FORMAT_TRACE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace brrr {

// Default and largest event cap of `brrr run --trace[=N]` / BRRR_TRACE=N. The default is what the
// Perfetto export's size allows (issue 23): 4x the events the JSON export could carry in the same
// bytes. Its memory bound, measured (`brrr run --trace -- e2e_launch_bound 2000000`, 4M events):
// the collector ~65 bytes per event (~260 MB), the .brrr file 52 (208 MB), an export ~0.22 KB
// while it is written (885 MB peak), the Perfetto file 44 (176 MB), the JSON ~280 (~1.1 GB).
inline constexpr uint64_t kDefaultTraceCap = 4'000'000;
inline constexpr uint64_t kMaxTraceCap = 100'000'000;
// A device op without a kernel name (copies, memsets, or a name the table had no room for).
inline constexpr uint32_t kNoTraceName = 0xffffffffu;

// TraceHostCall.source.
inline constexpr uint8_t kTraceCallHook = 0;             // a runtime-symbol hook
inline constexpr uint8_t kTraceCallRuntimeCallback = 1;  // a CUPTI callback, runtime function
inline constexpr uint8_t kTraceCallDriverCallback = 2;   // a CUPTI callback, driver function

struct TraceHostCall {
  int64_t enter_ns = 0;
  int64_t exit_ns = 0;
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint32_t tid = 0;       // gettid of the calling thread
  uint32_t stack_id = 0;  // the collector's stack id; 0 = none
  int32_t result = 0;
  uint16_t api = 0;       // ring::Api
  uint8_t copy_kind = 0;  // ring::CopyKind
  // The CUPTI correlation id of the call: its CUPTI callback's, or that of the CUPTI API record
  // the recorder folded into it (the same call seen twice); 0 = none (payload versions 1 and 2).
  uint32_t correlation_id = 0;
  // How the shim saw the call (kTraceCall*): a call seen through a CUPTI callback has no api (0)
  // and is named by (driver, cbid). Files written before it say kTraceCallHook.
  uint8_t source = 0;
  uint32_t cbid = 0;  // a callback's CUPTI callback id; 0 for a hook's
  bool operator==(const TraceHostCall&) const = default;
};

struct TraceDeviceOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint32_t name_index = kNoTraceName;  // into Trace::names
  uint8_t kind = 0;                    // DeviceOpKind: 0 kernel, 1 memcpy, 2 memset
  uint8_t copy_kind = 0;               // CUpti_ActivityMemcpyKind
  bool operator==(const TraceDeviceOp&) const = default;
};

struct TraceApiActivity {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t cbid = 0;
  uint32_t thread_id = 0;  // CUPTI threadId
  uint32_t correlation_id = 0;
  int32_t result = 0;
  bool driver = false;
  bool operator==(const TraceApiActivity&) const = default;
};

struct TraceSyncActivity {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t type = 0;  // CUpti_ActivitySynchronizationType
  uint32_t correlation_id = 0;
  uint32_t stream_id = 0;
  bool operator==(const TraceSyncActivity&) const = default;
};

// An NVTX event (range push/pop, start/end, mark): its message and domain are names in the
// table (kNoTraceName: none, or no room).
struct TraceNvtx {
  int64_t time_ns = 0;
  uint64_t range_id = 0;  // start/end ranges: the id nvtxRangeStart returned; else 0
  uint32_t tid = 0;       // gettid of the thread that called NVTX
  uint32_t message_index = kNoTraceName;
  uint32_t domain_index = kNoTraceName;  // kNoTraceName: the default domain
  uint8_t op = 0;                        // ring::NvtxOp: 1 push, 2 pop, 3 start, 4 end, 5 mark
  bool operator==(const TraceNvtx&) const = default;
};

struct Trace {
  uint32_t app_pid = 0;
  uint64_t cap = 0;  // the most events the recorder kept (all kinds together)
  // Events of each kind that arrived after the cap was reached.
  uint64_t omitted_host_calls = 0;
  uint64_t omitted_device_ops = 0;
  uint64_t omitted_api_activities = 0;
  uint64_t omitted_sync_activities = 0;
  uint64_t omitted_nvtx = 0;
  std::vector<TraceHostCall> host_calls;
  std::vector<TraceDeviceOp> device_ops;
  std::vector<TraceApiActivity> api_activities;
  std::vector<TraceSyncActivity> sync_activities;
  std::vector<TraceNvtx> nvtx;
  std::vector<std::string> names;  // kernel names and NVTX messages and domains, each once

  uint64_t kept() const {
    return host_calls.size() + device_ops.size() + api_activities.size() + sync_activities.size() +
           nvtx.size();
  }
  uint64_t omitted() const {
    return omitted_host_calls + omitted_device_ops + omitted_api_activities +
           omitted_sync_activities + omitted_nvtx;
  }
  // From the earliest start to the latest end of the kept events (0 when none).
  int64_t KeptSpanNs() const {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    auto widen = [&](int64_t a, int64_t b) {
      lo = std::min(lo, a);
      hi = std::max(hi, b);
    };
    for (const TraceHostCall& e : host_calls) widen(e.enter_ns, e.exit_ns);
    for (const TraceDeviceOp& e : device_ops) widen(e.start_ns, e.end_ns);
    for (const TraceApiActivity& e : api_activities) widen(e.start_ns, e.end_ns);
    for (const TraceSyncActivity& e : sync_activities) widen(e.start_ns, e.end_ns);
    for (const TraceNvtx& e : nvtx) widen(e.time_ns, e.time_ns);
    return hi > lo ? hi - lo : 0;
  }
  bool operator==(const Trace&) const = default;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_TRACE_H_
