// Tests for the record builders: every field the simulation fills, per kind, on the real structs.
#include "record_builders.h"

#include <gtest/gtest.h>

namespace simcuda::cupti {
namespace {

constexpr ClockOffset kPlus1000{1000};

KernelEvent MakeKernel() {
  KernelEvent e{};
  e.name = "_Z6kernelPf";
  e.correlation_id = 77;
  e.device_id = 1;
  e.context_id = 2;
  e.stream_id = 13;
  e.grid_x = 4;
  e.grid_y = 5;
  e.grid_z = 6;
  e.block_x = 128;
  e.block_y = 2;
  e.block_z = 1;
  e.dynamic_shared_memory = 4096;
  e.queued_ns = 100;
  e.submitted_ns = 200;
  e.start_ns = 300;
  e.end_ns = 900;
  return e;
}

TEST(RecordBuildersTest, KernelFields) {
  const KernelEvent e = MakeKernel();
  const CUpti_ActivityKernel10 r =
      MakeKernelRecord(e, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, kPlus1000, true, 42);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(r.start, 1300u);
  EXPECT_EQ(r.end, 1900u);
  EXPECT_EQ(r.completed, 1900u);
  EXPECT_EQ(r.queued, 1100u);
  EXPECT_EQ(r.submitted, 1200u);
  EXPECT_EQ(r.deviceId, 1u);
  EXPECT_EQ(r.contextId, 2u);
  EXPECT_EQ(r.streamId, 13u);
  EXPECT_EQ(r.correlationId, 77u);
  EXPECT_EQ(r.gridX, 4);
  EXPECT_EQ(r.gridY, 5);
  EXPECT_EQ(r.gridZ, 6);
  EXPECT_EQ(r.blockX, 128);
  EXPECT_EQ(r.blockY, 2);
  EXPECT_EQ(r.blockZ, 1);
  EXPECT_EQ(r.dynamicSharedMemory, 4096);
  EXPECT_EQ(r.staticSharedMemory, 0);
  EXPECT_EQ(r.gridId, 42);
  EXPECT_EQ(r.name, e.name);  // the engine's pointer, valid for the process lifetime
  EXPECT_EQ(r.launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
  EXPECT_EQ(r.graphId, 0u);
  EXPECT_EQ(r.graphNodeId, 0u);
  EXPECT_EQ(r.isDeviceLaunched, 0);
  EXPECT_EQ(r.pAccessPolicyWindow, nullptr);
}

TEST(RecordBuildersTest, GraphKernelCarriesGraphAndNodeIds) {
  KernelEvent e = MakeKernel();
  e.graph_id = 3;
  e.graph_node_id = 9000000001ull;
  const CUpti_ActivityKernel10 r =
      MakeKernelRecord(e, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, kPlus1000, false, 1);
  EXPECT_EQ(r.graphId, 3u);
  EXPECT_EQ(r.graphNodeId, 9000000001ull);
  EXPECT_EQ(r.launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
}

TEST(RecordBuildersTest, CooperativeKernelHasCooperativeLaunchType) {
  KernelEvent e = MakeKernel();
  e.cooperative = true;
  const CUpti_ActivityKernel10 r =
      MakeKernelRecord(e, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, kPlus1000, false, 1);
  EXPECT_EQ(r.launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE);
}

TEST(RecordBuildersTest, KernelWithoutLatencyTimestampsHasUnknownQueuedAndSubmitted) {
  const CUpti_ActivityKernel10 r =
      MakeKernelRecord(MakeKernel(), CUPTI_ACTIVITY_KIND_KERNEL, kPlus1000, false, 1);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_KERNEL);
  EXPECT_EQ(r.queued, static_cast<uint64_t>(CUPTI_TIMESTAMP_UNKNOWN));
  EXPECT_EQ(r.submitted, static_cast<uint64_t>(CUPTI_TIMESTAMP_UNKNOWN));
  EXPECT_EQ(r.start, 1300u);
}

TEST(RecordBuildersTest, MemcpyFields) {
  MemcpyEvent e{};
  e.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  e.src_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  e.dst_kind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  e.is_async = true;
  e.bytes = 1 << 20;
  e.correlation_id = 9;
  e.device_id = 0;
  e.context_id = 1;
  e.stream_id = 7;
  e.start_ns = 10;
  e.end_ns = 20;
  const CUpti_ActivityMemcpy6 r = MakeMemcpyRecord(e, kPlus1000);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(r.copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
  EXPECT_EQ(r.srcKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  EXPECT_EQ(r.dstKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  EXPECT_EQ(r.flags, CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
  EXPECT_EQ(r.bytes, 1u << 20);
  EXPECT_EQ(r.start, 1010u);
  EXPECT_EQ(r.end, 1020u);
  EXPECT_EQ(r.contextId, 1u);
  EXPECT_EQ(r.streamId, 7u);
  EXPECT_EQ(r.correlationId, 9u);
  EXPECT_EQ(r.copyCount, 1u);

  e.is_async = false;
  EXPECT_EQ(MakeMemcpyRecord(e, kPlus1000).flags, 0);
}

TEST(RecordBuildersTest, MemsetFields) {
  MemsetEvent e{};
  e.value = 0xff;
  e.memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  e.is_async = true;
  e.bytes = 512;
  e.correlation_id = 11;
  e.device_id = 3;
  e.context_id = 4;
  e.stream_id = 5;
  e.start_ns = 50;
  e.end_ns = 60;
  const CUpti_ActivityMemset4 r = MakeMemsetRecord(e, kPlus1000);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_MEMSET);
  EXPECT_EQ(r.value, 0xffu);
  EXPECT_EQ(r.memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  EXPECT_EQ(r.flags, CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC);
  EXPECT_EQ(r.bytes, 512u);
  EXPECT_EQ(r.start, 1050u);
  EXPECT_EQ(r.end, 1060u);
  EXPECT_EQ(r.deviceId, 3u);
  EXPECT_EQ(r.contextId, 4u);
  EXPECT_EQ(r.streamId, 5u);
  EXPECT_EQ(r.correlationId, 11u);
}

TEST(RecordBuildersTest, SynchronizationFields) {
  SynchronizationEvent e{};
  e.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  e.correlation_id = 21;
  e.context_id = 1;
  e.stream_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  e.cuda_event_id = 3;
  e.start_ns = 5;
  e.end_ns = 6;
  const CUpti_ActivitySynchronization2 r = MakeSynchronizationRecord(e, kPlus1000);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  EXPECT_EQ(r.type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE);
  EXPECT_EQ(r.correlationId, 21u);
  EXPECT_EQ(r.contextId, 1u);
  EXPECT_EQ(r.streamId, 0xffffffffu);
  EXPECT_EQ(r.cudaEventId, 3u);
  EXPECT_EQ(r.start, 1005u);
  EXPECT_EQ(r.end, 1006u);
  EXPECT_EQ(r.returnValue, 0u);
}

TEST(RecordBuildersTest, ApiRecordKindFollowsDomain) {
  ApiEvent e{};
  e.domain = ApiDomain::kRuntime;
  e.cbid = 211;
  e.correlation_id = 5;
  e.process_id = 100;
  e.thread_id = 101;
  e.start_ns = 1;
  e.end_ns = 2;
  e.return_value = 2;
  CUpti_ActivityAPI r = MakeApiRecord(e, kPlus1000);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(r.cbid, 211u);
  EXPECT_EQ(r.correlationId, 5u);
  EXPECT_EQ(r.processId, 100u);
  EXPECT_EQ(r.threadId, 101u);
  EXPECT_EQ(r.start, 1001u);
  EXPECT_EQ(r.end, 1002u);
  EXPECT_EQ(r.returnValue, 2u);
  e.domain = ApiDomain::kDriver;
  EXPECT_EQ(MakeApiRecord(e, kPlus1000).kind, CUPTI_ACTIVITY_KIND_DRIVER);
}

TEST(RecordBuildersTest, ExternalCorrelationFields) {
  const CUpti_ActivityExternalCorrelation r =
      MakeExternalCorrelationRecord(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 1ull << 40, 33);
  EXPECT_EQ(r.kind, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  EXPECT_EQ(r.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
  EXPECT_EQ(r.externalId, 1ull << 40);
  EXPECT_EQ(r.correlationId, 33u);
}

}  // namespace
}  // namespace simcuda::cupti
