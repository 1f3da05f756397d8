// The contract between the simulated device (libcuda.so.1 of tools/simcuda) and the simulated
// CUPTI (libcupti.so.13): the engine reports every API call and every piece of device work, as it
// happens, to at most one registered sink. CUPTI turns these events into real CUpti_Activity*
// records. Nothing else may depend on this header: real programs never see it.
//
// Clock: every *_ns field is CLOCK_MONOTONIC nanoseconds ("engine time"). The sink maps them onto
// the clock its client registered. Device timestamps are the model's exact values (start, end =
// start + configured duration), not measurements.
//
// Threads: OnApiExit is called on the thread that made the API call, after the call's work (so a
// thread-local external-correlation stack can be read there). OnKernel/OnMemcpy/OnMemset are called
// on the simulated device's threads when the work completes; OnKernelQueued/OnMemcpyQueued/
// OnMemsetQueued on the enqueuing thread, with the engine's lock held (so before the completion of
// the same work: a sink must then take no lock the engine's callers may hold), with the event the
// completion will carry, its times 0. work_id ties the two together. OnSynchronization is called on
// the host thread when the blocking call returns. A sink must be thread-safe and must never call
// back into the engine.
//
// API callbacks (the second interface here, ApiCallbackSink): registered separately, with
// simcuda_set_api_callback_sink, and independent of the activity sink. For every runtime and
// driver API call the engine calls OnApiEnter on the calling thread after assigning the call's
// correlation id and BEFORE the call does any work (before it blocks, for synchronizing calls),
// and OnApiExit on the same thread after the work and after ActivitySink::OnApiExit reported the
// call -- but only if OnApiEnter stored a non-null *sink_state. Unlike an ActivitySink, a callback
// sink MAY call back into the engine and into CUDA functions (it is called with no engine lock
// held); it must then stop its own recursion (the simulated CUPTI does, with a thread-local flag).
// A registered callback sink must never be destroyed (calls in flight may still reach it).
#ifndef BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ACTIVITY_SINK_H_
#define BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ACTIVITY_SINK_H_

#include <cstdint>

namespace simcuda {

enum class ApiDomain : uint8_t { kRuntime = 0, kDriver = 1 };

// One API call (runtime or driver). cbid is the CUPTI callback id of the function
// (CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid).
struct ApiEvent {
  ApiDomain domain;
  uint32_t cbid;
  uint32_t correlation_id;  // unique per API call in the process, never 0
  uint32_t process_id;
  uint32_t thread_id;  // gettid()
  uint64_t start_ns;
  uint64_t end_ns;
  int32_t return_value;  // cudaError_t / CUresult
};

struct KernelEvent {
  uint64_t work_id;  // unique among work queued and not yet completed (OnKernelQueued's)
  const char* name;  // mangled device function name; valid for the life of the process
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  int32_t grid_x, grid_y, grid_z;
  int32_t block_x, block_y, block_z;
  int32_t dynamic_shared_memory;
  uint64_t queued_ns;     // host enqueued the launch
  uint64_t submitted_ns;  // launch handed to the device
  uint64_t start_ns;
  uint64_t end_ns;
  // Added for graphs and cooperative launches (CUpti_ActivityKernel10 graphId, graphNodeId,
  // launchType).
  uint32_t graph_id;       // 0: not launched from a graph
  uint64_t graph_node_id;  // 0: not launched from a graph
  bool cooperative;        // launchType COOPERATIVE_SINGLE_DEVICE instead of REGULAR
};

// Values of CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind, carried as integers so that
// this header needs no CUPTI include.
struct MemcpyEvent {
  uint64_t work_id;   // as KernelEvent's
  uint8_t copy_kind;  // CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, ...
  uint8_t src_kind;   // CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, _PINNED, _DEVICE, ...
  uint8_t dst_kind;
  bool is_async;
  uint64_t bytes;
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t queued_ns;  // host enqueued it (0: unknown); CUPTI traces it if its kind was on then
};

struct MemsetEvent {
  uint64_t work_id;  // as KernelEvent's
  uint32_t value;
  uint8_t memory_kind;  // CUpti_ActivityMemoryKind
  bool is_async;
  uint64_t bytes;
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t queued_ns;  // host enqueued it (0: unknown); CUPTI traces it if its kind was on then
};

// A host thread blocked in a synchronizing call. type is CUpti_ActivitySynchronizationType.
// stream_id / cuda_event_id are CUPTI_SYNCHRONIZATION_INVALID_VALUE (0xffffffff) when not
// applicable.
struct SynchronizationEvent {
  uint8_t type;
  uint32_t correlation_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t cuda_event_id;
  uint64_t start_ns;
  uint64_t end_ns;
};

class ActivitySink {
 public:
  virtual void OnApiExit(const ApiEvent& e) = 0;
  virtual void OnKernel(const KernelEvent& e) = 0;
  virtual void OnMemcpy(const MemcpyEvent& e) = 0;
  virtual void OnMemset(const MemsetEvent& e) = 0;
  virtual void OnSynchronization(const SynchronizationEvent& e) = 0;
  // Device work queued (see Threads above): what a forced flush of real CUPTI hands back, untimed,
  // when it has not completed by then. Nothing by default.
  virtual void OnKernelQueued(const KernelEvent& /*e*/) {}
  virtual void OnMemcpyQueued(const MemcpyEvent& /*e*/) {}
  virtual void OnMemsetQueued(const MemsetEvent& /*e*/) {}

 protected:
  ~ActivitySink() = default;
};

// One API call as the callback sink sees it at its enter and exit hooks. Valid only during the
// hook; the pointers point into the call's simcuda_api_call on the calling thread's stack and stay
// the same from enter to exit.
struct ApiCallSite {
  ApiDomain domain;
  uint32_t cbid;               // CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid
  uint32_t correlation_id;     // the same id as the call's ApiEvent (its CUPTI API activity record)
  uint32_t context_id;         // 1: the one context (as in activity records)
  void* context;               // the one context's CUcontext handle (the primary context)
  uint64_t* correlation_data;  // per-call slot, 0 at enter; what enter writes, exit reads back
  int32_t* return_value;       // cudaError_t / CUresult: the call's result at exit, 0 at enter
  void** sink_state;           // the sink's per-call word: nullptr at enter; non-null = want exit
};

class ApiCallbackSink {
 public:
  virtual void OnApiEnter(const ApiCallSite& call) = 0;
  virtual void OnApiExit(const ApiCallSite& call) = 0;

 protected:
  ~ApiCallbackSink() = default;
};

}  // namespace simcuda

// Exported by the simulated libcuda.so.1: the one API callback sink (nullptr unregisters). A call
// that begins after this returns sees the new sink; a call already past its enter hook may still
// reach the previous sink's OnApiExit (so sinks are never destroyed).
extern "C" void simcuda_set_api_callback_sink(simcuda::ApiCallbackSink* sink);

// Exported by the simulated libcuda.so.1: waits until the device work queued before the call has
// run (the simulated CUPTI's cuptiSubscribe and cuptiFinalize, as the real ones do).
extern "C" void simcuda_wait_queued_work();

// Exported by the simulated libcuda.so.1. Passing nullptr unregisters. Registration happens-before
// every later event delivery; the engine stops calling the previous sink before this returns.
extern "C" void simcuda_set_activity_sink(simcuda::ActivitySink* sink);

#endif  // BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ACTIVITY_SINK_H_
