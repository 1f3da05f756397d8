// The simulated device ("engine") as seen by the simulated CUDA runtime and the driver entry points
// (cu*): a C-style interface exported by the simulated libcuda.so.1. Real programs never include
// this header; only tools/simcuda does. The static runtime (libsimcudart_static.a) compiles it with
// SIMCUDA_ENGINE_HIDDEN: there these names are local trampolines that reach libcuda.so.1 through
// dlopen + dlsym (runtime/engine_via_dlopen.cc).
//
// Model: one device; streams run their queued work in order on device threads, concurrently with
// the host and other streams, in simulated device time (CLOCK_MONOTONIC ns). Every piece of work
// gets exact virtual timestamps (start = max(enqueued, end of the previous op in its stream, end of
// every op it depends on); end = start + configured duration) and completes, as seen by the host,
// no earlier than its virtual end. Copies and memsets really move/set the bytes.
//
// Status values are cudaError_t codes (the SIMCUDA_* constants below name the ones the engine
// returns). Handles are validated: a stale or foreign handle gives
// SIMCUDA_INVALID_RESOURCE_HANDLE, never a crash. Every function is thread-safe and lazily
// initializes the engine; a malformed BRRR_SIM_* variable makes that first call print
// "simcuda: <message>" to stderr and exit the process with status 2.
//
// Never: call back into a runtime, allocate per-call state the caller must free, or block except
// where a function says it waits.
#ifndef BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ENGINE_H_
#define BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ENGINE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef SIMCUDA_ENGINE_HIDDEN
#define SIMCUDA_ENGINE_VISIBILITY "hidden"
#else
#define SIMCUDA_ENGINE_VISIBILITY "default"
#endif
#ifdef __cplusplus
#define SIMCUDA_ENGINE_API extern "C" __attribute__((visibility(SIMCUDA_ENGINE_VISIBILITY)))
#else
#define SIMCUDA_ENGINE_API __attribute__((visibility(SIMCUDA_ENGINE_VISIBILITY)))
#endif

// cudaError_t values the engine returns.
enum {
  SIMCUDA_SUCCESS = 0,
  SIMCUDA_INVALID_VALUE = 1,
  SIMCUDA_MEMORY_ALLOCATION = 2,
  SIMCUDA_INVALID_CONFIGURATION = 9,
  SIMCUDA_INVALID_PITCH_VALUE = 12,
  SIMCUDA_INVALID_DEVICE_FUNCTION = 98,
  SIMCUDA_INVALID_DEVICE = 101,
  SIMCUDA_INVALID_RESOURCE_HANDLE = 400,
  SIMCUDA_NOT_READY = 600,
  SIMCUDA_HOST_MEMORY_ALREADY_REGISTERED = 712,
  SIMCUDA_HOST_MEMORY_NOT_REGISTERED = 713,
  SIMCUDA_NOT_SUPPORTED = 801,
};
typedef int simcuda_status;

typedef struct simcuda_stream simcuda_stream;
typedef struct simcuda_event simcuda_event;
typedef struct simcuda_kernel simcuda_kernel;

typedef struct {
  uint32_t x, y, z;
} simcuda_dim3;

// Values of cudaMemcpyKind.
enum {
  SIMCUDA_COPY_HOST_TO_HOST = 0,
  SIMCUDA_COPY_HOST_TO_DEVICE = 1,
  SIMCUDA_COPY_DEVICE_TO_HOST = 2,
  SIMCUDA_COPY_DEVICE_TO_DEVICE = 3,
  SIMCUDA_COPY_DEFAULT = 4,
};

// Flags (values of cudaStreamNonBlocking, cudaEventDisableTiming).
enum { SIMCUDA_STREAM_NON_BLOCKING = 0x1 };
enum { SIMCUDA_EVENT_DISABLE_TIMING = 0x2 };
enum { SIMCUDA_EVENT_BLOCKING_SYNC = 0x1 };  // its synchronize sleeps whatever the device flags

// The highest stream priority (cudaDeviceGetStreamPriorityRange's greatest; the least is 0).
enum { SIMCUDA_GREATEST_STREAM_PRIORITY = -5 };

// Special stream handles (values of cudaStreamLegacy and cudaStreamPerThread).
#define SIMCUDA_STREAM_HANDLE_LEGACY ((const void*)0x1)
#define SIMCUDA_STREAM_HANDLE_PER_THREAD ((const void*)0x2)

// Plausible device properties the runtime reports.
#define SIMCUDA_DEVICE_NAME "brrr simulated device"
#define SIMCUDA_DEVICE_TOTAL_MEMORY (80ull << 30)

// How host threads wait for device work (cudaDeviceScheduleSpin/Yield/BlockingSync): blocking
// sleeps (no host CPU burnt), spin polls on the CPU, yield polls with sched_yield.
enum { SIMCUDA_SYNC_BLOCKING = 0, SIMCUDA_SYNC_SPIN = 1, SIMCUDA_SYNC_YIELD = 2 };

// The device's properties: fills a cudaDeviceProp (driver_types.h) at `out`.
SIMCUDA_ENGINE_API void simcuda_device_properties(void* out);
// The value of a cudaDeviceAttr / CUdevice_attribute (same numbers); 0 when `attr` names none.
SIMCUDA_ENGINE_API int simcuda_device_attribute(int attr, int* value);

// ---- Engine, clock, ids, API reporting ----

// Loads the configuration (exits with status 2 on a malformed BRRR_SIM_* value).
SIMCUDA_ENGINE_API void simcuda_engine_init(void);
// CLOCK_MONOTONIC nanoseconds: the engine's clock.
SIMCUDA_ENGINE_API uint64_t simcuda_now_ns(void);
// A new correlation id: unique in the process, never 0.
SIMCUDA_ENGINE_API uint32_t simcuda_next_correlation_id(void);
// Reports one finished API call to the activity sink (ActivitySink::OnApiExit). domain: 0 runtime,
// 1 driver; the thread and process ids are the caller's.
SIMCUDA_ENGINE_API void simcuda_report_api(uint8_t domain, uint32_t cbid, uint32_t correlation_id,
                                           uint64_t start_ns, uint64_t end_ns,
                                           int32_t return_value);

// Per-call state of one runtime or driver API call: lives on the calling thread's stack from
// simcuda_api_begin to simcuda_api_end. Fields are set by those two functions; callers read only
// correlation_id (and may read start_ns). A struct rather than hidden state so that no call needs
// an allocation or a thread-local.
typedef struct {
  uint64_t start_ns;  // engine time the call's own work began (after the ENTER callback)
  uint64_t
      correlation_data;  // the API callback's per-call slot (CUpti_CallbackData::correlationData)
  void* callback_sink;   // the ApiCallbackSink that asked for this call's EXIT, or NULL
  void* sink_state;      // owned by that sink between its enter and exit hooks
  uint32_t correlation_id;  // unique per call, never 0
  uint32_t cbid;
  int32_t return_value;  // cudaError_t / CUresult, set by simcuda_api_end
  uint8_t domain;        // 0 runtime, 1 driver
} simcuda_api_call;

// The one place an API entry point starts: assigns the correlation id, then, when an API callback
// sink is registered (activity_sink.h), calls its OnApiEnter on this thread, then takes start_ns.
// With no callback sink registered the extra cost is one atomic load.
SIMCUDA_ENGINE_API void simcuda_api_begin(simcuda_api_call* call, uint8_t domain, uint32_t cbid);
// The one place an API entry point ends: takes the end time, reports the call to the activity sink
// (ActivitySink::OnApiExit, as simcuda_report_api), then calls the callback sink's OnApiExit when
// its OnApiEnter asked for it. Call exactly once per simcuda_api_begin, on the same thread.
SIMCUDA_ENGINE_API void simcuda_api_end(simcuda_api_call* call, int32_t return_value);
// A driver function the runtime calls inside `outer` (cudaLaunchKernel -> cuLaunchKernel): its
// driver-domain ENTER callback now, its EXIT callback at simcuda_api_nested_end, both with
// `outer`'s correlation id and no activity record of its own. So does real CUPTI (CUDA 13.0,
// driver 580, H100, tools/gpu/join_ids_probe.sh): the driver callback inside a runtime launch or
// copy carries the runtime call's correlation id, which is also its kernel's or copy's, and no
// DRIVER record has that id.
SIMCUDA_ENGINE_API void simcuda_api_nested_begin(simcuda_api_call* nested,
                                                 const simcuda_api_call* outer, uint32_t cbid);
SIMCUDA_ENGINE_API void simcuda_api_nested_end(simcuda_api_call* nested, int32_t return_value);

// ---- Kernels ----

// Registers a kernel: host stub address -> mangled device name (copied). Registering the same host
// function again returns the first registration. Never fails for non-null arguments.
SIMCUDA_ENGINE_API simcuda_kernel* simcuda_kernel_register(const void* host_function,
                                                           const char* device_name);
// The kernel of a host stub address or of a kernel handle (a simcuda_kernel* given out before);
// NULL when `function` is neither.
SIMCUDA_ENGINE_API simcuda_kernel* simcuda_kernel_lookup(const void* function);
// Mangled device name; valid for the life of the process.
SIMCUDA_ENGINE_API const char* simcuda_kernel_name(const simcuda_kernel* kernel);

// ---- Streams ----

// Resolves an API stream handle: NULL is the legacy default stream, or the calling thread's
// per-thread default stream when per_thread_default != 0 (the _ptsz/_ptds entry points);
// SIMCUDA_STREAM_HANDLE_LEGACY / _PER_THREAD name those streams explicitly; anything else must be
// a live stream from simcuda_stream_create. Returns NULL for an invalid handle.
SIMCUDA_ENGINE_API simcuda_stream* simcuda_stream_resolve(const void* handle,
                                                          int per_thread_default);
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_create(unsigned flags, int priority,
                                                        simcuda_stream** out);
// Flags (SIMCUDA_STREAM_NON_BLOCKING or 0), priority (as created, clamped to
// [SIMCUDA_GREATEST_STREAM_PRIORITY, 0]) and the stream's id (the CUPTI stream id) of a live
// stream; any output may be NULL.
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_info(simcuda_stream* stream, unsigned* flags,
                                                      int* priority, unsigned long long* id);
// Returns at once; work already queued still runs. The handle is invalid afterwards.
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_destroy(simcuda_stream* stream);
// Waits until all work queued so far on the stream is done; reports a STREAM_SYNCHRONIZE record.
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_synchronize(simcuda_stream* stream,
                                                             uint32_t correlation_id);
// SIMCUDA_SUCCESS when all work queued so far is done, else SIMCUDA_NOT_READY.
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_query(simcuda_stream* stream);
// Later work on `stream` starts after the work `event` last recorded. Reports a STREAM_WAIT_EVENT
// record. Does not block.
SIMCUDA_ENGINE_API simcuda_status simcuda_stream_wait_event(simcuda_stream* stream,
                                                            simcuda_event* event,
                                                            uint32_t correlation_id);
// Waits until all work on all streams queued so far is done; reports a CONTEXT_SYNCHRONIZE record.
SIMCUDA_ENGINE_API simcuda_status simcuda_device_synchronize(uint32_t correlation_id);

// ---- Work ----

// How a kernel was launched, beyond its configuration (simcuda_launch_kernel_ex).
typedef struct {
  uint32_t graph_id;         // the graph exec that launched it; 0: not launched from a graph
  uint64_t graph_node_id;    // its node in that graph; 0 when graph_id is 0
  int cooperative;           // cuLaunchCooperativeKernel / the cooperative launch attribute
  int skip_launch_overhead;  // 1: do not burn BRRR_SIM_LAUNCH_NS (later nodes of a graph launch)
} simcuda_launch_info;

// Burns BRRR_SIM_LAUNCH_NS of the calling thread's CPU, then queues the kernel. Validates the
// configuration (SIMCUDA_INVALID_CONFIGURATION for a zero or oversized grid/block).
SIMCUDA_ENGINE_API simcuda_status simcuda_launch_kernel(simcuda_stream* stream,
                                                        const simcuda_kernel* kernel,
                                                        simcuda_dim3 grid, simcuda_dim3 block,
                                                        size_t dynamic_shared_memory,
                                                        uint32_t correlation_id);
// simcuda_launch_kernel with launch details (info may be NULL: a regular launch).
SIMCUDA_ENGINE_API simcuda_status simcuda_launch_kernel_ex(
    simcuda_stream* stream, const simcuda_kernel* kernel, simcuda_dim3 grid, simcuda_dim3 block,
    size_t dynamic_shared_memory, uint32_t correlation_id, const simcuda_launch_info* info);
// Queues a copy. `kind` is a cudaMemcpyKind; pointers are classified by the memory registry
// (device / pinned / pageable) and must agree with a non-default kind. Blocking, as in CUDA:
// async == 0 (cudaMemcpy): waits for the copy (and so for earlier work of the stream) unless it is
// device-to-device; async != 0: waits only when a side is pageable host memory.
SIMCUDA_ENGINE_API simcuda_status simcuda_memcpy(simcuda_stream* stream, void* dst, const void* src,
                                                 size_t bytes, int kind, int async,
                                                 uint32_t correlation_id);
// cudaMemcpy2D: `height` rows of `width` bytes, rows `dst_pitch` / `src_pitch` apart; one copy
// op of width * height bytes with simcuda_memcpy's kinds and blocking rules.
// SIMCUDA_INVALID_PITCH_VALUE when width exceeds a pitch; every row must lie inside its memory.
SIMCUDA_ENGINE_API simcuda_status simcuda_memcpy_2d(simcuda_stream* stream, void* dst,
                                                    size_t dst_pitch, const void* src,
                                                    size_t src_pitch, size_t width, size_t height,
                                                    int kind, int async, uint32_t correlation_id);
// Queues a call of host_fn(arg) on the stream's device thread, in stream order: later work of the
// stream starts after fn returned. Never waits.
SIMCUDA_ENGINE_API simcuda_status simcuda_host_call(simcuda_stream* stream, void (*host_fn)(void*),
                                                    void* arg, uint32_t correlation_id);
// Queues a memset of device memory. Never waits.
SIMCUDA_ENGINE_API simcuda_status simcuda_memset(simcuda_stream* stream, void* dst, int value,
                                                 size_t bytes, int async, uint32_t correlation_id);

// ---- Memory ----

// Device memory (host memory from the engine's allocator, tracked as DEVICE). Size 0 gives NULL.
SIMCUDA_ENGINE_API simcuda_status simcuda_device_alloc(size_t bytes, void** out);
// Waits for all device work, then frees. NULL is a no-op.
SIMCUDA_ENGINE_API simcuda_status simcuda_device_free(void* ptr);
// Stream-ordered free: the pointer is invalid at once, the memory is released when the stream
// reaches this point.
SIMCUDA_ENGINE_API simcuda_status simcuda_device_free_async(void* ptr, simcuda_stream* stream,
                                                            uint32_t correlation_id);
// Page-locked host memory (tracked as PINNED).
SIMCUDA_ENGINE_API simcuda_status simcuda_host_alloc(size_t bytes, void** out);
// Waits for all device work, then frees memory from simcuda_host_alloc.
SIMCUDA_ENGINE_API simcuda_status simcuda_host_free(void* ptr);
SIMCUDA_ENGINE_API simcuda_status simcuda_host_register(void* ptr, size_t bytes);
SIMCUDA_ENGINE_API simcuda_status simcuda_host_unregister(void* ptr);
// Device memory allocated and not yet freed, in bytes.
SIMCUDA_ENGINE_API size_t simcuda_device_memory_in_use(void);
// The SIMCUDA_SYNC_* way host threads wait for device work (process-wide).
SIMCUDA_ENGINE_API void simcuda_set_sync_mode(int mode);
SIMCUDA_ENGINE_API int simcuda_sync_mode(void);
// CUpti_ActivityMemoryKind of the byte at `ptr`: DEVICE (3), PINNED (2) or PAGEABLE (1).
SIMCUDA_ENGINE_API int simcuda_memory_kind(const void* ptr);

// ---- Events ----

SIMCUDA_ENGINE_API simcuda_status simcuda_event_create(unsigned flags, simcuda_event** out);
SIMCUDA_ENGINE_API simcuda_status simcuda_event_destroy(simcuda_event* event);
// Queues a marker; the event completes when the stream's earlier work is done.
SIMCUDA_ENGINE_API simcuda_status simcuda_event_record(simcuda_event* event, simcuda_stream* stream,
                                                       uint32_t correlation_id);
SIMCUDA_ENGINE_API simcuda_status simcuda_event_query(simcuda_event* event);
// Waits for the last recorded marker (in the device's sync mode, or sleeping for an event created
// with SIMCUDA_EVENT_BLOCKING_SYNC); reports an EVENT_SYNCHRONIZE record.
SIMCUDA_ENGINE_API simcuda_status simcuda_event_synchronize(simcuda_event* event,
                                                            uint32_t correlation_id);
// Milliseconds between two completed events (SIMCUDA_NOT_READY if one is pending,
// SIMCUDA_INVALID_RESOURCE_HANDLE if one was never recorded or has timing disabled).
SIMCUDA_ENGINE_API simcuda_status simcuda_event_elapsed_ms(float* ms, simcuda_event* start,
                                                           simcuda_event* end);

#endif  // BRRR_TOOLS_SIMCUDA_INCLUDE_SIMCUDA_ENGINE_H_
