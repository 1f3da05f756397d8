// The simulated stack under many host threads and at process exit: 8 threads x 2000 launches all
// run and each gives exactly one kernel record with a unique correlation id; a process that exits
// with work still queued (with or without CUPTI) neither hangs nor crashes.
// Must never leave a child process running (RunChild enforces a deadline).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "cupti_recorder.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using ConcurrencyTest = SimTest;

TEST_F(ConcurrencyTest, ManyThreadsLaunchingConcurrentlyAllComplete) {
  constexpr int kThreads = 8;
  constexpr int kLaunchesPerThread = 2000;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      // Even threads use a stream of their own, odd threads their per-thread default stream.
      cudaStream_t stream = cudaStreamPerThread;
      if (t % 2 == 0 && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        ++failures[t];
        return;
      }
      for (int i = 0; i < kLaunchesPerThread; ++i) {
        tiny<<<1, 1, 0, stream>>>(nullptr);
        if (cudaGetLastError() != cudaSuccess) ++failures[t];
      }
      if (cudaStreamSynchronize(stream) != cudaSuccess) ++failures[t];
      if (stream != cudaStreamPerThread && cudaStreamDestroy(stream) != cudaSuccess) ++failures[t];
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  EXPECT_EQ(records.dropped, 0u);
  ASSERT_EQ(records.kernels.size(), static_cast<size_t>(kThreads * kLaunchesPerThread));
  std::set<uint32_t> correlation_ids;
  std::map<uint32_t, int> per_stream;
  for (const KernelRecord& kernel : records.kernels) {
    correlation_ids.insert(kernel.raw.correlationId);
    ++per_stream[kernel.raw.streamId];
  }
  EXPECT_EQ(correlation_ids.size(), records.kernels.size()) << "correlation ids repeat";
  ASSERT_EQ(per_stream.size(), static_cast<size_t>(kThreads)) << "one stream per thread";
  for (const auto& [stream, count] : per_stream) {
    EXPECT_EQ(count, kLaunchesPerThread) << "stream " << stream;
  }
  int launch_calls = 0;
  for (const CUpti_ActivityAPI& call : records.runtime_calls) {
    if (!IsLaunchCallbackId(call.cbid)) continue;
    ++launch_calls;
    EXPECT_EQ(correlation_ids.count(call.correlationId), 1u);
  }
  EXPECT_EQ(launch_calls, kThreads * kLaunchesPerThread);
}

constexpr std::chrono::milliseconds kExitDeadline{20000};

TEST(ProcessExitTest, ExitWithQueuedWorkNeitherHangsNorCrashes) {
  const ChildResult result = RunChild({SIM_PROBE_PATH, "exit-with-queued-work"}, {}, kExitDeadline);
  EXPECT_FALSE(result.timed_out) << result.Describe();
  EXPECT_TRUE(result.exited) << result.Describe();
  EXPECT_EQ(result.exit_code, 0) << result.Describe();
  EXPECT_NE(result.out.find("queued"), std::string::npos) << result.Describe();
}

TEST(ProcessExitTest, ExitWithQueuedWorkAndCuptiNeitherHangsNorCrashes) {
  const ChildResult result =
      RunChild({SIM_PROBE_PATH, "exit-with-queued-work-cupti"}, {}, kExitDeadline);
  EXPECT_FALSE(result.timed_out) << result.Describe();
  EXPECT_TRUE(result.exited) << result.Describe();
  EXPECT_EQ(result.exit_code, 0) << result.Describe();
  EXPECT_NE(result.out.find("queued"), std::string::npos) << result.Describe();
}

}  // namespace
}  // namespace brrr::simtest
