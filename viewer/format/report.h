// The report: what a profiling run concluded, as plain data. The analysis fills it; the renderers
// (text for people, JSON "brrr.report/1" for programs) and the .brrr file read it. Field names
// follow the JSON schema one to one.
//
// Must never: hold anything whose size grows with the run's length (only with distinct APIs,
// kernels and stalls, each list capped by the analysis).
#ifndef BRRR_VIEWER_FORMAT_REPORT_H_
#define BRRR_VIEWER_FORMAT_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace brrr {

inline constexpr char kReportSchema[] = "brrr.report/1";

struct ApiStat {
  std::string name;      // e.g. "cudaMemcpy"
  std::string category;  // launch|copy|memset|sync|alloc|free|query|other
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t p50_ns = 0;
  int64_t p99_ns = 0;
};

struct KernelStat {
  std::string name;  // demangled when possible
  uint64_t launches = 0;
  int64_t device_ns = 0;
  int64_t mean_ns = 0;
  std::string kernel_class;  // JSON "class": see collector/analysis/kernel_class.h
  // Hardware counters joined to this kernel's executions (`brrr run --counters`, see
  // collector/analysis/kernel_counters.h); absent without counters, or when no sample covered it.
  // SM / DRAM throughput in % of peak: the overlap-weighted mean of the PM samples over the
  // kernel's sampled time, each divided by the GPU's active share in it (capped at 100).
  std::optional<double> achieved_sm_pct;
  std::optional<double> achieved_dram_pct;
  std::optional<double> counter_coverage;  // 0..1: share of device_ns inside PM samples
  // 0..1: share of the covered time whose samples also covered another kernel (concurrent, or
  // one after the other inside a sample): there the figures are the device's, not this kernel's.
  std::optional<double> counter_shared;
  // Some samples had no GPU active share: the figures are lower bounds (idle time dilutes them).
  bool counter_lower_bound = false;
};

// Hardware counters for the run's kernels (Report.kernels.counters; `brrr run --counters`):
// present whenever they were asked for, whatever the verdict, so a report always says whether
// they were used. How PM samples were joined to kernels, or why there were none.
struct KernelCounterJoin {
  std::string clock;               // how sample times were put on the kernels' clock
  uint64_t samples = 0;            // samples joined by time
  uint64_t samples_unaligned = 0;  // on no clock brrr could align: left out
  uint64_t samples_late = 0;       // came after the kernels of their time left the join window
  uint64_t kernels_late = 0;       // came after samples of their time left the join window
  // Why counters asked for were not used ("not permitted: ...", "busy: ...", "not supported:
  // ...", a CUPTI call that failed); "" when they were.
  std::string unavailable;
  // The PM metric set the shim sampled ("label (name, name, ...)"); "" when it configured none.
  std::string metrics;
  // Run-wide throughput while the device was busy, % of peak (the shim's counter table, R9);
  // absent when nothing was measured. busy_samples: the samples behind them.
  std::optional<double> busy_sm_pct;
  std::optional<double> busy_dram_pct;
  uint64_t busy_samples = 0;
  // The device the samples measured (the shim samples one), and the kernels that ran on other
  // devices: those have no counter figures (e.g. rank 3 of a job, on device 3).
  uint32_t device = 0;
  uint64_t other_device_kernels = 0;
  int64_t other_device_ns = 0;
};

// The kernels of one class (matmul, convolution, attention, pointwise, reduction, copy,
// communication, other), inferred from their names.
struct KernelClassStat {
  std::string kernel_class;  // JSON "class"
  uint64_t launches = 0;
  int64_t device_ns = 0;
};

// One power-of-two range of a latency histogram: the values v with lo_ns <= v < 2 * lo_ns (lo_ns 0:
// the value 0).
struct LatencyBucket {
  int64_t lo_ns = 0;
  uint64_t count = 0;
};

struct LatencySummary {
  uint64_t count = 0;
  int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
  // The non-empty power-of-two buckets by lo_ns ascending (at most 64); their counts add up to
  // count. Empty in reports written before the histogram.
  std::vector<LatencyBucket> histogram;
};

struct IdleBreakdown {
  int64_t launch_bound_ns = 0;
  int64_t sync_drain_ns = 0;
  int64_t host_outside_cuda_ns = 0;
};

struct DeviceBreakdown {
  uint32_t id = 0;
  // In a job's merged view (collector/job/job_merge.cc, MergeDevices): the host the device is on,
  // and how many of the job's processes used it; a process's own view leaves host empty and
  // processes 1. A device several processes shared has its wall once, on the job's clock.
  std::string host;
  uint32_t processes = 1;
  int64_t wall_ns = 0;
  int64_t busy_ns = 0;  // busy_ns + idle parts + startup_ns + teardown_ns == wall_ns, exactly
  IdleBreakdown idle;   // idle time of the steady state (between the first and last CUDA work)
  int64_t startup_ns = 0;   // before the run's first CUDA work (a call or a device op)
  int64_t teardown_ns = 0;  // after the run's last CUDA work
};

// The device-time breakdown over the run: the wall time [start, end) cut into buckets of
// bucket_ns from the run's start (the last one may be shorter), each with the parts of
// DeviceBreakdown that fell into it. A device's buckets add up to its DeviceBreakdown part by
// part, exactly. The collector keeps at most kMaxTimelineBuckets buckets whatever the run's length
// (collector/analysis/breakdown_timeline.h).
struct TimelineBucket {
  int64_t busy_ns = 0;
  int64_t launch_bound_ns = 0;
  int64_t sync_drain_ns = 0;
  int64_t host_outside_cuda_ns = 0;
  int64_t startup_ns = 0;
  int64_t teardown_ns = 0;
};

struct DeviceTimeline {
  uint32_t id = 0;
  std::vector<TimelineBucket> buckets;  // bucket i covers [i * bucket_ns, (i + 1) * bucket_ns)
};

inline constexpr size_t kMaxTimelineBuckets = 128;

struct Timeline {
  int64_t bucket_ns = 0;
  std::vector<DeviceTimeline> devices;  // as Report.devices (a job's ProcessRow.devices), by id
  // CLOCK_REALTIME (Unix epoch) nanoseconds of bucket 0's start, the run's start: what puts the
  // timelines of a job's processes on one clock. 0: unknown (reports written before it).
  int64_t origin_unix_ns = 0;
};

// A job's per-process timelines (ProcessRow.timeline) together hold at most this many buckets:
// with many (process, device) rows each gets fewer, wider buckets (at least
// kMinJobTimelineBuckets), and rows past that are left out (collector/job/job_timeline.h).
inline constexpr size_t kMaxJobTimelineBuckets = 8192;
inline constexpr size_t kMinJobTimelineBuckets = 16;

struct Stall {
  std::string api;
  std::string reason;  // d2h_copy|pageable_async_copy|free_syncs_device|stream_sync|device_sync|
                       // event_sync|query_poll|...
  uint64_t calls = 0;
  int64_t total_ns = 0;
  std::vector<std::string> stack;  // "function (module)" or "function (file:line)", innermost first
  uint32_t plumbing_frames = 0;    // the first N frames of `stack` are CUDA's (cuda_plumbing.h)
  std::string ended_early;         // why `stack` stops before its thread's start; "" if it does not
                                   // (with no stack: why there is none, for a call seen only in
                                   // CUPTI's records)
};

// Syncing calls: every call that can block the host on the device (DESIGN.md, "syncing call"):
// synchronous copies, async copies of pageable host memory, frees of memory, stream, event and
// device synchronizations, synchronous memsets; whether or not it waited this time. Their counts
// do not depend on timing (a stall's do: remove one sync and the next one waits instead), so they
// are what `brrr diff` gates on. A site is an (API, reason, stack); the rows reuse Stall, whose
// total_ns is then the host time spent in those calls (stalled or not).
inline constexpr size_t kMaxSyncSitesKept = 200;
struct SyncCalls {
  uint64_t calls = 0;       // every syncing call of the run
  uint64_t sites = 0;       // distinct sites
  std::vector<Stall> rows;  // by calls, descending; the first kMaxSyncSitesKept sites
};

// All stalls of one reason over the run.
struct StallReasonTotal {
  std::string reason;
  uint64_t calls = 0;
  int64_t total_ns = 0;
};

// Calls of one API that have no call stack.
struct CallsWithoutStack {
  std::string api;  // as in ApiStat.name
  uint64_t calls = 0;
};

// What the run saw, by which mechanism, and whether anything could have escaped it. Every CUDA
// call counted in `api` was seen by exactly one of the three mechanisms below (a call seen by two
// is counted once), so hooked_calls + callback_calls + cupti_only_calls == sum of api[].calls.
struct Coverage {
  // Calls seen by runtime-symbol hooks (a dynamically linked libcudart): host times, arguments
  // (bytes, direction, pageable or pinned) and a stack.
  uint64_t hooked_calls = 0;
  // Calls the shim recorded from a CUPTI API callback on the calling thread (driver API, static
  // cudart, libraries with their own runtime): host times and a stack where one was taken.
  uint64_t callback_calls = 0;
  // Calls known only from CUPTI API activity records: times, no arguments, never a stack.
  uint64_t cupti_only_calls = 0;
  // Calls (of the three kinds above) that have no stack: every CUPTI-only call, and hooked or
  // callback calls when stacks were off (BRRR_STACKS=0, --no-stacks) or the stack table was full.
  uint64_t calls_without_stack = 0;
  // The same per API, by calls descending (ties by name), at most 20 rows.
  std::vector<CallsWithoutStack> without_stack;
  // Kernels, copies and memsets whose CUPTI record came without timestamps (still queued or running
  // when brrr flushed CUPTI's buffers, before a detach or at exit): in no figure; a gap says so.
  uint64_t untimed_device_ops = 0;
  // True when nothing could have escaped: CUPTI was on (so calls that bypass the hooks were seen
  // through it, and device work was recorded) and no host call, device record or pending join
  // was lost. False otherwise, with the reasons in `gaps`.
  bool complete = true;
  // One sentence per reason something could have escaped or been lost, in this order: a
  // host-only run (CUPTI missing, busy or disabled: only calls through a dynamically linked
  // libcudart were seen, no device times) — or, when CUPTI was on, nothing recorded at all (CUDA
  // used out of brrr's sight, or not at all) or no CUPTI API record although the shim saw calls;
  // N host calls dropped; N device records dropped; N pending records dropped at the analysis's
  // memory cap; N CUPTI API records that came after brrr stopped waiting for their host calls (a
  // buffer delivered very late: those calls may count twice); N events with impossible
  // timestamps ignored; N device records without timestamps; the app killed by a signal (its
  // last unflushed records are missing). Empty when complete.
  std::vector<std::string> gaps;
};

// One NVTX phase: a distinct range path (push/pop ranges nested per thread, names joined by '/',
// a non-default domain's range named "domain:message"; a start/end range is a path of its own).
// Parents are inclusive: `step` counts everything of `step/fwd`. See collector/analysis/
// phase_stats.h for what each figure covers.
struct Phase {
  std::string name;
  uint64_t calls = 0;     // ranges of this path opened
  int64_t wall_ns = 0;    // host wall time inside, summed over its ranges
  uint64_t launches = 0;  // launch calls made inside
  int64_t device_ns = 0;  // device time of the kernels those launches ran (sampled tracing:
                          // scaled as the kernel table, Report.kernels.estimated)
  int64_t stall_ns = 0;   // host time of the stalls inside
  IdleBreakdown idle;     // device idle time while some thread was inside, by cause
};

// A place launches come from: a sampled launch's stack (Python frames where the interpreter's
// were), with the launches estimated from the sample (1 in launch_sample_period).
// Kernels that a launch site's sampled launches ran, on one device (estimated as LaunchSite's).
struct LaunchKernel {
  std::string name;       // demangled; "(several kernels)" for a launch of several names whose
                          // kernels came before its record; "(kernel name not kept)"; "(other
                          // kernels)" for what a site's top rows leave out
  uint32_t device = 0;
  uint64_t kernels = 0;    // sampled kernels x launch_sample_period (x the device sampling's
  int64_t device_ns = 0;   // their device time x launch_sample_period    scale, when sampled)
};

struct LaunchSite {
  std::vector<std::string> stack;  // as Stall.stack; empty when the launch had no stack stored
  uint64_t launches = 0;           // estimated: sampled launches x launch_sample_period
  uint32_t plumbing_frames = 0;    // as Stall.plumbing_frames
  std::string ended_early;         // as Stall.ended_early
  // What the sampled launches ran, most device time first (ties by name, then device); empty
  // without device tracing. JSON "kernels".
  std::vector<LaunchKernel> kernels;
};

// What the run knows of the Python frames in its stacks.
struct PythonFrames {
  // active: Python frames are in the stacks | none: no CPython in the process |
  // unsupported_version | free_threaded | disabled | not_initialized | unknown
  std::string status;
  std::string version;          // "3.12.1" of the interpreter read; "" when none
  uint64_t frames_dropped = 0;  // captures whose Python frames were dropped + frames not stored
                                // (code table full), shown as missing or "<unknown Python frame>"
  std::string note;             // one sentence when stacks are native only or lost frames; else ""
  // PyTorch's record_function labels (brrr run's sitecustomize, shim/python/): "active" (they
  // are NVTX ranges: phases, and ProfilerStep#N steps), "unsupported" (torch_reason says why), or
  // "" when no torch was seen.
  std::string torch_annotations;
  std::string torch_version;  // torch.__version__ when torch_annotations is set
  std::string torch_reason;   // unsupported: why; else ""
};

// What a capture range let the run record (`brrr run --capture-range`).
struct Capture {
  // all (no capture range) | cudaProfilerApi | nvtx | mixed (a job whose processes differ)
  std::string mode;
  std::string nvtx_name;         // nvtx: the range name; else ""
  uint32_t ranges = 0;           // ranges opened (a job: summed)
  int64_t captured_ns = 0;       // host time inside them (a job: the longest process's)
  uint64_t records_dropped = 0;  // CUPTI records of calls made outside them (a job: summed)
};

// Which side of the roofline device-bound time is on, and on what evidence.
struct DeviceRegime {
  std::string regime;  // compute|bandwidth|mixed
  std::string basis;   // "kernel classes" (inferred from kernel names) | "hardware counters"
  std::string why;     // the shares behind it; why counters were not used when asked for
};

struct Verdict {
  std::string regime;  // launch-bound|sync-bound|input-bound|device-bound
  std::string why;     // one or two sentences with the numbers behind it
  std::optional<DeviceRegime> device_regime;  // set when regime is device-bound
  // What to do, each with its numbers, by the time it could save (largest first).
  std::vector<std::string> advice;
  // The regime that came second ("" when none: no-cuda-work, or reports written before it), and
  // how far behind, in points of the steady state: for an idle regime the top idle share minus
  // the runner-up's (device-bound as runner-up: the busy share's distance below its threshold);
  // for device-bound the busy share's distance above its threshold.
  std::string runner_up;
  std::optional<double> margin_pts;
  // The two are close (collector/analysis/verdict.h says when): runs that differ by noise alone
  // may name either, so every renderer says both: close_note is the phrase ("sync-bound close
  // behind: 25.0% vs 21.0% of the steady state"), "" when not close.
  bool close = false;
  std::string close_note;
};

// Which process of a job a report is: its pid, host and rank (from the launcher's environment:
// RANK, OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID; -1 when none was set), and how it ended.
struct ProcessIdentity {
  uint32_t pid = 0;
  std::string host;
  int64_t rank = -1;
  int64_t local_rank = -1;  // LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK or SLURM_LOCALID
  int64_t world_size = -1;  // WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE or SLURM_NTASKS
  std::string rank_from;    // the variable the rank was read from; "" when none
  bool exit_seen = true;    // false: the process vanished (killed or crashed) before exiting
  int term_signal = 0;      // the signal that killed it, when its parent (brrr run) saw it
};

// One process of a job (see collector/job/job_merge.h): the figures of its own report.
struct ProcessRow {
  uint32_t pid = 0;
  int64_t rank = -1;  // -1: unknown
  std::string host;
  std::string command;
  std::optional<int> exit_code;  // absent when the process vanished without an exit
  std::string ended;             // "exited" | "killed by signal N" | "vanished (killed or crashed)"
  int64_t wall_ns = 0;
  struct {
    uint64_t launches = 0;
    int64_t device_ns = 0;
  } kernels;
  std::vector<DeviceBreakdown> devices;
  // Its devices over time on the job's common clock: every process's timeline has the same
  // origin_unix_ns (the earliest process's start), bucket_ns and bucket count, so ranks line up.
  // A row adds up to the matching `devices` entry part by part. Absent when it had none, or it was
  // left out (JobSummary.timeline_rows_left_out says how many and why).
  std::optional<Timeline> timeline;
  uint64_t events_dropped = 0;  // its host and device records lost (a flooded ring)
  std::string top_stall;        // "cudaMemcpy d2h_copy 12 calls 3.4 ms"; "" when none
  Verdict verdict;
};

// A loop measured step by step (collector/analysis/step_ledger.h): the steps are NVTX ranges.
struct StepOutlier {
  uint64_t index = 0;  // the step's position in the run, from 0
  std::string name;    // its range's name (ProfilerStep#12)
  int64_t wall_ns = 0;
  std::string cause;      // the part that grew most against the median step: busy_ns |
                          // launch_bound_ns | sync_drain_ns | host_outside_cuda_ns
  std::string top_stall;  // its longest stall ("cudaMemcpy d2h_copy 12.0 ms"); "" when none
};
struct StepsSummary {
  std::string source;       // "nvtx:ProfilerStep#N" (the default) or "nvtx:NAME"
  uint64_t count = 0;       // steps that ended
  uint64_t kept = 0;        // of them, kept whole (the first kMaxStepsKept)
  uint64_t unfinished = 0;  // steps still open when the run ended: not counted
  struct Wall {
    int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
    double mean = 0;
  } wall_ns;
  bool estimated = false;  // percentiles from a histogram (more steps than kept)
  // Under sampled device tracing: per_step's device parts (busy and the idle split) are the
  // traced windows' scaled by DeviceSampling.scale, estimates; host counts stay exact, and
  // part_samples (each step's own) are as recorded: device time only in the steps a window saw.
  bool device_parts_scaled = false;
  // Means per step.
  struct PerStep {
    double busy_ns = 0, launch_bound_ns = 0, sync_drain_ns = 0, host_outside_cuda_ns = 0;
    double launches = 0, stall_calls = 0, stall_ns = 0, h2d_bytes = 0, d2h_bytes = 0;
    // Syncing calls (Report::sync_calls), stalled or not: exact, whatever the timing. Absent in
    // reports written before they were counted.
    std::optional<double> sync_calls;
  } per_step;
  std::string outlier_rule;  // in words, with its constants
  uint64_t outliers_total = 0;
  std::vector<StepOutlier> outliers;     // the longest first; at most 50 (the longest)
  std::vector<int64_t> wall_samples_ns;  // the kept steps' walls in order (for brrr diff)
  // The first kMaxStepBars steps' breakdown parts, in order (the HTML step chart): parallel
  // arrays of one length.
  struct PartSamples {
    std::vector<int64_t> busy_ns, launch_bound_ns, sync_drain_ns, host_outside_cuda_ns;
  } part_samples;
};
inline constexpr size_t kMaxStepsKept = 10'000;
inline constexpr size_t kMaxStepBars = 500;

// A process's collective (communication-class, i.e. NCCL) kernels in the order each stream ran
// them, for the job's matching across ranks (JobCollectives). The first kMaxCollectivesKept are
// kept; `count` counts them all.
inline constexpr size_t kMaxCollectivesKept = 20'000;
struct CollectiveStream {
  uint32_t stream_id = 0;
  std::vector<int64_t> start_ns;  // the host's CLOCK_MONOTONIC
  std::vector<int64_t> end_ns;    // as many as start_ns
};
struct CollectiveLog {
  uint64_t count = 0;
  // CLOCK_REALTIME minus CLOCK_MONOTONIC on the process's host when the run ended: puts the times
  // on the wall clock (hosts differ in CLOCK_MONOTONIC). 0: unknown.
  int64_t unix_minus_monotonic_ns = 0;
  std::vector<CollectiveStream> streams;  // by their first collective
};

struct Straggler {
  int64_t rank = -1;  // -1 when the processes carry no rank (then pid names it)
  uint32_t pid = 0;
  std::string why;  // the numbers that single it out
  // What singled it out: "collectives" (it arrived last at most of them: JobCollectives),
  // "host_outside_cuda" (its host time outside CUDA while its devices idled) or "wall" (no device
  // time recorded). "" in reports written before the field.
  std::string basis;
};

// A job's collectives matched across its ranks (collector/job/collective_waits.h): the k-th
// collective kernel of each rank's n-th collective stream are one collective. A rank's arrival is
// its kernel's start; its wait is the last arrival minus its own.
struct CollectiveWait {
  int64_t rank = -1;  // -1: no rank (then pid names it)
  uint32_t pid = 0;
  int64_t wait_ns = 0;         // summed over the collectives
  uint64_t last_arrivals = 0;  // collectives it arrived at last
  int64_t caused_wait_ns = 0;  // the others' waits in those collectives (what it cost them)
};
struct LastArriver {
  int64_t rank = -1;
  uint32_t pid = 0;
  double share = 0;  // of the matched collectives at which it arrived last
};
struct JobCollectives {
  uint64_t count = 0;                       // collectives matched on every process that has them
  uint32_t processes = 0;                   // processes that took part
  std::vector<CollectiveWait> waits;        // one per process that took part, by rank then pid
  std::optional<LastArriver> last_arriver;  // absent when no process arrived last most often
  // How the processes' clocks were put on one: "one host" (CLOCK_MONOTONIC shared) or
  // "collective exits" (hosts differ: each host shifted so that the ranks leave each collective
  // together, fact 16), with the shifts applied.
  std::string alignment;
  uint64_t unmatched = 0;  // collectives of some process past the fewest any process kept
};

struct JobSummary {
  uint32_t processes = 0;
  uint32_t ranks = 0;  // distinct ranks known
  std::optional<Straggler> straggler;
  // Absent when no two processes ran collective kernels.
  std::optional<JobCollectives> collectives;
  // (process, device) rows of the processes' devices that have no timeline in `processes`, and
  // one sentence saying why ("" when none): no timeline or no common clock (reports written
  // before them), buckets that do not add up to the device's breakdown, or over the cap.
  uint32_t timeline_rows_left_out = 0;
  std::string timeline_note;
};

// Sampled device tracing (BRRR_SAMPLE_DEVICE, `brrr run --sample-device=PCT`): the device was
// traced in windows only (collector/analysis/traced_windows.h), which sample launch calls. Each
// device's busy time and the kernel table's device times and launches are the recorded ones
// multiplied by `scale` (launch calls / launch calls traced); host counts (launch calls, stalls)
// are exact. Absent when the whole run was traced.
struct DeviceSampling {
  double fraction = 1;           // the share of the run's time asked for (0.1 = 10 %); under a
                                 // budget, the share the windows covered of span_ns
  // The overhead budget that steered the share during the run (BRRR_OVERHEAD_BUDGET, percent of
  // wall); absent without one.
  std::optional<double> budget_pct;
  uint64_t windows = 0;          // windows traced
  int64_t traced_ns = 0;         // their total length
  // The time the windows were drawn over: from the window schedule's start (the process's first
  // CUDA call) to the run's end (0 in reports written before it: the run's wall stands in).
  int64_t span_ns = 0;
  uint64_t traced_launches = 0;  // launch calls with a kernel record
  double scale = 1;              // launch calls / traced_launches
  uint32_t device = 0;           // the device of busy_pct
  // Its estimated busy share of the steady state; absent when no launch was traced (no window,
  // or none with a kernel record): then the device figures are unknown, not zero.
  std::optional<double> busy_pct;
  // Two standard errors of the busy share in percentage points, across windows as clusters of
  // launches (absent under two windows).
  std::optional<double> busy_error_points;
  uint64_t error_windows = 0;  // the windows behind the error bound
  // How often CUPTI was detached between windows (BRRR_CUPTI_DETACH), so that it cost the app
  // nothing there; nonzero: driver-API calls outside the windows (library launches) went
  // unrecorded. 0 in reports written before it.
  uint64_t cupti_detaches = 0;
  // Launch calls counted inside or outside a window before the records of the windows up to them
  // came (more were waiting than the collector keeps): their side, so the scale, may be wrong.
  // 0 in reports written before it.
  uint64_t calls_classified_early = 0;
};

// What brrr cost this run, measured in it (collector/analysis/analysis.cc, FinishOverhead):
// hooks = calls recorded x the record cost the shim timed at start; device tracing = under
// sampled tracing, (mean launch call inside windows - outside) x launch calls inside, absent
// when not measurable (full tracing has no untraced launches); the collector's own CPU time from
// its rusage. pct_of_wall counts what the app's threads paid in the parts measured (hooks and
// device tracing, as known): the whole cost only when `unmeasured` is empty, else a lower bound
// (JSON: pct_of_wall null, at_least_pct this figure).
struct Overhead {
  double pct_of_wall = 0;
  std::optional<int64_t> hooks_ns;
  std::optional<int64_t> device_tracing_ns;
  std::optional<int64_t> collector_cpu_ns;  // the collector process (all the processes it served)
  // What brrr's stalls of the app's threads would have cost but for the device's queued work,
  // which kept the device busy through them (sampled tracing: each window's first launch call, and
  // the detaches and attaches, which wait for that work); not in device_tracing_ns. Absent when
  // none was seen.
  std::optional<int64_t> hidden_by_device_ns;
  std::string basis;                        // how each part was measured, in words
  // The parts of brrr's cost on the app that were not measured, in words ("device tracing (full
  // tracing has no untraced launch calls to compare with)"); "" when every part was.
  std::string unmeasured;
};

// The event trace saved with the report (`--trace[=N]`): events kept, events the cap left out,
// and the span the kept events cover (from the earliest to the latest), so a cut trace says so.
struct TraceSummary {
  uint64_t cap = 0;
  uint64_t kept = 0;
  uint64_t left_out = 0;
  int64_t span_ns = 0;
};

// How the run's stacks end, over every stall row and launch site (not only the top ones shown):
// rows whose stack reaches its thread's start, and the others by why they end early
// (collector/analysis/stack_end.h): no_stack | depth_limit | no_symbols | no_unwind_info |
// cuda_frames_only | cupti_record_only, most rows first.
struct StackEnds {
  struct Ended {
    std::string kind;
    uint64_t stacks = 0;  // rows
    uint64_t calls = 0;   // their calls (a launch site's: its sampled launches)
  };
  uint64_t stacks = 0;  // rows counted
  uint64_t whole = 0;
  std::vector<Ended> ended_early;
};

struct Report {
  std::string schema = kReportSchema;
  std::string command;
  int64_t wall_ns = 0;
  int exit_code = 0;
  // False when the exit status is not known (exit_code null in JSON): the process vanished
  // (killed or crashed under a plain LD_PRELOAD) or is still running (a snapshot).
  bool exit_code_known = true;
  // How the run ended: "exited", "killed by signal N" (its parent saw it), "killed" (it vanished
  // without exiting: killed or crashed), "running" (a snapshot). Empty in older reports.
  std::string end;
  bool host_only = false;
  std::string host_only_reason;
  // Totals, and the split between host calls (the shim's records; recorded + dropped = calls the
  // hooks saw) and device-side records (CUPTI activity).
  struct EventCounts {
    uint64_t recorded = 0;
    uint64_t dropped = 0;
  };
  struct : EventCounts {
    EventCounts host;
    EventCounts device;
  } events;
  // Absent in reports written before coverage was reported (their JSON has no "coverage").
  std::optional<Coverage> coverage;
  std::vector<ApiStat> api;  // sorted by total_ns, descending
  struct {
    uint64_t launches = 0;      // launches with a device record
    uint64_t launch_calls = 0;  // launch calls the host made (hooks and CUPTI API records)
    int64_t device_ns = 0;
    std::vector<KernelStat> top;  // by device_ns, descending, at most 20
    // Every class with kernels, by device_ns descending; their device_ns add up to device_ns and
    // their launches to launches. (Copies and memsets done by the copy engines are not kernels.)
    std::vector<KernelClassStat> classes;
    // Absent without hardware counters (and in reports written before per-kernel counters).
    std::optional<KernelCounterJoin> counters;
    // Device times and launches above are estimates scaled from sampled tracing's windows
    // (device_sampling); launch_calls is exact.
    bool estimated = false;
  } kernels;
  LatencySummary launch_latency_ns;
  std::vector<DeviceBreakdown> devices;
  // Absent in reports written before the timeline (and in job reports: each process has its own
  // in `processes`, on the job's clock).
  std::optional<Timeline> timeline;
  std::vector<Stall> stalls;  // by total_ns, descending, at most 20
  // Every stall of the run by reason (not only the rows above), by reason name: what a counter
  // per reason must count (Prometheus' brrr_host_stall_seconds_total never goes down).
  std::vector<StallReasonTotal> stall_reasons;
  // Absent in reports written before syncing calls were counted.
  std::optional<SyncCalls> sync_calls;
  std::vector<Phase> phases;  // by wall_ns, descending, at most 50; empty without NVTX ranges
  // Ranges not counted because their path would have gone over the cap on distinct paths.
  uint64_t phases_over_cap = 0;
  // Absent in reports written before Python frames were reported (their JSON has no "python").
  std::optional<PythonFrames> python;
  // Absent in reports written before capture ranges (their JSON has no "capture").
  std::optional<Capture> capture;
  std::optional<DeviceSampling> device_sampling;
  // Absent in reports written before the overhead estimate.
  std::optional<Overhead> overhead;
  // Absent without an event trace (and in reports written before this summary).
  std::optional<TraceSummary> trace;
  // 1 in N launches had its stack sampled (0 = sampling off: no launch sites).
  uint32_t launch_sample_period = 0;
  std::vector<LaunchSite> launch_sites;  // by launches, descending, at most 10
  // Absent when no stack was captured (stacks off), and in reports written before this count.
  std::optional<StackEnds> stack_ends;
  // Absent when the process ran no collective kernel.
  std::optional<CollectiveLog> collectives;
  // Absent when no step range was seen.
  std::optional<StepsSummary> steps;
  Verdict verdict;
  // One process's report: who it was (absent in reports written before multi-process jobs).
  std::optional<ProcessIdentity> process;
  // A job's report (`brrr run` of several processes, `brrr merge`): the top-level fields above
  // hold the job's totals, `processes` a row per process (by rank, then pid), `job` the summary.
  std::vector<ProcessRow> processes;
  std::optional<JobSummary> job;
};

}  // namespace brrr

#endif  // BRRR_VIEWER_FORMAT_REPORT_H_
