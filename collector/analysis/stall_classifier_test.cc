// Tests the stall reason of hooked calls and CUPTI-only calls.
#include "collector/analysis/stall_classifier.h"

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace brrr
