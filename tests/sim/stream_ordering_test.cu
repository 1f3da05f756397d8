// Stream ordering on the simulated device, as real CUDA defines it: non-blocking streams run
// concurrently; the legacy default stream (stream 0) waits for, and is waited on by, blocking
// streams but not cudaStreamNonBlocking ones; cudaStreamPerThread is a separate stream per host
// thread. Checked with CUPTI kernel start/end and host timing.
// Must never depend on the order in which CUPTI delivers records.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using StreamOrderingTest = SimTest;

// The CUPTI stream id of the kernels named `mangled`, which must all share one stream.
uint32_t StreamOf(const ActivityRecords& records, const char* mangled) {
  std::set<uint32_t> ids;
  for (const KernelRecord& kernel : records.kernels) {
    if (kernel.name == mangled) ids.insert(kernel.raw.streamId);
  }
  EXPECT_EQ(ids.size(), 1u) << mangled << " kernels ran on " << ids.size() << " streams";
  return ids.empty() ? 0 : *ids.begin();
}

std::vector<KernelRecord> Named(const ActivityRecords& records, const char* mangled) {
  std::vector<KernelRecord> found;
  for (const KernelRecord& kernel : records.kernels) {
    if (kernel.name == mangled) found.push_back(kernel);
  }
  std::sort(found.begin(), found.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.raw.start < b.raw.start; });
  return found;
}

TEST_F(StreamOrderingTest, NonBlockingStreamsRunConcurrently) {
  constexpr int kPerStream = 5;
  cudaStream_t streams[2] = {};
  for (cudaStream_t& stream : streams) {
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  const uint64_t start = MonotonicNs();
  for (int i = 0; i < kPerStream; ++i) {
    for (cudaStream_t stream : streams) k5ms<<<1, 1, 0, stream>>>(nullptr);
  }
  for (cudaStream_t stream : streams) ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const uint64_t elapsed = MonotonicNs() - start;
  const uint64_t serial_ns = 2 * kPerStream * k5msNs;
  EXPECT_GE(elapsed, serial_ns / 2);
  EXPECT_LE(elapsed, Generous(serial_ns / 2));

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), static_cast<size_t>(2 * kPerStream));
  std::set<uint32_t> stream_ids;
  uint64_t first_start = UINT64_MAX;
  uint64_t last_end = 0;
  for (const KernelRecord& kernel : records.kernels) {
    stream_ids.insert(kernel.raw.streamId);
    first_start = std::min<uint64_t>(first_start, kernel.raw.start);
    last_end = std::max<uint64_t>(last_end, kernel.raw.end);
  }
  ASSERT_EQ(stream_ids.size(), 2u);
  // On the device the two streams overlap: the span is about half the serial time.
  EXPECT_LT(last_end - first_start, serial_ns * 3 / 4);
  const std::vector<KernelRecord> a = records.KernelsOnStream(*stream_ids.begin());
  const std::vector<KernelRecord> b = records.KernelsOnStream(*stream_ids.rbegin());
  EXPECT_LT(std::max(a.front().raw.start, b.front().raw.start),
            std::min(a.back().raw.end, b.back().raw.end))
      << "the two streams' work did not overlap";
  for (cudaStream_t stream : streams) ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(StreamOrderingTest, LegacyDefaultStreamSerializesWithBlockingStreams) {
  cudaStream_t blocking = nullptr;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  k5ms<<<1, 1, 0, blocking>>>(nullptr);
  k5ms<<<1, 1, 0, blocking>>>(nullptr);
  plain<<<1, 1, 0, 0>>>(nullptr);        // waits for the blocking stream's work
  k1ms<<<1, 1, 0, blocking>>>(nullptr);  // waits for the legacy stream's work
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  const std::vector<KernelRecord> before = Named(records, k5msMangled);
  const std::vector<KernelRecord> legacy = Named(records, kPlainMangled);
  const std::vector<KernelRecord> after = Named(records, k1msMangled);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(legacy.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(legacy[0].raw.streamId, before[0].raw.streamId);
  EXPECT_GE(legacy[0].raw.start, before.back().raw.end)
      << "a stream-0 kernel started before earlier work on a blocking stream ended";
  EXPECT_GE(after[0].raw.start, legacy[0].raw.end)
      << "blocking-stream work started before earlier stream-0 work ended";
  ASSERT_EQ(cudaStreamDestroy(blocking), cudaSuccess);
}

TEST_F(StreamOrderingTest, NonBlockingStreamDoesNotSerializeWithLegacyDefaultStream) {
  cudaStream_t non_blocking = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
  const uint64_t first_launch = MonotonicNs();
  k20ms<<<1, 1, 0, non_blocking>>>(nullptr);
  k20ms<<<1, 1, 0, non_blocking>>>(nullptr);
  const uint64_t legacy_launch = MonotonicNs();
  plain<<<1, 1, 0, 0>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  const cudaError_t state = cudaStreamQuery(non_blocking);
  if (CannotHaveFinished(first_launch, 2 * k20msNs, MonotonicNs())) {
    EXPECT_EQ(state, cudaErrorNotReady)
        << "syncing the legacy stream waited for a non-blocking stream";
  }
  k1ms<<<1, 1, 0, non_blocking>>>(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  const std::vector<KernelRecord> long_work = Named(records, k20msMangled);
  const std::vector<KernelRecord> legacy = Named(records, kPlainMangled);
  ASSERT_EQ(long_work.size(), 2u);
  ASSERT_EQ(legacy.size(), 1u);
  EXPECT_NE(legacy[0].raw.streamId, long_work[0].raw.streamId);
  if (legacy_launch < long_work[0].raw.end) {
    EXPECT_LT(legacy[0].raw.start, long_work[0].raw.end)
        << "a stream-0 kernel waited for a non-blocking stream";
  }
  ASSERT_EQ(cudaStreamDestroy(non_blocking), cudaSuccess);
}

TEST_F(StreamOrderingTest, PerThreadDefaultStreamIsOneStreamPerThread) {
  constexpr int kPerThread = 4;
  std::atomic<int> ready{0};
  uint64_t fast_first_call = 0;
  // Thread 0 queues 80 ms on its per-thread stream, thread 1 4 ms on its own, at the same time.
  auto launch = [&](int thread) {
    ready.fetch_add(1);
    while (ready.load() < 2) std::this_thread::yield();
    if (thread == 1) fast_first_call = MonotonicNs();
    for (int i = 0; i < kPerThread; ++i) {
      if (thread == 0) {
        k20ms<<<1, 1, 0, cudaStreamPerThread>>>(nullptr);
      } else {
        k1ms<<<1, 1, 0, cudaStreamPerThread>>>(nullptr);
      }
    }
    EXPECT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  };
  std::thread slow_thread(launch, 0);
  std::thread fast_thread(launch, 1);
  slow_thread.join();
  fast_thread.join();
  tiny<<<1, 1, 0, cudaStreamPerThread>>>(nullptr);  // this thread's own per-thread stream
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), static_cast<size_t>(2 * kPerThread + 1));
  const uint32_t slow_stream = StreamOf(records, k20msMangled);
  const uint32_t fast_stream = StreamOf(records, k1msMangled);
  const uint32_t main_stream = StreamOf(records, kTinyMangled);
  EXPECT_NE(slow_stream, fast_stream);
  EXPECT_NE(slow_stream, main_stream);
  EXPECT_NE(fast_stream, main_stream);
  // Launched while the other thread's stream was busy, the fast kernels must not queue behind it.
  const std::vector<KernelRecord> slow = Named(records, k20msMangled);
  const std::vector<KernelRecord> fast = Named(records, k1msMangled);
  if (fast_first_call >= slow.back().raw.end) {
    GTEST_SKIP() << "inconclusive: the host was too slow to launch while the other stream ran";
  }
  EXPECT_LT(fast.front().raw.start, slow.back().raw.end)
      << "one thread's per-thread stream waited for another thread's";
}

}  // namespace
}  // namespace brrr::simtest
