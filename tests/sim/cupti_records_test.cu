// CUPTI activity records from the simulated stack match what real CUPTI gives a profiler: one
// CONCURRENT_KERNEL record per launch tied to its RUNTIME record by correlation id, on the
// registered clock, with the configured duration and the mangled name; external correlation
// records; memcpy memory kinds; synchronization record types; no latency timestamps unless
// enabled; a single subscriber. Expected values come from the test's own launches and settings.
// Must never depend on the order in which CUPTI delivers buffers.
#include <cuda_runtime.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment =
    InstallSimEnvironment(RecorderOptions{/*monotonic_clock=*/true, /*latency_timestamps=*/false});

using CuptiRecordsTest = SimTest;

constexpr uint64_t kRoundingNs = 1000;

struct Launch {
  const char* mangled;
  uint64_t duration_ns;
  int grid_x;
  int block_x;
  uint64_t call_began;
  uint64_t call_returned;
};

TEST_F(CuptiRecordsTest, EachLaunchHasOneKernelRecordTiedToItsRuntimeRecord) {
  std::vector<Launch> launches;
  for (int round = 0; round < 5; ++round) {
    Launch launch{kTinyMangled, kTinyNs, 3, 32, MonotonicNs(), 0};
    tiny<<<3, 32>>>(nullptr);
    launch.call_returned = MonotonicNs();
    launches.push_back(launch);
    launch = {kPlainMangled, kPlainNs, 1, 1, MonotonicNs(), 0};
    plain<<<1, 1>>>(nullptr);
    launch.call_returned = MonotonicNs();
    launches.push_back(launch);
    launch = {k1msMangled, k1msNs, 2, 64, MonotonicNs(), 0};
    k1ms<<<2, 64>>>(nullptr);
    launch.call_returned = MonotonicNs();
    launches.push_back(launch);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const uint64_t synchronized = MonotonicNs();

  const ActivityRecords records = TakeActivityRecords();
  EXPECT_EQ(records.dropped, 0u);
  const std::vector<KernelRecord> kernels = records.KernelsByCorrelation();
  ASSERT_EQ(kernels.size(), launches.size());
  uint64_t previous_end = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    SCOPED_TRACE("launch " + std::to_string(i) + " (" + launches[i].mangled + ")");
    const KernelRecord& kernel = kernels[i];
    const Launch& launch = launches[i];
    EXPECT_EQ(kernel.raw.kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    EXPECT_EQ(kernel.name, launch.mangled);
    EXPECT_EQ(kernel.raw.gridX, launch.grid_x);
    EXPECT_EQ(kernel.raw.blockX, launch.block_x);
    EXPECT_NE(kernel.raw.correlationId, 0u);
    EXPECT_NEAR(static_cast<double>(kernel.raw.end - kernel.raw.start),
                static_cast<double>(launch.duration_ns), kRoundingNs);
    EXPECT_GE(kernel.raw.start, launch.call_began) << "kernel started before it was launched";
    EXPECT_GE(kernel.raw.start, previous_end) << "kernels of one stream overlapped";
    EXPECT_LE(kernel.raw.end, synchronized) << "kernel ended after the device sync returned";
    previous_end = kernel.raw.end;

    const std::vector<RuntimeRecord> calls =
        records.RuntimeCallsWithCorrelation(kernel.raw.correlationId);
    ASSERT_EQ(calls.size(), 1u) << "runtime records with the kernel's correlation id";
    EXPECT_TRUE(IsLaunchCallbackId(calls[0].cbid)) << "cbid " << calls[0].cbid;
    EXPECT_GE(calls[0].start, launch.call_began);
    EXPECT_LE(calls[0].end, launch.call_returned);
    EXPECT_GE(kernel.raw.start, calls[0].start);
  }
  int launch_calls = 0;
  for (const CUpti_ActivityAPI& call : records.runtime_calls) {
    if (IsLaunchCallbackId(call.cbid)) ++launch_calls;
  }
  EXPECT_EQ(launch_calls, static_cast<int>(launches.size()));
}

TEST_F(CuptiRecordsTest, ExternalCorrelationIdsMapToTheLaunchesTheySurround) {
  constexpr uint64_t kBase = 0xbeef0000ull;
  constexpr int kTagged = 5;
  for (int i = 0; i < kTagged; ++i) {
    ASSERT_EQ(
        cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, kBase + i),
        CUPTI_SUCCESS);
    tiny<<<1, 1>>>(nullptr);
    uint64_t popped = 0;
    ASSERT_EQ(
        cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped),
        CUPTI_SUCCESS);
    EXPECT_EQ(popped, kBase + i);
  }
  plain<<<1, 1>>>(nullptr);  // untagged
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  const std::vector<KernelRecord> kernels = records.KernelsByCorrelation();
  ASSERT_EQ(kernels.size(), static_cast<size_t>(kTagged + 1));
  ASSERT_EQ(kernels.back().name, kPlainMangled);
  // Every API record made inside a push/pop region is preceded by an external correlation record
  // (cupti_activity.h), so the region's records lie between the previous launch and the next.
  for (int i = 0; i < kTagged; ++i) {
    SCOPED_TRACE("external id " + std::to_string(i));
    const uint32_t region_begin = i == 0 ? 0 : kernels[i - 1].raw.correlationId;
    const uint32_t region_end = kernels[i + 1].raw.correlationId;
    bool maps_the_launch = false;
    for (const CUpti_ActivityExternalCorrelation& ext : records.external_correlations) {
      if (ext.externalId != kBase + i) continue;
      EXPECT_EQ(ext.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
      EXPECT_GT(ext.correlationId, region_begin) << "maps to a call made before the push";
      EXPECT_LT(ext.correlationId, region_end) << "maps to a call made after the pop";
      EXPECT_EQ(records.RuntimeCallsWithCorrelation(ext.correlationId).size(), 1u)
          << "maps to correlation id " << ext.correlationId << ", which no runtime record has";
      if (ext.correlationId == kernels[i].raw.correlationId) maps_the_launch = true;
    }
    EXPECT_TRUE(maps_the_launch) << "no EXTERNAL_CORRELATION record for the launch";
  }
  for (const CUpti_ActivityExternalCorrelation& ext : records.external_correlations) {
    EXPECT_GE(ext.externalId, kBase) << "an external id nobody pushed";
    EXPECT_LT(ext.externalId, kBase + kTagged) << "an external id nobody pushed";
    EXPECT_NE(ext.correlationId, kernels.back().raw.correlationId)
        << "an untagged launch got an external correlation record";
  }
}

TEST_F(CuptiRecordsTest, MemcpyRecordsCarryCopyAndMemoryKinds) {
  constexpr size_t kBytes = 8192;
  std::vector<char> pageable(kBytes, 1);
  std::vector<char> registered(kBytes, 2);
  char* pinned = nullptr;
  char* device = nullptr;
  char* device2 = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, kBytes), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(registered.data(), kBytes, cudaHostRegisterDefault), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device2, kBytes), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  TakeActivityRecords();

  // Distinct sizes identify the copies in the records.
  ASSERT_EQ(cudaMemcpy(device, pageable.data(), 1000, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device, pinned, 2000, cudaMemcpyHostToDevice, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(registered.data(), device, 3000, cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pageable.data(), device, 4000, cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device2, device, 5000, cudaMemcpyDeviceToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  struct Expected {
    uint64_t bytes;
    uint8_t copy_kind, src_kind, dst_kind;
    int async;  // 1: CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC set, 0: clear, -1: not checked
  };
  const Expected expected[] = {
      {1000, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0},
      {2000, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 1},
      {3000, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 1},
      {4000, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, -1},  // real CUDA runs it synchronously
      {5000, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0},
  };
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), std::size(expected));
  for (const Expected& want : expected) {
    SCOPED_TRACE("copy of " + std::to_string(want.bytes) + " bytes");
    const CUpti_ActivityMemcpy6* found = nullptr;
    for (const CUpti_ActivityMemcpy6& copy : records.memcpys) {
      if (copy.bytes == want.bytes) found = &copy;
    }
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->copyKind, want.copy_kind);
    EXPECT_EQ(found->srcKind, want.src_kind);
    EXPECT_EQ(found->dstKind, want.dst_kind);
    if (want.async >= 0) {
      EXPECT_EQ((found->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0, want.async == 1);
    }
    const std::vector<RuntimeRecord> calls =
        records.RuntimeCallsWithCorrelation(found->correlationId);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].cbid, want.async != 0 ? CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020
                                             : CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaFree(device2), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(registered.data()), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

// The synchronization records whose runtime call has `cbid`.
std::vector<SynchronizationRecord> SyncsFromCall(const ActivityRecords& records, uint32_t cbid) {
  std::vector<SynchronizationRecord> found;
  for (const SynchronizationRecord& sync : records.synchronizations) {
    for (const CUpti_ActivityAPI& call : records.RuntimeCallsWithCorrelation(sync.correlationId)) {
      if (call.cbid == cbid) found.push_back(sync);
    }
  }
  return found;
}

TEST_F(CuptiRecordsTest, SynchronizationRecordsCarryTheSyncType) {
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  TakeActivityRecords();

  k1ms<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  tiny<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event, stream), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(event), cudaSuccess);
  plain<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 3u);
  const uint32_t stream_id = records.kernels[0].raw.streamId;
  uint64_t k1ms_end = 0;
  uint64_t tiny_end = 0;
  for (const KernelRecord& kernel : records.kernels) {
    if (kernel.name == k1msMangled) k1ms_end = kernel.raw.end;
    if (kernel.name == kTinyMangled) tiny_end = kernel.raw.end;
  }

  const auto stream_syncs =
      SyncsFromCall(records, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
  ASSERT_EQ(stream_syncs.size(), 1u);
  EXPECT_EQ(stream_syncs[0].type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
  EXPECT_EQ(stream_syncs[0].streamId, stream_id);
  EXPECT_GE(stream_syncs[0].end, k1ms_end) << "stream sync ended before the awaited kernel";

  const auto event_syncs =
      SyncsFromCall(records, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020);
  ASSERT_EQ(event_syncs.size(), 1u);
  EXPECT_EQ(event_syncs[0].type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE);
  EXPECT_GE(event_syncs[0].end, tiny_end) << "event sync ended before the awaited kernel";

  const auto device_syncs =
      SyncsFromCall(records, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
  ASSERT_EQ(device_syncs.size(), 1u);
  EXPECT_EQ(device_syncs[0].type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);

  ASSERT_EQ(cudaEventDestroy(event), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(CuptiRecordsTest, StreamWaitEventGivesASynchronizationRecord) {
  cudaStream_t producer = nullptr;
  cudaStream_t consumer = nullptr;
  cudaEvent_t event = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  TakeActivityRecords();

  k1ms<<<1, 1, 0, producer>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event, producer), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(consumer, event, 0), cudaSuccess);
  tiny<<<1, 1, 0, consumer>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  uint32_t consumer_id = 0;
  for (const KernelRecord& kernel : records.kernels) {
    if (kernel.name == kTinyMangled) consumer_id = kernel.raw.streamId;
  }
  const auto waits = SyncsFromCall(records, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
  EXPECT_EQ(waits[0].streamId, consumer_id);

  ASSERT_EQ(cudaEventDestroy(event), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(producer), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(consumer), cudaSuccess);
}

TEST_F(CuptiRecordsTest, NoLatencyTimestampsUnlessEnabled) {
  k1ms<<<1, 1>>>(nullptr);
  tiny<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 2u);
  for (const KernelRecord& kernel : records.kernels) {
    EXPECT_EQ(kernel.raw.queued, CUPTI_TIMESTAMP_UNKNOWN);
    EXPECT_EQ(kernel.raw.submitted, CUPTI_TIMESTAMP_UNKNOWN);
    EXPECT_NE(kernel.raw.start, CUPTI_TIMESTAMP_UNKNOWN);
  }
}

void CUPTIAPI IgnoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

TEST_F(CuptiRecordsTest, OnlyOneSubscriberAtATime) {
  CUpti_SubscriberHandle first = nullptr;
  CUpti_SubscriberHandle second = nullptr;
  ASSERT_EQ(cuptiSubscribe(&first, &IgnoreCallback, nullptr), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiSubscribe(&second, &IgnoreCallback, nullptr),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  ASSERT_EQ(cuptiUnsubscribe(first), CUPTI_SUCCESS);
  // Once the first one left, a new subscriber is accepted.
  ASSERT_EQ(cuptiSubscribe(&second, &IgnoreCallback, nullptr), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiUnsubscribe(second), CUPTI_SUCCESS);
}

}  // namespace
}  // namespace brrr::simtest
