// Events and synchronization on the simulated device, as real CUDA defines them: elapsed time
// between events equals the device work they bracket; queries say cudaErrorNotReady while work
// is pending; each synchronize call waits for what it names and nothing else; cudaStreamWaitEvent
// orders one stream behind another's event. Host timing plus CUPTI records.
// Must never assert upper time bounds a loaded machine could exceed without a bug.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

class EventAndSyncTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    for (cudaStream_t* stream : {&a_, &b_}) {
      ASSERT_EQ(cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking), cudaSuccess);
    }
    ASSERT_EQ(cudaEventCreate(&event_), cudaSuccess);
  }
  void TearDown() override {
    SimTest::TearDown();
    EXPECT_EQ(cudaEventDestroy(event_), cudaSuccess);
    for (cudaStream_t stream : {a_, b_}) EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  }

  cudaStream_t a_ = nullptr;
  cudaStream_t b_ = nullptr;
  cudaEvent_t event_ = nullptr;
};

TEST_F(EventAndSyncTest, ElapsedTimeEqualsTheBracketedKernels) {
  cudaEvent_t begin = nullptr;
  ASSERT_EQ(cudaEventCreate(&begin), cudaSuccess);
  // Keep the device busy first, so the bracketed kernels run back to back whatever the host does.
  k20ms<<<1, 1, 0, a_>>>(nullptr);
  k20ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(begin, a_), cudaSuccess);
  for (int i = 0; i < 3; ++i) k5ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event_, a_), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(event_), cudaSuccess);
  float elapsed_ms = 0.0f;
  ASSERT_EQ(cudaEventElapsedTime(&elapsed_ms, begin, event_), cudaSuccess);
  EXPECT_NEAR(elapsed_ms, 15.0f, 0.5f);
  ASSERT_EQ(cudaEventDestroy(begin), cudaSuccess);
}

TEST_F(EventAndSyncTest, QueriesSayNotReadyWhileWorkIsPending) {
  const uint64_t first_launch = MonotonicNs();
  k20ms<<<1, 1, 0, a_>>>(nullptr);
  k20ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event_, a_), cudaSuccess);
  const cudaError_t event_state = cudaEventQuery(event_);
  const cudaError_t stream_state = cudaStreamQuery(a_);
  if (CannotHaveFinished(first_launch, 2 * k20msNs, MonotonicNs())) {
    EXPECT_EQ(event_state, cudaErrorNotReady);
    EXPECT_EQ(stream_state, cudaErrorNotReady);
  }
  EXPECT_EQ(cudaStreamQuery(b_), cudaSuccess) << "an idle stream is reported busy";
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(event_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(a_), cudaSuccess);
}

TEST_F(EventAndSyncTest, EventSynchronizeWaitsForTheEventOnly) {
  const uint64_t other_launch = MonotonicNs();
  for (int i = 0; i < 4; ++i) k20ms<<<1, 1, 0, b_>>>(nullptr);  // 80 ms elsewhere
  const uint64_t start = MonotonicNs();
  k5ms<<<1, 1, 0, a_>>>(nullptr);
  k5ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event_, a_), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(event_), cudaSuccess);
  EXPECT_GE(MonotonicNs() - start, 2 * k5msNs);
  const cudaError_t other_state = cudaStreamQuery(b_);
  if (CannotHaveFinished(other_launch, 4 * k20msNs, MonotonicNs())) {
    EXPECT_EQ(other_state, cudaErrorNotReady)
        << "cudaEventSynchronize waited for another stream's work";
  }
}

TEST_F(EventAndSyncTest, StreamSynchronizeWaitsForThatStreamOnly) {
  const uint64_t other_launch = MonotonicNs();
  for (int i = 0; i < 4; ++i) k20ms<<<1, 1, 0, b_>>>(nullptr);
  const uint64_t start = MonotonicNs();
  k5ms<<<1, 1, 0, a_>>>(nullptr);
  k5ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  EXPECT_GE(MonotonicNs() - start, 2 * k5msNs);
  EXPECT_EQ(cudaStreamQuery(a_), cudaSuccess);
  const cudaError_t other_state = cudaStreamQuery(b_);
  if (CannotHaveFinished(other_launch, 4 * k20msNs, MonotonicNs())) {
    EXPECT_EQ(other_state, cudaErrorNotReady)
        << "cudaStreamSynchronize waited for another non-blocking stream's work";
  }
}

TEST_F(EventAndSyncTest, DeviceSynchronizeWaitsForEveryStream) {
  const uint64_t start = MonotonicNs();
  for (int i = 0; i < 3; ++i) k20ms<<<1, 1, 0, b_>>>(nullptr);
  k5ms<<<1, 1, 0, a_>>>(nullptr);
  plain<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GE(MonotonicNs() - start, 3 * k20msNs);
  EXPECT_EQ(cudaStreamQuery(a_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(b_), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(0), cudaSuccess);
}

TEST_F(EventAndSyncTest, StreamWaitEventOrdersAStreamBehindAnotherStreamsEvent) {
  const uint64_t start = MonotonicNs();
  k20ms<<<1, 1, 0, a_>>>(nullptr);
  ASSERT_EQ(cudaEventRecord(event_, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(b_, event_, 0), cudaSuccess);
  plain<<<1, 1, 0, b_>>>(nullptr);
  const cudaError_t waiting_state = cudaStreamQuery(b_);
  if (CannotHaveFinished(start, k20msNs, MonotonicNs())) {
    EXPECT_EQ(waiting_state, cudaErrorNotReady) << "the waiting stream did not wait";
  }
  ASSERT_EQ(cudaStreamSynchronize(b_), cudaSuccess);
  EXPECT_GE(MonotonicNs() - start, k20msNs + kPlainNs);

  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 2u);
  const KernelRecord& first =
      records.kernels[0].name == k20msMangled ? records.kernels[0] : records.kernels[1];
  const KernelRecord& second =
      records.kernels[0].name == k20msMangled ? records.kernels[1] : records.kernels[0];
  ASSERT_EQ(first.name, k20msMangled);
  ASSERT_EQ(second.name, kPlainMangled);
  EXPECT_GE(second.raw.start, first.raw.end) << "the waiting stream ran before the event";
}

}  // namespace
}  // namespace brrr::simtest
