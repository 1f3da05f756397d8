// CUDA graphs on the simulated device, built by stream capture: captured launches, copies and
// memsets do not run at capture time; each cudaGraphLaunch runs every node in capture order on
// the launch stream, and each kernel executed gives a kernel record carrying the graph launch's
// correlation id, the executable's graph id and its node id, with the configured duration.
// Must never assert upper time bounds a loaded machine could exceed without a bug.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

class GraphTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    SimTest::TearDown();
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
  }

  // Captures k1ms, k5ms, plain on stream_ and instantiates them.
  void CaptureThreeKernels(cudaGraph_t* graph, cudaGraphExec_t* exec) {
    ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
    k1ms<<<1, 32, 0, stream_>>>(nullptr);
    k5ms<<<2, 64, 0, stream_>>>(nullptr);
    plain<<<3, 128, 0, stream_>>>(nullptr);
    ASSERT_EQ(cudaStreamEndCapture(stream_, graph), cudaSuccess);
    ASSERT_EQ(cudaGraphInstantiate(exec, *graph, 0), cudaSuccess);
  }

  cudaStream_t stream_ = nullptr;
};

TEST_F(GraphTest, CapturedKernelsDoNotRunAtCaptureTime) {
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  ASSERT_EQ(cudaStreamIsCapturing(stream_, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  k20ms<<<1, 1, 0, stream_>>>(nullptr);
  k20ms<<<1, 1, 0, stream_>>>(nullptr);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  ASSERT_EQ(cudaStreamIsCapturing(stream_, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 2u);

  const uint64_t before_sync = MonotonicNs();
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_LT(MonotonicNs() - before_sync, k20msNs) << "captured kernels ran on the stream";
  EXPECT_TRUE(TakeActivityRecords().kernels.empty());
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST_F(GraphTest, EachLaunchRunsEveryKernelNodeUnderTheLaunchCorrelationId) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CaptureThreeKernels(&graph, &exec);
  TakeActivityRecords();

  const uint64_t launched_at = MonotonicNs();
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_GE(MonotonicNs(), launched_at + 2 * (k1msNs + k5msNs + kPlainNs));

  const ActivityRecords records = TakeActivityRecords();
  std::vector<uint32_t> launch_ids;
  for (const RuntimeRecord& call : records.runtime_calls) {
    if (call.cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000) {
      launch_ids.push_back(call.correlationId);
    }
  }
  ASSERT_EQ(launch_ids.size(), 2u);

  std::vector<KernelRecord> kernels = records.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.raw.start < b.raw.start; });
  ASSERT_EQ(kernels.size(), 6u);
  const char* const names[] = {k1msMangled, k5msMangled, kPlainMangled};
  const uint64_t durations[] = {k1msNs, k5msNs, kPlainNs};
  const int grids[] = {1, 2, 3};
  std::set<uint64_t> node_ids;
  for (size_t i = 0; i < kernels.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& k = kernels[i].raw;
    EXPECT_EQ(kernels[i].name, names[i % 3]);
    EXPECT_EQ(k.end - k.start, durations[i % 3]);
    EXPECT_EQ(k.gridX, grids[i % 3]);
    EXPECT_EQ(k.correlationId, launch_ids[i / 3]) << "a graph kernel not under its launch's id";
    EXPECT_EQ(k.graphId, kernels[0].raw.graphId);
    EXPECT_NE(k.graphId, 0u);
    EXPECT_NE(k.graphNodeId, 0u);
    EXPECT_EQ(k.graphNodeId, kernels[i % 3].raw.graphNodeId) << "node ids differ between launches";
    node_ids.insert(k.graphNodeId);
    if (i > 0) EXPECT_GE(k.start, kernels[i - 1].raw.end) << "graph nodes overlapped";
  }
  EXPECT_EQ(node_ids.size(), 3u);
  EXPECT_TRUE(records.driver_calls.empty());

  ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(exec, stream_), cudaErrorInvalidValue);
  (void)cudaGetLastError();
}

TEST_F(GraphTest, TwoExecutablesHaveDistinctGraphIds) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t first = nullptr, second = nullptr;
  CaptureThreeKernels(&graph, &first);
  ASSERT_EQ(cudaGraphInstantiateWithFlags(&second, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(first, stream_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(second, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  std::set<uint32_t> graph_ids;
  for (const KernelRecord& kernel : records.kernels) graph_ids.insert(kernel.raw.graphId);
  EXPECT_EQ(records.kernels.size(), 6u);
  EXPECT_EQ(graph_ids.size(), 2u);
  EXPECT_EQ(graph_ids.count(0), 0u);
  ASSERT_EQ(cudaGraphExecDestroy(first), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(second), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST_F(GraphTest, CapturedCopiesAndMemsetsRunOnlyWhenLaunched) {
  constexpr size_t kBytes = 1024;
  unsigned char* device = nullptr;
  unsigned char* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, kBytes), cudaSuccess);
  std::memset(pinned, 0, kBytes);

  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(device, 0x5a, kBytes, stream_), cudaSuccess);
  tiny<<<1, 1, 0, stream_>>>(nullptr);
  ASSERT_EQ(cudaMemcpyAsync(pinned, device, kBytes, cudaMemcpyDeviceToHost, stream_), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(pinned[0], 0) << "a captured copy ran at capture time";

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  TakeActivityRecords();
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(pinned[0], 0x5a);
  EXPECT_EQ(pinned[kBytes - 1], 0x5a);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u);
  ASSERT_EQ(records.memsets.size(), 1u);
  ASSERT_EQ(records.memcpys.size(), 1u);
  const uint32_t launch_id = records.kernels[0].raw.correlationId;
  EXPECT_EQ(records.memsets[0].correlationId, launch_id);
  EXPECT_EQ(records.memcpys[0].correlationId, launch_id);
  EXPECT_LE(records.memsets[0].end, records.kernels[0].raw.start);
  EXPECT_LE(records.kernels[0].raw.end, records.memcpys[0].start);

  ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(GraphTest, TheLegacyStreamCannotBeCaptured) {
  EXPECT_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal),
            cudaErrorStreamCaptureUnsupported);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(stream_, &graph), cudaErrorIllegalState);
  (void)cudaGetLastError();
}

}  // namespace
}  // namespace brrr::simtest
