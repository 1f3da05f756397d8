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
// on the simulated device's threads when the work completes. OnSynchronization is called on the
// host thread when the blocking call returns. A sink must be thread-safe and must never call back
// into the engine.
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
};

struct MemsetEvent {
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

 protected:
  ~ActivitySink() = default;
};

}  // namespace simcuda

// Exported by the simulated libcuda.so.1. Passing nullptr unregisters. Registration happens-before
// every later event delivery; the engine stops calling the previous sink before this returns.
extern "C" void simcuda_set_activity_sink(simcuda::ActivitySink* sink);

#endif  // BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ACTIVITY_SINK_H_
