// Without a registered timestamp callback, the simulated CUPTI stamps records (and
// cuptiGetTimestamp) with CLOCK_REALTIME, like real CUPTI on Linux. A binary of its own: the
// clock is chosen per process, before any activity kind is enabled.
// Must never register a timestamp callback.
#include <cuda_runtime.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment =
    InstallSimEnvironment(RecorderOptions{/*monotonic_clock=*/false, /*latency_timestamps=*/false});

using CuptiDefaultClockTest = SimTest;

// CLOCK_REALTIME and CLOCK_MONOTONIC differ by years; allow for clock adjustments only.
constexpr uint64_t kSlackNs = 50 * kMillisecond;

TEST_F(CuptiDefaultClockTest, RecordsAreOnClockRealtime) {
  const uint64_t before = RealtimeNs();
  k1ms<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const uint64_t after = RealtimeNs();

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  const CUpti_ActivityKernel10& kernel = records.kernels[0].raw;
  EXPECT_GE(kernel.start + kSlackNs, before);
  EXPECT_LE(kernel.end, after + kSlackNs);
  bool found_launch = false;
  for (const CUpti_ActivityAPI& call : records.runtime_calls) {
    if (!IsLaunchCallbackId(call.cbid)) continue;
    found_launch = true;
    EXPECT_GE(call.start + kSlackNs, before);
    EXPECT_LE(call.end, after + kSlackNs);
  }
  EXPECT_TRUE(found_launch);
}

TEST_F(CuptiDefaultClockTest, GetTimestampIsClockRealtime) {
  const uint64_t before = RealtimeNs();
  uint64_t timestamp = 0;
  ASSERT_EQ(cuptiGetTimestamp(&timestamp), CUPTI_SUCCESS);
  const uint64_t after = RealtimeNs();
  EXPECT_GE(timestamp + kSlackNs, before);
  EXPECT_LE(timestamp, after + kSlackNs);
}

}  // namespace
}  // namespace brrr::simtest
