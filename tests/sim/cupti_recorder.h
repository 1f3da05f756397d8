// Collects CUPTI activity records for the simulated-stack tests through the public CUPTI activity
// API (as any profiler would): buffer callbacks, optional CLOCK_MONOTONIC timestamp callback,
// optional latency timestamps. Records are copied out of CUPTI's buffers and handed to the test.
// Thread-safe. Must never call CUDA runtime functions itself (tests decide when to synchronize).
#ifndef BRRR_TESTS_SIM_CUPTI_RECORDER_H_
#define BRRR_TESTS_SIM_CUPTI_RECORDER_H_

#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

namespace brrr::simtest {

struct RecorderOptions {
  // Register a CLOCK_MONOTONIC timestamp callback, so records compare with MonotonicNs().
  bool monotonic_clock = true;
  // Call cuptiActivityEnableLatencyTimestamps(1) (kernel queued/submitted timestamps).
  bool latency_timestamps = false;
};

// Named record types. (nvcc 13's front end crashes in C++20 mode on std::vector of CUPTI's
// unnamed typedef'd structs; deriving gives them names and keeps every field.)
struct RuntimeRecord : CUpti_ActivityAPI {
  using Base = CUpti_ActivityAPI;
};
struct MemcpyRecord : CUpti_ActivityMemcpy6 {
  using Base = CUpti_ActivityMemcpy6;
};
struct MemsetRecord : CUpti_ActivityMemset4 {
  using Base = CUpti_ActivityMemset4;
};
struct SynchronizationRecord : CUpti_ActivitySynchronization2 {
  using Base = CUpti_ActivitySynchronization2;
};
struct ExternalCorrelationRecord : CUpti_ActivityExternalCorrelation {
  using Base = CUpti_ActivityExternalCorrelation;
};

struct KernelRecord {
  CUpti_ActivityKernel10 raw;
  std::string name;  // copied out of CUPTI's storage
};

// Every record of the kinds the recorder enables, in delivery order per kind.
struct ActivityRecords {
  std::vector<KernelRecord> kernels;
  std::vector<RuntimeRecord> runtime_calls;
  std::vector<RuntimeRecord> driver_calls;  // CUPTI_ACTIVITY_KIND_DRIVER (same struct)
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<SynchronizationRecord> synchronizations;
  std::vector<ExternalCorrelationRecord> external_correlations;
  uint64_t dropped = 0;  // records CUPTI reported dropped

  // Runtime call records with this correlation id.
  std::vector<RuntimeRecord> RuntimeCallsWithCorrelation(uint32_t correlation_id) const;
  // Driver call records with this correlation id.
  std::vector<RuntimeRecord> DriverCallsWithCorrelation(uint32_t correlation_id) const;
  // Kernel records sorted by correlation id (= launch order for one host thread).
  std::vector<KernelRecord> KernelsByCorrelation() const;
  // Kernel records of one stream, sorted by start.
  std::vector<KernelRecord> KernelsOnStream(uint32_t stream_id) const;
};

// Starts recording: registers the clock (before anything is enabled), latency timestamps, buffer
// callbacks, then enables RUNTIME, DRIVER, CONCURRENT_KERNEL, MEMCPY, MEMSET, SYNCHRONIZATION and
// EXTERNAL_CORRELATION. Call once per process, before the first CUDA call. Returns "" on success,
// else which CUPTI call failed and its error string.
std::string StartActivityRecording(const RecorderOptions& options);

// Flushes CUPTI's buffers and returns (and forgets) every record delivered since the last call.
// Complete records of finished work only after the caller synchronized with it.
ActivityRecords TakeActivityRecords();

// The CUPTI_RUNTIME_TRACE_CBID_* values of kernel launch functions (<<<>>>, cudaLaunchKernel*).
bool IsLaunchCallbackId(uint32_t cbid);

}  // namespace brrr::simtest

#endif  // BRRR_TESTS_SIM_CUPTI_RECORDER_H_
