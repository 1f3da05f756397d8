// Tests the stall reason of hooked calls and CUPTI-only calls.
#include "collector/analysis/stall_classifier.h"

#include "collector/analysis/api_catalog.h"
#include "gtest/gtest.h"
#include "shim/python_policy.h"

namespace brrr {
namespace {

StallReason Hooked(Api api, CopyKind kind = CopyKind::kNone,
                   HostMemory memory = HostMemory::kNone) {
  BlockingCallFacts f;
  f.api = api;
  f.copy_kind = kind;
  f.host_memory = memory;
  return ClassifyBlockingCall(f);
}

StallReason Named(std::string_view name, bool pageable = false, CopyKind kind = CopyKind::kNone) {
  BlockingCallFacts f;
  f.cupti_name = name;
  f.pageable_evidence = pageable;
  f.copy_kind = kind;
  return ClassifyBlockingCall(f);
}

TEST(StallClassifierTest, HookedCopies) {
  EXPECT_EQ(Hooked(Api::kCudaMemcpy, CopyKind::kDtoH), StallReason::kD2hCopy);
  EXPECT_EQ(Hooked(Api::kCudaMemcpyPtds, CopyKind::kDtoH), StallReason::kD2hCopy);
  EXPECT_EQ(Hooked(Api::kCudaMemcpy, CopyKind::kHtoD), StallReason::kSyncCopy);
  EXPECT_EQ(Hooked(Api::kCudaMemcpyAsync, CopyKind::kDtoH, HostMemory::kPageable),
            StallReason::kPageableAsyncCopy);
  EXPECT_EQ(Hooked(Api::kCudaMemcpyAsync, CopyKind::kHtoD, HostMemory::kPinned),
            StallReason::kAsyncCopyBlocked);
}

TEST(StallClassifierTest, AFreeOfNullWaitsForNothing) {
  BlockingCallFacts f;
  f.frees_nothing = true;
  for (Api api : {Api::kCudaFree, Api::kCudaFreeHost}) {
    f.api = api;
    EXPECT_EQ(ClassifyBlockingCall(f), StallReason::kNone) << static_cast<int>(api);
  }
  f.frees_nothing = false;
  EXPECT_EQ(ClassifyBlockingCall(f), StallReason::kFreeSyncsDevice);
}

TEST(StallClassifierTest, HookedSyncsAndFrees) {
  EXPECT_EQ(Hooked(Api::kCudaFree), StallReason::kFreeSyncsDevice);
  EXPECT_EQ(Hooked(Api::kCudaFreeHost), StallReason::kFreeSyncsDevice);
  EXPECT_EQ(Hooked(Api::kCudaFreeAsync), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaStreamSynchronizePtsz), StallReason::kStreamSync);
  EXPECT_EQ(Hooked(Api::kCudaDeviceSynchronize), StallReason::kDeviceSync);
  EXPECT_EQ(Hooked(Api::kCudaEventSynchronize), StallReason::kEventSync);
  EXPECT_EQ(Hooked(Api::kCudaMemset), StallReason::kSyncMemset);
}

TEST(StallClassifierTest, CallsThatDoNotWaitForTheDevice) {
  EXPECT_EQ(Hooked(Api::kCudaLaunchKernelInternal), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaMalloc), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaStreamWaitEvent), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaStreamQuery), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaEventRecord), StallReason::kNone);
  EXPECT_EQ(Hooked(Api::kCudaMemsetAsync), StallReason::kNone);
}

TEST(StallClassifierTest, CuptiOnlyCallsByName) {
  EXPECT_EQ(Named("cuMemcpyDtoH_v2"), StallReason::kD2hCopy);
  EXPECT_EQ(Named("cuMemcpyHtoD_v2"), StallReason::kSyncCopy);
  EXPECT_EQ(Named("cudaMemcpy2DFromArray", false, CopyKind::kDtoH), StallReason::kD2hCopy);
  EXPECT_EQ(Named("cuMemcpyHtoDAsync_v2", true), StallReason::kPageableAsyncCopy);
  EXPECT_EQ(Named("cuMemcpyHtoDAsync_v2", false), StallReason::kAsyncCopyBlocked);
  EXPECT_EQ(Named("cuCtxSynchronize"), StallReason::kDeviceSync);
  EXPECT_EQ(Named("cudaThreadSynchronize"), StallReason::kDeviceSync);
  EXPECT_EQ(Named("cuStreamSynchronize"), StallReason::kStreamSync);
  EXPECT_EQ(Named("cuEventSynchronize"), StallReason::kEventSync);
  EXPECT_EQ(Named("cuMemFree_v2"), StallReason::kFreeSyncsDevice);
  EXPECT_EQ(Named("cuMemFreeHost"), StallReason::kFreeSyncsDevice);
  EXPECT_EQ(Named("cuMemFreeAsync"), StallReason::kNone);
  EXPECT_EQ(Named("cuLaunchKernel"), StallReason::kNone);
  EXPECT_EQ(Named(""), StallReason::kNone);
}

TEST(StallClassifierTest, ReasonNames) {
  EXPECT_EQ(StallReasonName(StallReason::kD2hCopy), "d2h_copy");
  EXPECT_EQ(StallReasonName(StallReason::kPageableAsyncCopy), "pageable_async_copy");
  EXPECT_EQ(StallReasonName(StallReason::kFreeSyncsDevice), "free_syncs_device");
  EXPECT_EQ(StallReasonName(StallReason::kQueryPoll), "query_poll");
  EXPECT_EQ(StallReasonName(static_cast<StallReason>(200)), "none");
}

// A syncing call is one whatever it took; an async copy only of pageable memory.
TEST(StallClassifierTest, SyncingCalls) {
  auto syncing = [](Api api, HostMemory memory, bool frees_nothing = false) {
    BlockingCallFacts f;
    f.api = api;
    f.copy_kind = CopyKind::kDtoH;
    f.host_memory = memory;
    f.frees_nothing = frees_nothing;
    return ClassifySyncingCall(f);
  };
  EXPECT_EQ(syncing(Api::kCudaMemcpy, HostMemory::kPageable), StallReason::kD2hCopy);
  EXPECT_EQ(syncing(Api::kCudaMemcpyAsync, HostMemory::kPageable),
            StallReason::kPageableAsyncCopy);
  EXPECT_EQ(syncing(Api::kCudaMemcpyAsync, HostMemory::kPinned), StallReason::kNone);
  EXPECT_EQ(syncing(Api::kCudaMemcpyAsync, HostMemory::kUnknown), StallReason::kNone);
  EXPECT_EQ(syncing(Api::kCudaFree, HostMemory::kNone), StallReason::kFreeSyncsDevice);
  EXPECT_EQ(syncing(Api::kCudaFree, HostMemory::kNone, /*frees_nothing=*/true),
            StallReason::kNone);
  EXPECT_EQ(syncing(Api::kCudaStreamSynchronize, HostMemory::kNone), StallReason::kStreamSync);
  EXPECT_EQ(syncing(Api::kCudaMalloc, HostMemory::kNone), StallReason::kNone);
  EXPECT_EQ(syncing(Api::kCudaEventRecord, HostMemory::kNone), StallReason::kNone);
  EXPECT_EQ(syncing(Api::kCudaLaunchKernel, HostMemory::kNone), StallReason::kNone);
}

// The shim captures a whole stack (and Python frames) for exactly the hooked calls the analysis
// counts as syncing, so that their sites do not depend on how long they took.
TEST(StallClassifierTest, TheShimCapturesWholeStacksOfEverySyncingCall) {
  for (uint16_t a = 1; a < static_cast<uint16_t>(Api::kApiCount); ++a) {
    const Api api = static_cast<Api>(a);
    if (ApiName(api) == "unknown") continue;  // not a value of the enum
    for (const HostMemory memory : {HostMemory::kNone, HostMemory::kPageable, HostMemory::kPinned}) {
      BlockingCallFacts f;
      f.api = api;
      f.copy_kind = CopyKind::kDtoH;
      f.host_memory = memory;
      const bool counted = ClassifySyncingCall(f) != StallReason::kNone;
      const bool captured =
          shim::PythonCaptureOfRecord(shim::PythonCaptureFor(api), memory) ==
          shim::PythonCapture::kSyncing;
      EXPECT_EQ(counted, captured) << "api " << a << " host memory " << static_cast<int>(memory);
    }
  }
}

}  // namespace
}  // namespace brrr
