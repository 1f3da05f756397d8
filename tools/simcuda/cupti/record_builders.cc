// Record builders: field-by-field translation of engine events into CUPTI structs. Fields the
// simulation has no value for are zero or the "unknown/invalid" value the header defines.
#include "record_builders.h"

#include <cstring>

namespace simcuda::cupti {
namespace {

// Records start from all-zero bytes (packed structs: padding must not carry garbage).
template <typename Record>
Record Zeroed() {
  Record record;
  std::memset(&record, 0, sizeof(record));
  return record;
}

}  // namespace

CUpti_ActivityKernel10 MakeKernelRecord(const KernelEvent& e, CUpti_ActivityKind kind,
                                        const ClockOffset& clock, bool latency_timestamps,
                                        int64_t grid_id) {
  auto r = Zeroed<CUpti_ActivityKernel10>();
  r.kind = kind;
  r.partitionedGlobalCacheRequested = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
  r.partitionedGlobalCacheExecuted = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
  r.start = clock.Map(e.start_ns);
  r.end = clock.Map(e.end_ns);
  r.completed = r.end;  // no child kernels in the simulation
  r.deviceId = e.device_id;
  r.contextId = e.context_id;
  r.streamId = e.stream_id;
  r.gridX = e.grid_x;
  r.gridY = e.grid_y;
  r.gridZ = e.grid_z;
  r.blockX = e.block_x;
  r.blockY = e.block_y;
  r.blockZ = e.block_z;
  r.dynamicSharedMemory = e.dynamic_shared_memory;
  r.correlationId = e.correlation_id;
  r.gridId = grid_id;
  r.name = e.name;
  r.queued = latency_timestamps ? clock.Map(e.queued_ns) : CUPTI_TIMESTAMP_UNKNOWN;
  r.submitted = latency_timestamps ? clock.Map(e.submitted_ns) : CUPTI_TIMESTAMP_UNKNOWN;
  r.launchType = e.cooperative ? CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE
                               : CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
  r.graphId = e.graph_id;
  r.graphNodeId = e.graph_node_id;
  r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_DEFAULT;
  r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  return r;
}

CUpti_ActivityMemcpy6 MakeMemcpyRecord(const MemcpyEvent& e, const ClockOffset& clock) {
  auto r = Zeroed<CUpti_ActivityMemcpy6>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = e.copy_kind;
  r.srcKind = e.src_kind;
  r.dstKind = e.dst_kind;
  r.flags = e.is_async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
  r.bytes = e.bytes;
  r.start = clock.Map(e.start_ns);
  r.end = clock.Map(e.end_ns);
  r.deviceId = e.device_id;
  r.contextId = e.context_id;
  r.streamId = e.stream_id;
  r.correlationId = e.correlation_id;
  r.runtimeCorrelationId = e.correlation_id;  // one id per API call in the simulation
  r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  r.copyCount = 1;
  return r;
}

CUpti_ActivityMemset4 MakeMemsetRecord(const MemsetEvent& e, const ClockOffset& clock) {
  auto r = Zeroed<CUpti_ActivityMemset4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.value = e.value;
  r.bytes = e.bytes;
  r.start = clock.Map(e.start_ns);
  r.end = clock.Map(e.end_ns);
  r.deviceId = e.device_id;
  r.contextId = e.context_id;
  r.streamId = e.stream_id;
  r.correlationId = e.correlation_id;
  r.flags = e.is_async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
  r.memoryKind = e.memory_kind;
  r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  return r;
}

CUpti_ActivitySynchronization2 MakeSynchronizationRecord(const SynchronizationEvent& e,
                                                         const ClockOffset& clock) {
  auto r = Zeroed<CUpti_ActivitySynchronization2>();
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = static_cast<CUpti_ActivitySynchronizationType>(e.type);
  r.start = clock.Map(e.start_ns);
  r.end = clock.Map(e.end_ns);
  r.correlationId = e.correlation_id;
  r.contextId = e.context_id;
  r.streamId = e.stream_id;
  r.cudaEventId = e.cuda_event_id;
  r.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  r.returnValue = 0;
  return r;
}

CUpti_ActivityAPI MakeApiRecord(const ApiEvent& e, const ClockOffset& clock) {
  auto r = Zeroed<CUpti_ActivityAPI>();
  r.kind =
      e.domain == ApiDomain::kRuntime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  r.cbid = e.cbid;
  r.start = clock.Map(e.start_ns);
  r.end = clock.Map(e.end_ns);
  r.processId = e.process_id;
  r.threadId = e.thread_id;
  r.correlationId = e.correlation_id;
  r.returnValue = static_cast<uint32_t>(e.return_value);
  return r;
}

CUpti_ActivityExternalCorrelation MakeExternalCorrelationRecord(
    CUpti_ExternalCorrelationKind external_kind, uint64_t external_id, uint32_t correlation_id) {
  auto r = Zeroed<CUpti_ActivityExternalCorrelation>();
  r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  r.externalKind = external_kind;
  r.externalId = external_id;
  r.correlationId = correlation_id;
  return r;
}

}  // namespace simcuda::cupti
