// Tests of which recorded calls carry Python frames: categories of hooked APIs and CUPTI callback
// ids, the stall threshold, and 1-in-N launch sampling per thread.
#include "shim/python_policy.h"

#include <gtest/gtest.h>

namespace brrr::shim {
namespace {

TEST(PythonPolicyTest, CategoriesOfHookedCalls) {
  using ring::Api;
  EXPECT_EQ(PythonCaptureFor(Api::kCudaLaunchKernel), PythonCapture::kLaunchSample);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaLaunchKernelInternal), PythonCapture::kLaunchSample);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaGraphLaunchPtsz), PythonCapture::kLaunchSample);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMemcpy), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMemcpyFromSymbolAsyncPtsz), PythonCapture::kAsyncCopy);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMemset3DAsync), PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaFree), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaHostUnregister), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaStreamSynchronize), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaEventSynchronize), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMemset), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMemcpyAsync), PythonCapture::kAsyncCopy);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaEventRecord), PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaStreamWaitEvent), PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaStreamQuery), PythonCapture::kAlways);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaStreamQueryPtsz), PythonCapture::kAlways);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaEventQuery), PythonCapture::kAlways);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaMalloc), PythonCapture::kNever);
  EXPECT_EQ(PythonCaptureFor(Api::kCudaHostRegister), PythonCapture::kNever);
  EXPECT_EQ(PythonCaptureFor(Api::kUnknown), PythonCapture::kNever);
}

TEST(PythonPolicyTest, CategoriesOfCallbackIds) {
  EXPECT_EQ(PythonCaptureForCallback(true, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
            PythonCapture::kLaunchSample);
  EXPECT_EQ(PythonCaptureForCallback(true, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2),
            PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureForCallback(true, CUPTI_DRIVER_TRACE_CBID_cuEventQuery),
            PythonCapture::kAlways);
  EXPECT_EQ(PythonCaptureForCallback(false, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
            PythonCapture::kLaunchSample);
  EXPECT_EQ(PythonCaptureForCallback(false, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020),
            PythonCapture::kAlways);
  EXPECT_EQ(PythonCaptureForCallback(false, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020),
            PythonCapture::kIfSlow);
}

TEST(PythonPolicyTest, SyncingCallsWhateverTheyTook) {
  uint32_t count = 0;
  EXPECT_TRUE(DecidePythonCapture(PythonCapture::kSyncing, 0, 100, 8, &count).python);
  EXPECT_FALSE(DecidePythonCapture(PythonCapture::kSyncing, 0, 100, 1, &count).launch_sample);
  // An async copy is a syncing call when its host memory is pageable, and only then.
  using ring::HostMemory;
  const PythonCapture async_copy = PythonCaptureFor(ring::Api::kCudaMemcpyAsync);
  EXPECT_EQ(PythonCaptureOfRecord(async_copy, HostMemory::kPageable), PythonCapture::kSyncing);
  EXPECT_EQ(PythonCaptureOfRecord(PythonCapture::kIfSlow, HostMemory::kPageable),
            PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureOfRecord(async_copy, HostMemory::kPinned), PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureOfRecord(async_copy, HostMemory::kUnknown), PythonCapture::kIfSlow);
  EXPECT_EQ(PythonCaptureOfRecord(PythonCapture::kNever, HostMemory::kPageable),
            PythonCapture::kNever);
  EXPECT_EQ(PythonCaptureOfRecord(PythonCapture::kLaunchSample, HostMemory::kPageable),
            PythonCapture::kLaunchSample);
}

TEST(PythonPolicyTest, SlowCallsAtOrAboveTheThresholdOnly) {
  uint32_t count = 0;
  EXPECT_FALSE(DecidePythonCapture(PythonCapture::kIfSlow, 99, 100, 8, &count).python);
  EXPECT_TRUE(DecidePythonCapture(PythonCapture::kIfSlow, 100, 100, 8, &count).python);
  EXPECT_TRUE(DecidePythonCapture(PythonCapture::kIfSlow, 0, 0, 8, &count).python);
  EXPECT_TRUE(DecidePythonCapture(PythonCapture::kAlways, 0, 100, 8, &count).python);
  EXPECT_FALSE(DecidePythonCapture(PythonCapture::kNever, 1u << 30, 0, 8, &count).python);
  EXPECT_EQ(count, 0u);  // none of these counts as a launch
  EXPECT_FALSE(DecidePythonCapture(PythonCapture::kIfSlow, 1000, 100, 1, &count).launch_sample);
}

TEST(PythonPolicyTest, OneInNLaunches) {
  uint32_t count = 0;
  int sampled = 0;
  int first = -1;
  for (int i = 0; i < 1000; ++i) {
    // Slow launches are sampled like any other: duration plays no part.
    const PythonCaptureDecision d =
        DecidePythonCapture(PythonCapture::kLaunchSample, i % 2 ? 1u << 30 : 0, 10, 64, &count);
    EXPECT_EQ(d.python, d.launch_sample);
    if (d.launch_sample) {
      if (first < 0) first = i;
      ++sampled;
    }
  }
  EXPECT_EQ(sampled, 1000 / 64);
  EXPECT_EQ(first, 63);
  // N = 1: every launch; N = 0: none.
  count = 0;
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(DecidePythonCapture(PythonCapture::kLaunchSample, 0, 10, 1, &count).launch_sample);
  for (int i = 0; i < 10; ++i)
    EXPECT_FALSE(DecidePythonCapture(PythonCapture::kLaunchSample, 0, 10, 0, &count).python);
}

}  // namespace
}  // namespace brrr::shim
