// The shared-memory layout between libbrrr.so (the writer, inside the profiled app) and the
// collector (the reader, another process). This header is the whole contract: both sides include
// it, neither assumes anything it does not say. The reader treats every byte as untrusted: a
// buggy or dying app may leave any value in any field, and the reader must bounds-check all of it.
//
// Must never: contain code that allocates, locks or blocks (it is included by the shim's hot path);
// change a field's meaning without bumping kVersion.
//
// Segment (one per profiled process, a file under /dev/shm or a memfd, mode 0600):
//
//   offset 0                   SegmentHeader          (kSegmentHeaderSize bytes)
//   threads_offset             ThreadRing[max_threads] each: RingHeader + HostRecord[ring_capacity]
//   device_offset              DeviceRing             RingHeader + DeviceRecord[device_capacity]
//   stacks_offset              StackSlot[stack_slots]
//   names_offset               NameSlot[name_slots]
//   codes_offset               CodeSlot[code_slots]   (Python code objects, see below)
//
// Ordering rules (acquire/release pairs), the only synchronization between the two processes:
//  R1. A ring's writer stores a record's bytes, then release-stores write_index + 1. The reader
//      acquire-loads write_index and may then read every record below it.
//  R2. The reader release-stores read_index after it has copied records out. The writer
//      acquire-loads read_index before overwriting a slot. write_index - read_index never exceeds
//      capacity; a record that would exceed it is dropped and `dropped` is incremented (relaxed,
//      single writer), never waited for.
//  R3. RingHeader.state goes kFree -> kClaimed by the writer's CAS (acq_rel), then tid/pthread
//      fields are written, then state is release-stored kActive. The reader reads a ring only when
//      it acquire-loads kActive or kRetired. A thread that exits release-stores kRetired; the
//      reader drains a retired ring and may then CAS it back to kFree (it never reuses an active
//      one).
//  R4. Stack and name slots: the writer claims a slot by CAS of `hash` from 0 to the content's
//      hash (acq_rel), writes the content, then release-stores `ready` = 1. The reader uses a slot
//      only after acquire-loading ready == 1, and checks every length against the slot's capacity.
//  R5. SegmentHeader.finished is release-stored 1 by the writer after its final flush at exit;
//      the reader acquire-loads it. An app killed by a signal never sets it: the reader must
//      still read everything whose write_index was published.
//  R6. SegmentHeader.collector_done is release-stored 1 by the collector once the .brrr file is
//      written and the report printed; the exiting shim acquire-loads it in a bounded wait.
//  R8. CodeSlot follows R4 (claim by CAS of `hash`, fill, release `ready`). A stack entry that
//      names a code slot (kPythonFrameTag) is written only after that slot's `ready` was
//      released or observed, but the reader must still treat a not-ready or damaged slot as an
//      unknown frame.
//  R7. SegmentHeader.maps_captured is release-stored 1 by a `brrr run` collector once it has
//      seen `finished`, read the app's /proc/PID/maps and drained; the exiting shim acquire-loads
//      it in a short bounded wait, so that stacks of a short-lived app can still be symbolized.
//  R9. SegmentHeader.counter_samples: filled, then counters_sample_count release-stored (see the
//      field's comment); counters_state is release-stored after the samples it announces. The
//      sampler's clock pair (counters_clock_*) is written before counters_state is release-stored
//      kCountersSampling and before the first kCounterSample record (R1 publishes it with the
//      record); the reader uses it only after acquire-loading one of the two, and checks it.
//  R10. SegmentHeader.reader_pid: one collector drains a segment (see the field); the shim only
//      CASes it from 0 to the collector it started.
#ifndef BRRR_SHIM_RING_FORMAT_H_
#define BRRR_SHIM_RING_FORMAT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace brrr::ring {

inline constexpr uint64_t kMagic = 0x474E495252524242ull;  // "BBRRRING" little-endian
// 2: callback records (kRecordFromCallback). 3: Python frames in stacks (CodeSlot table),
// NVTX records (kRecordNvtx), sampled launch sites (kRecordLaunchSample). 4: hardware-counter
// samples streamed in the device ring (DeviceKind::kCounterSample) and the sampler's clock pair
// and sample counts (SegmentHeader.counters_clock_*, counters_samples_*). 5: sampled device
// tracing (DeviceKind::kTracingWindow, SegmentHeader.device_*) and the record cost the shim
// measured (SegmentHeader.hook_record_ns). 6: HostRecord.capture_ticks, in place of a per-thread
// call sequence that no reader used. 7: hooked calls carry the correlation id of the driver call
// inside them (kRecordCorrelationFromDriver), and kernel launches may have no RUNTIME record.
inline constexpr uint32_t kVersion = 7;
inline constexpr uint32_t kSegmentHeaderSize = 4096;
inline constexpr uint32_t kCacheLine = 64;

// How host timestamps (HostRecord.enter/exit, SegmentHeader.clock_*) are expressed.
enum class ClockKind : uint32_t {
  kTsc = 1,          // raw rdtsc ticks; constant, nonstop, synchronized TSC verified by the shim
  kMonotonicNs = 2,  // CLOCK_MONOTONIC nanoseconds
};

// Whether the shim reads Python frames, and if not, why; SegmentHeader.python_status.
enum class PythonStatus : uint32_t {
  kNoPython = 0,            // no CPython in the process (or none found yet): native stacks only
  kActive = 1,              // frames of python_version are read
  kUnsupportedVersion = 2,  // a CPython outside 3.9-3.13: native stacks only
  kFreeThreaded = 3,        // a free-threaded build (no GIL): native stacks only
  kDisabledByUser = 4,      // BRRR_PYTHON=0 (or stacks off)
  kNotInitialized = 5,      // CPython present but not initialized when CUDA started
};

// Whether PyTorch's record_function labels reach brrr (shim/python/sitecustomize.py, through
// brrr_torch_annotations); SegmentHeader.torch_annotations.
enum class TorchAnnotations : uint32_t {
  kNone = 0,         // no torch seen (or a shim before the field)
  kActive = 1,       // record_function labels are recorded as NVTX ranges
  kUnsupported = 2,  // torch was imported but its labels could not be hooked: torch_reason says why
  kWriting = 3,      // the texts are being written (a reader treats it as kNone)
};
inline constexpr uint32_t kTorchVersionBytes = 32;
inline constexpr uint32_t kTorchReasonBytes = 96;

// Things seen while reading Python frames that the report mentions once; SegmentHeader.python_notes
// (bits, set with fetch_or).
enum PythonNotes : uint32_t {
  kPythonNoteSubinterpreter = 1u << 0,  // a thread of a sub-interpreter: its frames not read
  kPythonNoteBadMemory = 1u << 1,       // a frame chain that did not look as expected: dropped
  kPythonNoteDepthCapped = 1u << 2,     // a stack deeper than kMaxPythonDepth: outer frames cut
};

// Device records (CUPTI) are always CLOCK_MONOTONIC nanoseconds: the shim registers a CUPTI
// timestamp callback returning CLOCK_MONOTONIC. The collector maps TSC to CLOCK_MONOTONIC with the
// calibration pairs it samples itself (the TSC is machine-wide) and the shim's pair below.

enum SegmentFlags : uint32_t {
  kFlagHostOnly = 1u << 0,     // no device records: CUPTI missing or busy (see host_only_reason)
  kFlagStacks = 1u << 1,       // host records carry stack ids
  kFlagCuptiActive = 1u << 2,  // CUPTI activity was enabled successfully
  kFlagChildOfFork = 1u << 3,  // this segment belongs to a forked child
};

// What a run records; SegmentHeader.capture_mode.
enum class CaptureMode : uint32_t {
  kAll = 0,          // everything (no capture range)
  kProfilerApi = 1,  // only between cudaProfilerStart and cudaProfilerStop
  kNvtx = 2,         // only inside NVTX ranges named capture_name
};

// Why a run is host-only; stored in SegmentHeader.host_only_reason.
enum class HostOnlyReason : uint32_t {
  kNone = 0,
  kCuptiNotFound = 1,   // libcupti could not be loaded
  kCuptiBusy = 2,       // another subscriber/tool holds CUPTI
  kCuptiError = 3,      // a CUPTI call failed (host_only_detail holds the CUptiResult)
  kDisabledByUser = 4,  // BRRR_CUPTI=0
  kHandedOver = 5,      // the app's own tool asked for CUPTI and got it (cupti_handed_over_ns)
};

// Hardware counters: how far the shim's PM sampling got; SegmentHeader.counters_state.
enum CountersState : uint32_t {
  kCountersOff = 0,       // not asked for (BRRR_COUNTERS unset), or the shim predates them
  kCountersWaiting = 1,   // asked for; waiting for the app's first CUDA call to return
  kCountersSampling = 2,  // PM sampling started; samples are being published
  kCountersDone = 3,      // sampling stopped at exit; the samples are final
  kCountersFailed = 4,    // a call failed (counters_failed_call, counters_result)
  kCountersNoLibrary = 5, // no libcupti with PM sampling (e.g. the simulated device's)
};
// Which call failed when counters_state is kCountersFailed.
enum CountersCall : uint32_t {
  kCallProfilerInitialize = 1,
  kCallEnable = 2,
  kCallChipName = 3,
  kCallCounterAvailability = 4,
  kCallHostInitialize = 5,
  kCallConfig = 6,  // ConfigAddMetrics / GetConfigImageSize / GetConfigImage
  kCallSetConfig = 7,
  kCallCounterData = 8,  // GetCounterDataSize / CounterDataImageInitialize
  kCallStart = 9,
  kCallDecode = 10,  // DecodeData / GetCounterDataInfo / GetSampleInfo / EvaluateToGpuValues
};
// One PM sample (or a time-weighted merge of adjacent ones): CUPTI's start and end timestamps (ns)
// and the throughputs over it in % of peak.
struct CounterSampleSlot {
  uint64_t start_ns;
  uint64_t end_ns;
  float sm_pct;      // sm__throughput.avg.pct_of_peak_sustained_elapsed
  float dram_pct;    // gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
  float active_pct;  // gpu__time_active.avg.pct_of_peak_sustained_elapsed (GPU busy share)
  uint32_t merged;   // PM samples this slot stands for (>= 1)
};
static_assert(sizeof(CounterSampleSlot) == 32);
inline constexpr uint32_t kMaxCounterSamples = 64;

struct alignas(kCacheLine) SegmentHeader {
  uint64_t magic;         // kMagic
  uint32_t version;       // kVersion
  uint32_t header_size;   // kSegmentHeaderSize
  uint64_t segment_size;  // total bytes of the mapping
  uint32_t pid;
  uint32_t flags;  // SegmentFlags
  ClockKind clock_kind;
  uint32_t host_only_reason;  // HostOnlyReason
  int32_t host_only_detail;
  uint32_t record_size;         // sizeof(HostRecord)
  uint32_t device_record_size;  // sizeof(DeviceRecord)
  uint32_t max_threads;
  uint32_t ring_capacity;    // HostRecords per thread ring, power of two
  uint32_t device_capacity;  // DeviceRecords in the device ring, power of two
  uint32_t stack_slots;
  uint32_t name_slots;
  uint32_t code_slots;
  uint32_t reserved0;
  uint64_t threads_offset;
  uint64_t device_offset;
  uint64_t stacks_offset;
  uint64_t names_offset;
  uint64_t codes_offset;
  uint64_t clock_tsc;  // a (tsc, monotonic ns) pair read together by the shim at start
  uint64_t clock_mono_ns;
  uint64_t start_mono_ns;                 // the process's start (exec; else shim load), CLOCK_MONOTONIC
  std::atomic<uint64_t> end_mono_ns;      // set at exit (0 if killed)
  std::atomic<uint32_t> finished;         // R5
  std::atomic<uint32_t> exit_code_valid;  // 1 when exit_code is the app's status passed to exit()
  std::atomic<int32_t> exit_code;
  // R6: the collector release-stores 1 when the report is out.
  std::atomic<uint32_t> collector_done;
  std::atomic<uint32_t> maps_captured;             // R7
  std::atomic<uint64_t> threads_overflow_dropped;  // records lost: more threads than max_threads
  std::atomic<uint64_t> stacks_overflow;           // stacks not stored: table full (stack_id 0)
  std::atomic<uint64_t> cupti_dropped;             // CUPTI's own dropped-record count
  // Python frames (written by the shim at initialization, before the first record; notes and
  // counters any time, relaxed).
  std::atomic<uint32_t> python_status;   // PythonStatus
  std::atomic<uint32_t> python_version;  // PY_VERSION_HEX of the interpreter read; 0 = none
  std::atomic<uint32_t> python_notes;    // PythonNotes bits
  // 1 in N launches carries its stack with Python frames and kRecordLaunchSample; 0 = off.
  uint32_t launch_sample_period;
  std::atomic<uint64_t> python_failures;  // captures whose Python frames were dropped
  std::atomic<uint64_t> code_overflow;    // Python frames not stored: code table full
  char command[1024];  // the app's command line, NUL separated args, NUL terminated
  // Capture ranges (BRRR_CAPTURE_RANGE; `brrr run --capture-range`). Mode and name are written by
  // the shim at initialization, before the first record; the counters at each range's end and at
  // exit (relaxed). Outside every range the hooks only forward and CUPTI records are dropped.
  uint32_t capture_mode;                  // CaptureMode
  uint32_t capture_name_length;           // bytes of capture_name (nvtx mode), <= kMaxNameLength
  std::atomic<uint32_t> capture_ranges;   // ranges opened so far
  uint32_t capture_reserved;
  std::atomic<uint64_t> capture_ns;       // host time inside ranges (CLOCK_MONOTONIC ns)
  std::atomic<uint64_t> capture_dropped;  // CUPTI records dropped: their call was outside
  char capture_name[248];                 // the NVTX range name (nvtx mode), not NUL terminated
  // Control (`brrr ctl PID pause|resume|snapshot`, BRRR_START=paused) and the periodic flush.
  // Only the segment's owner can map it (mode 0600), so only the owner can control the app. A
  // controller stores control_pause (1 = pause, 0 = record) and increments snapshot_requests; the
  // shim's control thread applies control_pause within kControlPollMs and publishes `paused`; the
  // collector writes a snapshot of the report whenever snapshot_requests changes.
  std::atomic<uint32_t> control_pause;
  std::atomic<uint32_t> paused;             // shim: 1 while the hooks only forward
  std::atomic<uint32_t> snapshot_requests;  // controllers: +1 per `brrr ctl PID snapshot`
  std::atomic<uint32_t> flush_period_ms;    // shim: its periodic CUPTI flush (0 = none)
  std::atomic<uint64_t> paused_ns;          // shim: host time paused, pauses ended so far
  std::atomic<uint64_t> periodic_flushes;   // shim: periodic CUPTI flushes done
  // Hardware counters (BRRR_COUNTERS=1, `brrr run --counters`): the shim's PM sampling thread
  // (shim/pm_sampler.h). R9: it writes counter_samples[i] for i < n, then release-stores
  // counters_sample_count = n; the reader acquire-loads the count, clamps it to
  // kMaxCounterSamples and checks every value. When the table is full the shim merges adjacent
  // pairs (time-weighted) to half as many samples over the same time: it release-stores the count
  // 0 first, so a reader between the two sees no samples rather than torn ones.
  std::atomic<uint32_t> counters_state;         // CountersState
  std::atomic<int32_t> counters_result;         // kCountersFailed: the failing CUptiResult
  std::atomic<uint32_t> counters_failed_call;   // kCountersFailed: CountersCall that failed
  std::atomic<uint32_t> counters_sample_count;  // R9
  CounterSampleSlot counter_samples[kMaxCounterSamples];
  // The PM sampler's clock pair (R9), read together once when sampling started, so that the
  // reader can put kCounterSample timestamps on CLOCK_MONOTONIC: CUPTI documents no clock for PM
  // sample timestamps. cupti_ns is cuptiGetTimestamp() (0 when the library has none).
  uint64_t counters_clock_cupti_ns;
  uint64_t counters_clock_realtime_ns;  // CLOCK_REALTIME
  uint64_t counters_clock_mono_ns;      // CLOCK_MONOTONIC; 0 = no pair was read
  std::atomic<uint64_t> counters_samples_streamed;  // kCounterSample records written (relaxed)
  std::atomic<uint64_t> counters_samples_dropped;   // not written: device ring full (relaxed)
  // The metric set the sampler configured (shim/pm_metric_plans.h, 1-based; 0 = none yet, or a
  // shim that predates the sets). Written before counters_state becomes kCountersSampling.
  std::atomic<uint32_t> counters_metric_plan;
  // When brrr gave CUPTI up to a tool of the app's own (torch.profiler's kineto, say, started
  // after brrr: shim/cupti_coexistence.cc), CLOCK_MONOTONIC ns; 0 = never. Stored before the
  // host-only flag and HostOnlyReason::kHandedOver.
  std::atomic<uint64_t> cupti_handed_over_ns;
  // Sampled device tracing (BRRR_SAMPLE_DEVICE, shim/tracing_windows.h): CUPTI activity is on only
  // in windows that cover device_sample_permille of the run's time (1000 = always on: no windows).
  // Written by the shim at initialization. The control thread writes each window into the device
  // ring (DeviceKind::kTracingWindow) as it opens and as it closes, adds closed ones to
  // device_windows and device_traced_ns (relaxed), and keeps device_window_open_ns at the start of
  // the window open now (0 = none), so that a killed app's last window is still known.
  std::atomic<uint32_t> device_sample_permille;  // relaxed: steered by a budget during the run
  uint32_t device_window_ms;  // the windows' length
  std::atomic<uint64_t> device_windows;
  std::atomic<uint64_t> device_traced_ns;
  std::atomic<uint64_t> device_window_open_ns;
  // What one recorded call costs the app (ns): the shim's record path timed at initialization
  // (shim/self_cost.h), written before the first record; 0 = not measured.
  uint32_t hook_record_ns;
  // How many times the shim detached CUPTI from the process while device tracing was off (between
  // sampled windows, or paused: BRRR_CUPTI_DETACH, shim/cupti_session.h), relaxed. Nonzero: CUPTI's
  // API callbacks were off then too, so driver-API calls made outside the windows (library
  // launches: cuBLAS, Triton, NCCL) went unrecorded. 0 = never (or a shim before this field).
  std::atomic<uint32_t> cupti_detaches;
  // When the window schedule started (CUPTI set up, the first CUDA call), CLOCK_MONOTONIC ns:
  // the traced share is of the time from here; 0 = no sampling, or a shim before this field.
  uint64_t device_sampling_start_ns;
  // An overhead budget (BRRR_OVERHEAD_BUDGET, permille of wall; 0 = none), written by the shim at
  // initialization. The collector steers sampled tracing under it: it stores the share it wants
  // in device_sample_wanted_permille (1..999; 0 = no request), which the control thread applies
  // to the window schedule from then on and copies into device_sample_permille.
  uint32_t device_budget_permille;
  std::atomic<uint32_t> device_sample_wanted_permille;
  // The `brrr run` job this process belongs to (shim/job_id.h: from the job directory's path;
  // 0 = none): written by brrr run into CMD's segment before CMD runs, and by each process's shim
  // into its own. `brrr ctl` on one process of a job acts on every process with the same id.
  uint64_t job_id;
  // What detaching CUPTI and attaching it again (BRRR_CUPTI_DETACH) took, CLOCK_MONOTONIC ns summed
  // over the run (relaxed): cuptiFinalize on the app thread whose callback ran it, and the attach
  // on the control thread as a window opens. The overhead estimate counts both (on an H100 the
  // per-launch A/B of the windows alone saw a fifth to a third of sampled tracing's cost). 0 =
  // none, or a shim before these fields.
  std::atomic<uint64_t> cupti_detach_ns;
  std::atomic<uint64_t> cupti_attach_ns;
  // PyTorch's annotations (TorchAnnotations), set once per process: the state goes kNone ->
  // kWriting, the texts (NUL-terminated UTF-8, cut to fit) are written, then the final state is
  // stored (release). A reader takes the texts only after reading kActive or kUnsupported
  // (acquire), and bounds them itself.
  std::atomic<uint32_t> torch_annotations;
  char torch_version[kTorchVersionBytes];  // torch.__version__
  char torch_reason[kTorchReasonBytes];    // kUnsupported: why
  // R10: the collector that drains this segment, by pid: `brrr run` stores its own when it creates
  // the segment; a plain preload's shim CASes it from 0 to the collector it started (so that a
  // hand-run attach cannot claim it first); `brrr attach` claims it by CAS from 0 (or finds itself
  // there), or from a reader that is gone (recovering a dead collector's run). A second live collector is refused: two would split the records
  // between two reports, each saying nothing was lost. 0 = none yet (or a shim before it).
  std::atomic<uint32_t> reader_pid;
  // Programs the process exec'd into that went on recording here (under `brrr run`, BRRR_SHM
  // survives an exec: the new program's shim finds the segment claimed by its own pid and adds 1).
  // CUPTI's records still buffered at an exec are lost with the old program (relaxed).
  std::atomic<uint32_t> execs;
};
inline constexpr uint32_t kControlPollMs = 100;
static_assert(sizeof(SegmentHeader) <= kSegmentHeaderSize);

enum class RingState : uint32_t { kFree = 0, kClaimed = 1, kActive = 2, kRetired = 3 };

struct alignas(kCacheLine) RingHeader {
  std::atomic<uint32_t> state;  // RingState, R3
  uint32_t tid;                 // gettid() of the owning thread
  uint64_t pthread_id;          // pthread_self() of the owning thread
  uint32_t generation;          // bumped by the writer each time the slot is claimed
  uint32_t reserved;
  alignas(kCacheLine) std::atomic<uint64_t> write_index;  // writer-owned, R1
  std::atomic<uint64_t> dropped;                          // writer-owned, R2
  alignas(kCacheLine) std::atomic<uint64_t> read_index;   // reader-owned, R2
};
static_assert(sizeof(RingHeader) == 3 * kCacheLine);

// Host API identifiers. Stable numbers: they are stored in files. Append only.
enum class Api : uint16_t {
  kUnknown = 0,
  // launches
  kCudaLaunchKernelInternal = 1,      // __cudaLaunchKernel (nvcc 13)
  kCudaLaunchKernelInternalPtsz = 2,  // __cudaLaunchKernel_ptsz
  kCudaLaunchKernel = 3,
  kCudaLaunchKernelPtsz = 4,
  kCudaLaunchKernelExC = 5,
  kCudaLaunchKernelExCPtsz = 6,
  kCudaLaunchCooperativeKernel = 7,
  kCudaLaunchCooperativeKernelPtsz = 8,
  kCudaGraphLaunch = 9,
  kCudaGraphLaunchPtsz = 10,
  // copies
  kCudaMemcpy = 20,
  kCudaMemcpyPtds = 21,
  kCudaMemcpyAsync = 22,
  kCudaMemcpyAsyncPtsz = 23,
  kCudaMemcpy2D = 24,
  kCudaMemcpy2DPtds = 25,
  kCudaMemcpy2DAsync = 26,
  kCudaMemcpy2DAsyncPtsz = 27,
  kCudaMemcpy3D = 28,
  kCudaMemcpy3DPtds = 29,
  kCudaMemcpy3DAsync = 30,
  kCudaMemcpy3DAsyncPtsz = 31,
  kCudaMemcpyPeer = 32,
  kCudaMemcpyPeerAsync = 33,
  kCudaMemcpyToSymbol = 34,
  kCudaMemcpyToSymbolPtds = 35,
  kCudaMemcpyFromSymbol = 36,
  kCudaMemcpyFromSymbolPtds = 37,
  kCudaMemcpyToSymbolAsync = 38,
  kCudaMemcpyToSymbolAsyncPtsz = 39,
  kCudaMemcpyFromSymbolAsync = 40,
  kCudaMemcpyFromSymbolAsyncPtsz = 41,
  // memsets
  kCudaMemset = 50,
  kCudaMemsetPtds = 51,
  kCudaMemsetAsync = 52,
  kCudaMemsetAsyncPtsz = 53,
  kCudaMemset2D = 54,
  kCudaMemset2DAsync = 55,
  kCudaMemset3D = 56,
  kCudaMemset3DAsync = 57,
  // allocation and free
  kCudaMalloc = 70,
  kCudaMallocHost = 71,
  kCudaHostAlloc = 72,
  kCudaMallocManaged = 73,
  kCudaMallocPitch = 74,
  kCudaMallocAsync = 75,
  kCudaMallocAsyncPtsz = 76,
  kCudaHostRegister = 77,
  kCudaFree = 80,
  kCudaFreeHost = 81,
  kCudaFreeAsync = 82,
  kCudaFreeAsyncPtsz = 83,
  kCudaHostUnregister = 84,
  // synchronization and polling
  kCudaStreamSynchronize = 100,
  kCudaStreamSynchronizePtsz = 101,
  kCudaDeviceSynchronize = 102,
  kCudaEventSynchronize = 103,
  kCudaStreamWaitEvent = 104,
  kCudaStreamWaitEventPtsz = 105,
  kCudaStreamQuery = 106,
  kCudaStreamQueryPtsz = 107,
  kCudaEventQuery = 108,
  kCudaEventRecord = 109,
  kCudaEventRecordPtsz = 110,
  kCudaEventRecordWithFlags = 111,
  kCudaEventRecordWithFlagsPtsz = 112,
  // capture range markers
  kCudaProfilerStart = 113,
  kCudaProfilerStop = 114,
  kApiCount = 115,  // one past the largest value; arrays indexed by Api use this size
};

// Direction of a copy, as cudaMemcpyKind resolved against the pointers' real kinds.
enum class CopyKind : uint8_t { kNone = 0, kHtoD = 1, kDtoH = 2, kDtoD = 3, kHtoH = 4, kPeer = 5 };
// What the host side of a copy is.
enum class HostMemory : uint8_t { kNone = 0, kPageable = 1, kPinned = 2, kUnknown = 3 };

enum HostRecordFlags : uint32_t {
  kRecordPerThreadStream = 1u << 0,  // a _ptsz/_ptds variant, or stream == cudaStreamPerThread
  kRecordLegacyStream = 1u << 1,     // the legacy default stream
  // Seen through a CUPTI API callback, not a hook: api is kUnknown, target holds the CUPTI
  // callback id and correlation_id the CUPTI correlation id (both 0 otherwise).
  kRecordFromCallback = 1u << 2,
  kRecordDriverApi = 1u << 3,  // with kRecordFromCallback: a driver API function (else runtime)
  // An NVTX event, not a CUDA call: `api` holds an NvtxOp, enter == exit == the event's time,
  // `target` the message's NameSlot id (0 = none), `stream` the domain's NameSlot id (0 = the
  // default domain), `bytes` the range id of start/end ranges (0 for push/pop/mark).
  kRecordNvtx = 1u << 4,
  // A launch whose stack was sampled as a launch site (1 in launch_sample_period launches): its
  // stack carries Python frames when the thread runs Python.
  kRecordLaunchSample = 1u << 5,
  // A hooked call (not kRecordFromCallback) whose correlation_id is the CUPTI correlation id of a
  // driver call made inside it, seen by brrr's driver API callback: the id of its device work
  // (kernel, copy) and of its RUNTIME record, when CUPTI writes one (BRRR_LAUNCH_RECORDS=0: not for
  // kernel launches).
  kRecordCorrelationFromDriver = 1u << 6,
};

// What an NVTX record (kRecordNvtx) is.
enum class NvtxOp : uint16_t {
  kPush = 1,   // nvtxRangePush*/nvtxDomainRangePushEx: opens a nested range on this thread
  kPop = 2,    // nvtxRangePop/nvtxDomainRangePop: closes this thread's innermost range
  kStart = 3,  // nvtxRangeStart*/nvtxDomainRangeStartEx: opens range `bytes` (any thread may end)
  kEnd = 4,    // nvtxRangeEnd/nvtxDomainRangeEnd: closes range `bytes`
  kMark = 5,   // nvtxMark*: an instant
};

// One intercepted host call. 64 bytes, one cache line.
struct alignas(8) HostRecord {
  uint64_t enter;           // host clock (SegmentHeader.clock_kind) at entry, before the real call
  uint64_t exit;            // host clock after the real call returned
  uint64_t stream;          // cudaStream_t value as passed (0 = default)
  uint64_t bytes;           // copies, memsets, allocations; 0 otherwise
  uint64_t target;          // launch: kernel handle or host stub address; event/graph handle for
                            // event and graph calls; device pointer for free; callback records:
                            // the CUPTI callback id; else 0
  // Host clock units (as enter/exit) that brrr spent after `exit` capturing this call's stack
  // (DWARF unwinding, Python frames) before the app got control back, saturated at UINT32_MAX;
  // 0: none or not timed (a frame-pointer walk alone is not timed). Not the app's time: the
  // collector does not count it as time the app spent outside CUDA.
  uint32_t capture_ticks;
  uint32_t stack_id;        // 0 = none; else StackSlot index + 1
  uint32_t flags;           // HostRecordFlags
  int32_t result;           // cudaError_t returned
  uint16_t api;             // Api
  uint8_t copy_kind;        // CopyKind
  uint8_t host_memory;      // HostMemory
  uint32_t correlation_id;  // kRecordFromCallback, kRecordCorrelationFromDriver: CUPTI's id; else 0
};
static_assert(sizeof(HostRecord) == 64);

// Device-side and CUPTI-API records, converted by the shim from CUPTI activity in CUPTI's buffer
// callback (never on the app's hot path). Timestamps: CLOCK_MONOTONIC ns.
enum class DeviceKind : uint8_t {
  kKernel = 1,
  kMemcpy = 2,
  kMemset = 3,
  kSynchronization = 4,
  kRuntimeApi = 5,  // CUPTI RUNTIME record: a runtime call, possibly one the hooks never saw
  kDriverApi = 6,   // CUPTI DRIVER record
  kOverhead = 7,    // reserved
  // One PM sample (BRRR_COUNTERS=1) at its own resolution, written by the shim's PM sampler thread
  // (serialized with CUPTI's buffer callbacks on the device-ring lock; a full ring drops it and
  // counts SegmentHeader.counters_samples_dropped, never waits). Fields, unlike other kinds:
  //   start, end      CUPTI's sample startTimestamp / endTimestamp as given: the PM sampling clock,
  //                   NOT CLOCK_MONOTONIC (see SegmentHeader.counters_clock_* for aligning it)
  //   bytes           the sample's number since sampling started (0, 1, 2...: a gap = lost ones)
  //   correlation_id  SM throughput, milli-percent of peak (kCounterValueUnknown: none)
  //   stream_id       DRAM throughput, milli-percent of peak (idem)
  //   thread_id       GPU active share of the interval, milli-percent (idem)
  //   device_id       the device sampled
  //   others          0
  kCounterSample = 8,
  // A span in which device tracing was on (sampled device tracing; SegmentHeader.device_*),
  // written by the shim's control thread: start = when CUPTI activity was turned on, end = when it
  // was turned off, or 0 in the record written as the window opened (its close follows). A kernel
  // launched inside the span has its record; one launched outside has none. In the close record,
  // `queued` is when CUPTI was to be detached after the window (BRRR_CUPTI_DETACH: the shim flushes
  // then and detaches at the next CUDA call; until then CUPTI stays subscribed with its kinds off),
  // kWindowKeptAttached when CUPTI was detached between windows but stays attached after this one
  // (the device runs behind its host: shim/detach_grace.h), 0 when no detach was asked (detaching
  // off, or the window closed at exit). Other fields 0.
  kTracingWindow = 9,
};
inline constexpr uint64_t kWindowKeptAttached = 1;  // a tracing window close's `queued`
// A counter value that could not be measured (NaN, negative, or past kMaxCounterMilliPct).
inline constexpr uint32_t kCounterValueUnknown = 0xFFFFFFFFu;
inline constexpr uint32_t kMaxCounterMilliPct = 1'000'000;  // 1000 %: anything above is damage

struct alignas(8) DeviceRecord {
  uint64_t start;
  uint64_t end;
  uint64_t queued;     // kernels with latency timestamps; else 0
  uint64_t submitted;  // idem
  uint64_t bytes;      // memcpy/memset
  uint32_t correlation_id;
  uint32_t stream_id;  // CUPTI stream id; for API records: 0
  uint32_t device_id;
  uint32_t name_id;    // kernels: NameSlot index + 1; 0 = unknown
  uint32_t thread_id;  // API records: CUPTI threadId
  uint32_t cbid;       // API records: callback id; sync records: CUpti_ActivitySynchronizationType
  int32_t result;      // API records: return value
  uint8_t kind;        // DeviceKind
  uint8_t copy_kind;   // memcpy: CUpti_ActivityMemcpyKind
  uint8_t src_kind;    // memcpy: CUpti_ActivityMemoryKind
  uint8_t dst_kind;    // memcpy: CUpti_ActivityMemoryKind; memset: memory kind
};
static_assert(sizeof(DeviceRecord) == 72);

// Device work (a kernel, copy or memset) that CUPTI could not time: its record has a start or end
// of 0. CUPTI's docs give 0 for both when no timing was collected, and a forced flush hands back
// work still queued or running so, never to deliver it again (pytorch/pytorch#195844).
inline bool IsUntimedWork(const DeviceRecord& r) {
  return (r.start == 0 || r.end == 0) && (r.kind == static_cast<uint8_t>(DeviceKind::kKernel) ||
                                          r.kind == static_cast<uint8_t>(DeviceKind::kMemcpy) ||
                                          r.kind == static_cast<uint8_t>(DeviceKind::kMemset));
}

// A stack: native return addresses (at most kMaxStackDepth, innermost first), then the calling
// thread's Python frames (at most kMaxPythonDepth, innermost first), each a tagged entry:
//   bit 63       kPythonFrameTag (never set in a user-space return address)
//   bit 62       kPythonEntryFrame: the frame was entered from C (it ends a run of Python frames
//                that one native interpreter call evaluates; every frame before 3.11)
//   bits 32..61  code id: CodeSlot index + 1 (0 = the code object could not be stored)
//   bits 0..31   instruction offset in bytes from the start of the code's bytecode, as
//                PyCode_Addr2Line takes it for that version
// The reader splices the Python frames where the interpreter's native frames are.
inline constexpr uint32_t kMaxStackDepth = 30;
inline constexpr uint32_t kMaxPythonDepth = 32;
inline constexpr uint32_t kMaxStackEntries = kMaxStackDepth + kMaxPythonDepth;
inline constexpr uint64_t kPythonFrameTag = 1ull << 63;
inline constexpr uint64_t kPythonEntryFrame = 1ull << 62;
inline constexpr uint32_t kPythonCodeIdBits = 30;
constexpr uint64_t PythonFrameEntry(uint32_t code_id, uint32_t offset, bool entry) {
  return kPythonFrameTag | (entry ? kPythonEntryFrame : 0) |
         (uint64_t{code_id & ((1u << kPythonCodeIdBits) - 1)} << 32) | offset;
}
constexpr bool IsPythonFrame(uint64_t e) { return (e & kPythonFrameTag) != 0; }
constexpr uint32_t PythonCodeId(uint64_t e) {
  return static_cast<uint32_t>(e >> 32) & ((1u << kPythonCodeIdBits) - 1);
}
constexpr uint32_t PythonOffset(uint64_t e) { return static_cast<uint32_t>(e); }
constexpr bool IsPythonEntryFrame(uint64_t e) { return (e & kPythonEntryFrame) != 0; }

struct StackSlot {
  std::atomic<uint64_t> hash;       // 0 = empty; R4
  std::atomic<uint32_t> ready;      // R4
  uint32_t depth;                   // entries used, <= kMaxStackEntries
  uint64_t pcs[kMaxStackEntries];  // native return addresses, then Python frame entries
};
static_assert(sizeof(StackSlot) == 512);

inline constexpr uint32_t kMaxNameLength = 248;
struct NameSlot {
  std::atomic<uint64_t> hash;   // 0 = empty; R4
  std::atomic<uint32_t> ready;  // R4
  uint16_t length;              // <= kMaxNameLength
  uint16_t reserved;
  char text[kMaxNameLength];  // not NUL terminated; `length` bytes
};
static_assert(sizeof(NameSlot) == 264);

// One Python code object, written once by the first thread that needs it (R8). Keyed by a hash
// of the code object's address and a fingerprint (its filename, qualname and line-table object
// addresses and first line), so a freed code object whose address is reused by another gets a
// slot of its own. data[] holds the UTF-8 filename, then the UTF-8 qualified name, then the
// line-table bytes (co_lnotab on 3.9, co_linetable on 3.10+) in python_version's format.
inline constexpr uint32_t kCodeSlotSize = 4096;
inline constexpr uint32_t kCodeSlotHeaderSize = 32;
inline constexpr uint32_t kCodeSlotData = kCodeSlotSize - kCodeSlotHeaderSize;
struct CodeSlot {
  std::atomic<uint64_t> hash;  // 0 = empty; R8
  std::atomic<uint32_t> ready;  // R8
  uint32_t first_line;          // co_firstlineno
  uint16_t filename_length;     // bytes of data[] (the filename, truncated to 1024)
  uint16_t qualname_length;     // next bytes (truncated to 1024)
  uint32_t linetable_length;    // next bytes: the line table, possibly truncated
  uint32_t linetable_full_length;  // the code object's line-table size (> stored: truncated)
  uint32_t reserved;
  char data[kCodeSlotData];
};
static_assert(sizeof(CodeSlot) == kCodeSlotSize);
inline constexpr uint32_t kMaxCodeStringLength = 1024;

// Size of one thread ring (header + records) for a capacity.
constexpr uint64_t ThreadRingBytes(uint32_t capacity) {
  return sizeof(RingHeader) + uint64_t{capacity} * sizeof(HostRecord);
}
constexpr uint64_t DeviceRingBytes(uint32_t capacity) {
  return sizeof(RingHeader) + uint64_t{capacity} * sizeof(DeviceRecord);
}

// Defaults; overridable by BRRR_RING_RECORDS, BRRR_MAX_THREADS (validated by the shim).
inline constexpr uint32_t kDefaultRingCapacity = 1u << 14;  // 1 MiB per thread
inline constexpr uint32_t kDefaultMaxThreads = 64;
inline constexpr uint32_t kDefaultDeviceCapacity = 1u << 16;  // 4.5 MiB
inline constexpr uint32_t kDefaultStackSlots = 4096;          // 2 MiB
inline constexpr uint32_t kDefaultNameSlots = 2048;           // 528 KiB
inline constexpr uint32_t kDefaultCodeSlots = 1024;           // 4 MiB, touched only as used

}  // namespace brrr::ring

#endif  // BRRR_SHIM_RING_FORMAT_H_
