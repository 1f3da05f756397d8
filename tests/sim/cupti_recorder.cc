// Implements the CUPTI activity recorder of cupti_recorder.h: CUPTI-owned buffers are allocated
// here, parsed with cuptiActivityGetNextRecord when CUPTI returns them, and freed at once.
// Must never call CUDA runtime functions.
#include "cupti_recorder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "host_clock.h"

namespace brrr::simtest {
namespace {

constexpr size_t kBufferBytes = 1 << 20;
constexpr size_t kBufferAlignment = 8;

std::mutex& RecordsMutex() {
  static std::mutex mutex;
  return mutex;
}

ActivityRecords& PendingRecords() {
  static ActivityRecords* records = new ActivityRecords();  // never destroyed: CUPTI may call late
  return *records;
}

uint64_t CUPTIAPI MonotonicTimestamp() { return MonotonicNs(); }

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer == nullptr ? 0 : kBufferBytes;
  *max_records = 0;
}

// Copies a record of CUPTI's layout `Named`'s base out of a buffer (which may be unaligned).
template <typename Named>
Named CopyRecord(const CUpti_Activity* record) {
  static_assert(sizeof(Named) == sizeof(typename Named::Base));
  Named copy{};
  std::memcpy(static_cast<typename Named::Base*>(&copy), record, sizeof(typename Named::Base));
  return copy;
}

void Append(const CUpti_Activity* record, ActivityRecords& out) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      KernelRecord kernel{};
      std::memcpy(&kernel.raw, record, sizeof(kernel.raw));
      kernel.name = kernel.raw.name == nullptr ? "" : kernel.raw.name;
      kernel.raw.name = nullptr;
      out.kernels.push_back(std::move(kernel));
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      out.runtime_calls.push_back(CopyRecord<RuntimeRecord>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      out.driver_calls.push_back(CopyRecord<RuntimeRecord>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      out.memcpys.push_back(CopyRecord<MemcpyRecord>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      out.memsets.push_back(CopyRecord<MemsetRecord>(record));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      out.synchronizations.push_back(CopyRecord<SynchronizationRecord>(record));
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      out.external_correlations.push_back(CopyRecord<ExternalCorrelationRecord>(record));
      break;
    default:
      break;
  }
}

void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                                size_t /*size*/, size_t valid_size) {
  ActivityRecords parsed;
  CUpti_Activity* record = nullptr;
  while (valid_size > 0 &&
         cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    Append(record, parsed);
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
    parsed.dropped = dropped;
  }
  std::free(buffer);

  std::lock_guard<std::mutex> lock(RecordsMutex());
  ActivityRecords& pending = PendingRecords();
  auto move_into = [](auto& from, auto& to) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  move_into(parsed.kernels, pending.kernels);
  move_into(parsed.runtime_calls, pending.runtime_calls);
  move_into(parsed.driver_calls, pending.driver_calls);
  move_into(parsed.memcpys, pending.memcpys);
  move_into(parsed.memsets, pending.memsets);
  move_into(parsed.synchronizations, pending.synchronizations);
  move_into(parsed.external_correlations, pending.external_correlations);
  pending.dropped += parsed.dropped;
}

std::string Describe(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "?";
  return std::string(call) + " failed: " + std::to_string(static_cast<int>(result)) + " (" + text +
         ")";
}

}  // namespace

std::vector<RuntimeRecord> ActivityRecords::RuntimeCallsWithCorrelation(
    uint32_t correlation_id) const {
  std::vector<RuntimeRecord> found;
  for (const RuntimeRecord& call : runtime_calls) {
    if (call.correlationId == correlation_id) found.push_back(call);
  }
  return found;
}

std::vector<RuntimeRecord> ActivityRecords::DriverCallsWithCorrelation(
    uint32_t correlation_id) const {
  std::vector<RuntimeRecord> found;
  for (const RuntimeRecord& call : driver_calls) {
    if (call.correlationId == correlation_id) found.push_back(call);
  }
  return found;
}

std::vector<KernelRecord> ActivityRecords::KernelsByCorrelation() const {
  std::vector<KernelRecord> sorted = kernels;
  std::sort(sorted.begin(), sorted.end(), [](const KernelRecord& a, const KernelRecord& b) {
    return a.raw.correlationId < b.raw.correlationId;
  });
  return sorted;
}

std::vector<KernelRecord> ActivityRecords::KernelsOnStream(uint32_t stream_id) const {
  std::vector<KernelRecord> on_stream;
  for (const KernelRecord& kernel : kernels) {
    if (kernel.raw.streamId == stream_id) on_stream.push_back(kernel);
  }
  std::sort(on_stream.begin(), on_stream.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.raw.start < b.raw.start; });
  return on_stream;
}

std::string StartActivityRecording(const RecorderOptions& options) {
  CUptiResult result;
  if (options.monotonic_clock) {
    result = cuptiActivityRegisterTimestampCallback(&MonotonicTimestamp);
    if (result != CUPTI_SUCCESS) return Describe("cuptiActivityRegisterTimestampCallback", result);
  }
  if (options.latency_timestamps) {
    result = cuptiActivityEnableLatencyTimestamps(1);
    if (result != CUPTI_SUCCESS) return Describe("cuptiActivityEnableLatencyTimestamps", result);
  }
  result = cuptiActivityRegisterCallbacks(&OnBufferRequested, &OnBufferCompleted);
  if (result != CUPTI_SUCCESS) return Describe("cuptiActivityRegisterCallbacks", result);
  const struct {
    CUpti_ActivityKind kind;
    const char* name;
  } kinds[] = {
      {CUPTI_ACTIVITY_KIND_RUNTIME, "cuptiActivityEnable(RUNTIME)"},
      {CUPTI_ACTIVITY_KIND_DRIVER, "cuptiActivityEnable(DRIVER)"},
      {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "cuptiActivityEnable(CONCURRENT_KERNEL)"},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "cuptiActivityEnable(MEMCPY)"},
      {CUPTI_ACTIVITY_KIND_MEMSET, "cuptiActivityEnable(MEMSET)"},
      {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "cuptiActivityEnable(SYNCHRONIZATION)"},
      {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "cuptiActivityEnable(EXTERNAL_CORRELATION)"},
  };
  for (const auto& kind : kinds) {
    result = cuptiActivityEnable(kind.kind);
    if (result != CUPTI_SUCCESS) return Describe(kind.name, result);
  }
  return "";
}

ActivityRecords TakeActivityRecords() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(RecordsMutex());
  ActivityRecords taken = std::move(PendingRecords());
  PendingRecords() = ActivityRecords();
  return taken;
}

bool IsLaunchCallbackId(uint32_t cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return true;
    default:
      return false;
  }
}

}  // namespace brrr::simtest
