// Decoded, clock-aligned events: what the collector's analysis consumes. The segment reader turns
// untrusted shared memory into these (validating everything); the analysis never sees raw memory.
// All times are CLOCK_MONOTONIC nanoseconds.
//
// Must never: hold pointers into shared memory (the app may die and the mapping go away).
#ifndef BRRR_COLLECTOR_EVENTS_H_
#define BRRR_COLLECTOR_EVENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "shim/ring_format.h"

namespace brrr {

using ring::Api;
using ring::CopyKind;
using ring::HostMemory;

// How the shim saw a host call.
enum class CallSource : uint8_t {
  kHook = 0,           // a runtime-symbol hook (dynamic libcudart): api is set
  kCuptiCallback = 1,  // a CUPTI API callback on the calling thread (driver API, static cudart,
                       // libraries with their own runtime): driver/cbid name the function, api is
                       // set when it is a runtime function brrr knows
};

// One host call intercepted by the shim.
struct HostCall {
  Api api = Api::kUnknown;
  uint32_t tid = 0;         // gettid of the calling thread
  uint64_t pthread_id = 0;  // pthread_self of the calling thread
  int64_t enter_ns = 0;
  int64_t exit_ns = 0;
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint64_t target = 0;
  CopyKind copy_kind = CopyKind::kNone;
  HostMemory host_memory = HostMemory::kNone;
  uint32_t flags = 0;     // ring::HostRecordFlags
  int32_t result = 0;
  uint32_t stack_id = 0;  // collector-wide stack id (StackTable); 0 = none
  CallSource source = CallSource::kHook;
  bool driver = false;          // kCuptiCallback: a driver API function (else runtime)
  uint32_t cbid = 0;            // kCuptiCallback: CUPTI callback id of the function
  // kCuptiCallback: CUPTI correlation id; kHook: the id of the driver call made inside it
  // (ring::kRecordCorrelationFromDriver), its device work's; 0 = unknown.
  uint32_t correlation_id = 0;
  // brrr's own time after exit_ns, capturing the call's stack before the app went on (0: none or
  // not timed): not the app's time.
  int64_t capture_ns = 0;
};

enum class DeviceOpKind : uint8_t { kKernel, kMemcpy, kMemset };

// Work executed on a device (CUPTI CONCURRENT_KERNEL / MEMCPY / MEMSET).
struct DeviceOp {
  DeviceOpKind kind = DeviceOpKind::kKernel;
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t queued_ns = 0;     // 0 = unknown
  int64_t submitted_ns = 0;  // 0 = unknown
  uint64_t bytes = 0;
  uint8_t copy_kind = 0;  // CUpti_ActivityMemcpyKind
  uint8_t src_kind = 0;   // CUpti_ActivityMemoryKind
  uint8_t dst_kind = 0;
  std::string name;  // kernels: mangled or plain name as CUPTI gave it
  // Kernels: the segment's id for `name` (0 = none). Within one segment, equal ids are equal
  // names, so per-kernel work can key on the id instead of hashing the name.
  uint32_t name_id = 0;
  // CUPTI could not time this work: its record came with a start or end of 0 (the CUPTI docs: "a
  // value of 0 for both the start and end timestamps indicates that timestamp information could not
  // be collected"; a forced flush hands back work still running with a zero end, and never again,
  // pytorch/pytorch#195844). start_ns and end_ns are 0 then and mean nothing.
  bool untimed = false;
};

// A CUDA API call as CUPTI saw it (RUNTIME or DRIVER activity).
struct ApiActivity {
  bool driver = false;
  uint32_t cbid = 0;
  uint32_t thread_id = 0;  // CUPTI threadId (gettid or pthread_self: match either)
  uint32_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t result = 0;
};

// A CUPTI SYNCHRONIZATION record: a host thread blocked waiting for the device.
struct SyncActivity {
  uint32_t type = 0;  // CUpti_ActivitySynchronizationType
  uint32_t correlation_id = 0;
  uint32_t stream_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Which clock PM sample timestamps turned out to be on (collector/ingest/counter_clock.h).
enum class CounterClockBasis : uint8_t {
  kUndecided = 0,
  kMonotonic = 1,
  kCuptiTimestamp = 2,
  kRealtime = 3,
};

// What the report says the per-kernel join is based on ("" for kUndecided).
inline const char* CounterClockBasisText(CounterClockBasis basis) {
  switch (basis) {
    case CounterClockBasis::kMonotonic:
      return "PM sample timestamps on CLOCK_MONOTONIC, as kernel records";
    case CounterClockBasis::kCuptiTimestamp:
      return "PM sample timestamps on cuptiGetTimestamp's clock, offset by a pair read at start";
    case CounterClockBasis::kRealtime:
      return "PM sample timestamps on CLOCK_REALTIME, offset by a pair read at start";
    case CounterClockBasis::kUndecided:
      break;
  }
  return "";
}

// One hardware-counter sample (ring::DeviceKind::kCounterSample, `brrr run --counters`): the
// device's SM and DRAM throughput (% of peak) and GPU active share (%) over [start_ns, end_ns).
// A value the shim could not measure is NaN. `aligned`: the reader put the sample's times on
// CLOCK_MONOTONIC (clock_basis says how); when false they are the raw PM
// clock's and must not be compared with other events' times.
struct CounterSampleEvent {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double sm_pct = 0;
  double dram_pct = 0;
  double active_pct = 0;
  uint64_t number = 0;  // the shim's sample number (0, 1, 2...)
  uint32_t device_id = 0;  // the device sampled
  bool aligned = false;
  CounterClockBasis clock_basis = CounterClockBasis::kUndecided;
};

// A span of time in which the shim had device tracing on, in a run that traces the device in
// windows (BRRR_SAMPLE_DEVICE, ring::DeviceKind::kTracingWindow): CLOCK_MONOTONIC ns. end_ns == 0
// announces a window that opened and has not closed yet (its close follows with the same start).
struct TracingWindowEvent {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The windows' length as the segment's header states it (SegmentHeader.device_window_ms, written
  // before any window): 0 = unknown.
  uint32_t window_ms = 0;
  // A close record's: when CUPTI was to be detached after this window (it stayed subscribed with
  // its kinds off until then: ring::DeviceKind::kTracingWindow); 0 = no detach, or a shim that did
  // not say (then the span after a window is window_ms long).
  int64_t detach_at_ns = 0;
  // A close record's: CUPTI was detached between windows but stayed attached after this one (the
  // device ran behind its host: shim/detach_grace.h).
  bool kept_attached = false;
};

// A deduplicated native stack, innermost frame first, as return addresses.
struct Stack {
  uint32_t id = 0;
  std::vector<uint64_t> pcs;
};

// An NVTX event of one thread (ring::kRecordNvtx): a range opened or closed, or a mark. Not a CUDA
// call: it never counts as one. Names are the shim's registered strings, control characters
// replaced; an empty domain is the default domain.
struct NvtxEvent {
  ring::NvtxOp op = ring::NvtxOp::kMark;
  uint32_t tid = 0;  // gettid of the thread that called NVTX
  int64_t time_ns = 0;
  std::string message;    // the range's or mark's message ("" when none)
  std::string domain;     // "" = the default domain
  uint64_t range_id = 0;  // start/end ranges: the id nvtxRangeStart returned; else 0
};

// Everything about the run that is not a stream of events.
struct RunInfo {
  std::string command;
  uint32_t pid = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;        // 0 until known
  bool exited_normally = false;
  int exit_code = 0;         // the app's exit status, or 128+signal when killed (as a shell says)
  int term_signal = 0;       // nonzero when killed by a signal
  // The process ended without an exit status the collector could learn (plain LD_PRELOAD: killed
  // or crashed; its parent, not the collector, saw the status).
  bool vanished = false;
  // The process replaced its program (exec) before it exited: the report ends at the exec and
  // the exit status belongs to the new program (plain LD_PRELOAD; its report is its own file).
  bool execed = false;
  bool running = false;  // a snapshot of a run still going
  bool host_only = false;
  std::string host_only_reason;  // human-readable, empty when not host-only
  uint64_t host_records = 0;     // recorded host calls
  uint64_t host_dropped = 0;     // dropped host calls (full rings, too many threads)
  // Of them, those of threads past the segment's max_threads (no ring of their own), and that cap.
  uint64_t host_dropped_no_ring = 0;
  uint32_t max_threads = 0;
  uint32_t execs = 0;  // programs the process exec'd into that recorded on (SegmentHeader.execs)
  uint64_t device_records = 0;
  uint64_t device_dropped = 0;   // full device ring + CUPTI's own drops
  // Python frames, as the shim's header states them (ring::SegmentHeader python_*).
  uint32_t python_status = 0;         // ring::PythonStatus; 0 = no Python
  uint32_t python_version = 0;        // PY_VERSION_HEX of the interpreter read; 0 = none
  uint32_t python_notes = 0;          // ring::PythonNotes bits
  uint64_t python_failures = 0;       // captures whose Python frames were dropped
  uint64_t code_overflow = 0;         // Python frames not stored: code table full
  uint32_t launch_sample_period = 0;  // 1 in N launches carries its stack; 0 = off
  // Capture ranges, as the shim's header states them (ring::SegmentHeader capture_*).
  uint32_t capture_mode = 0;  // ring::CaptureMode
  std::string capture_name;   // nvtx mode: the range name (bounded by the header's array)
  uint32_t capture_ranges = 0;
  uint64_t capture_ns = 0;
  uint64_t capture_dropped = 0;
  // Sampled device tracing, as the shim's header states it (ring::SegmentHeader device_*):
  // permille of the run's time traced (1000 = all, the default), windows closed so far and their
  // total length, and the start of a window still open (0 = none; a killed app leaves one).
  uint32_t device_sample_permille = 1000;
  uint64_t device_windows = 0;
  uint64_t device_traced_ns = 0;
  uint64_t device_window_open_ns = 0;
  uint64_t device_sampling_start_ns = 0;  // the schedule's start; 0 = unknown
  uint32_t device_budget_permille = 0;    // BRRR_OVERHEAD_BUDGET; 0 = none
  uint32_t device_window_ms = 0;  // the windows' length (BRRR_SAMPLE_WINDOW_MS); 0 = unknown
  // What one recorded call costs the app, as the shim measured it at start (ns; 0 = unknown).
  uint32_t hook_record_ns = 0;
  // How often the shim detached CUPTI while device tracing was off (SegmentHeader.cupti_detaches).
  uint32_t cupti_detaches = 0;
  // What those detaches and the attaches after them took (SegmentHeader.cupti_detach_ns and
  // cupti_attach_ns; 0 = none or unknown).
  uint64_t cupti_detach_ns = 0;
  uint64_t cupti_attach_ns = 0;
  // PyTorch's labels (SegmentHeader.torch_annotations: ring::TorchAnnotations, kNone when unknown)
  // and, when set, torch's version and why its labels were not hooked (bounded by the header).
  uint32_t torch_annotations = 0;
  std::string torch_version;
  std::string torch_reason;
};

// Receives decoded events in the order the reader drains them (per thread in time order; across
// threads and between host and device, in no particular order). Implemented by the analysis.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void OnHostCall(const HostCall& call) = 0;
  virtual void OnDeviceOp(const DeviceOp& op) = 0;
  virtual void OnApiActivity(const ApiActivity& api) = 0;
  virtual void OnSyncActivity(const SyncActivity& sync) = 0;
  virtual void OnStack(const Stack& stack) = 0;
  // In order with the same thread's OnHostCall events (one ring per thread).
  virtual void OnNvtx(const NvtxEvent& /*event*/) {}
  // The shim was asked for hardware counters (its counters_state left kCountersOff): sent once,
  // by the drain that first sees it, before that drain's device records.
  virtual void OnCountersRequested() {}
  // In the order the sampler published them.
  virtual void OnCounterSample(const CounterSampleEvent& /*sample*/) {}
  // In the order the shim wrote them: a window's opening (end_ns 0), then its close.
  virtual void OnTracingWindow(const TracingWindowEvent& /*window*/) {}
};

}  // namespace brrr

#endif  // BRRR_COLLECTOR_EVENTS_H_
