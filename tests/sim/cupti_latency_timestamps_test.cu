// With cuptiActivityEnableLatencyTimestamps(1) called before CUDA initializes, the simulated
// CUPTI gives kernel records queued and submitted timestamps, ordered
// launch call <= queued <= submitted <= start. A binary of its own: the setting is per process.
// Must never make a CUDA call before the environment enabled the setting.
#include <cuda_runtime.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment =
    InstallSimEnvironment(RecorderOptions{/*monotonic_clock=*/true, /*latency_timestamps=*/true});

using CuptiLatencyTimestampsTest = SimTest;

TEST_F(CuptiLatencyTimestampsTest, KernelRecordsCarryQueuedAndSubmitted) {
  constexpr int kKernels = 6;
  std::vector<uint64_t> call_began;
  std::vector<uint64_t> call_returned;
  for (int i = 0; i < kKernels; ++i) {
    call_began.push_back(MonotonicNs());
    k1ms<<<1, 1>>>(nullptr);
    call_returned.push_back(MonotonicNs());
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const std::vector<KernelRecord> kernels = TakeActivityRecords().KernelsByCorrelation();
  ASSERT_EQ(kernels.size(), static_cast<size_t>(kKernels));
  for (int i = 0; i < kKernels; ++i) {
    SCOPED_TRACE("kernel " + std::to_string(i));
    const CUpti_ActivityKernel10& kernel = kernels[i].raw;
    ASSERT_NE(kernel.queued, CUPTI_TIMESTAMP_UNKNOWN);
    ASSERT_NE(kernel.submitted, CUPTI_TIMESTAMP_UNKNOWN);
    EXPECT_GE(kernel.queued, call_began[i]);
    EXPECT_LE(kernel.queued, call_returned[i]);
    EXPECT_LE(kernel.queued, kernel.submitted);
    EXPECT_LE(kernel.submitted, kernel.start);
  }
  // The first found the GPU idle: it starts as late after queueing and submission as kernels did
  // on an H200 (3.86 us after queued, 543 ns after submitted; simcuda's README).
  EXPECT_GE(kernels[0].raw.start - kernels[0].raw.queued, 3'860u);
  EXPECT_EQ(kernels[0].raw.start - kernels[0].raw.submitted, 543u);
  // Later kernels queue behind earlier ones: each waits for the one before it to end.
  for (int i = 1; i < kKernels; ++i) {
    EXPECT_GE(kernels[i].raw.start, kernels[i - 1].raw.end);
  }
}

}  // namespace
}  // namespace brrr::simtest
