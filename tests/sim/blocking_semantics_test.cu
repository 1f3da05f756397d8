// Blocking semantics of the simulated device, as real CUDA defines them: which calls return only
// after device work is done (D2H cudaMemcpy, pageable cudaMemcpyAsync, cudaFree) and which return
// at once (launches, pinned async copies, cudaMalloc). Checked by host timing and CUPTI records.
// Must never assert an upper time bound where a loaded machine could exceed it without a bug.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using BlockingSemanticsTest = SimTest;

std::vector<int> Pattern(size_t count, int seed) {
  std::vector<int> values(count);
  std::iota(values.begin(), values.end(), seed);
  return values;
}

TEST_F(BlockingSemanticsTest, DeviceToHostMemcpyReturnsAfterQueuedKernels) {
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(device, 0, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  TakeActivityRecords();

  constexpr int kKernels = 10;
  const uint64_t first_launch = MonotonicNs();
  for (int i = 0; i < kKernels; ++i) plain<<<1, 1>>>(nullptr);
  int host = -1;
  ASSERT_EQ(cudaMemcpy(&host, device, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  const uint64_t returned = MonotonicNs();

  EXPECT_EQ(host, 0);
  EXPECT_GE(returned - first_launch, kKernels * kPlainNs);
  EXPECT_LE(returned - first_launch, Generous(kKernels * kPlainNs));

  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), static_cast<size_t>(kKernels));
  ASSERT_EQ(records.memcpys.size(), 1u);
  const CUpti_ActivityMemcpy6& copy = records.memcpys[0];
  EXPECT_EQ(copy.copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
  for (const KernelRecord& kernel : records.kernels) {
    EXPECT_GE(copy.start, kernel.raw.end) << "the copy ran before a kernel queued ahead of it";
  }
  EXPECT_GE(returned, copy.end) << "cudaMemcpy returned before its copy finished";
  ASSERT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(BlockingSemanticsTest, LaunchesCostLaunchNsEachAndDoNotWaitForTheDevice) {
  constexpr int kKernels = 10;
  std::vector<uint64_t> call_ns;
  const uint64_t first_launch = MonotonicNs();
  for (int i = 0; i < kKernels; ++i) {
    const uint64_t before = MonotonicNs();
    k1ms<<<1, 1>>>(nullptr);
    call_ns.push_back(MonotonicNs() - before);
  }
  const uint64_t launched = MonotonicNs();
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const cudaError_t state = cudaStreamQuery(nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const uint64_t finished = MonotonicNs();

  for (int i = 0; i < kKernels; ++i) {
    EXPECT_GE(call_ns[i], kLaunchNs) << "launch " << i << " took less than BRRR_SIM_LAUNCH_NS";
  }
  // Asynchronous: synchronous launches of ten 1 ms kernels would take at least 10 ms.
  EXPECT_LT(launched - first_launch, kKernels * k1msNs);
  if (CannotHaveFinished(first_launch, kKernels * k1msNs, launched)) {
    EXPECT_EQ(state, cudaErrorNotReady) << "the device was idle right after 10 ms of launches";
  }
  EXPECT_GE(finished - first_launch, kKernels * k1msNs);

  const ActivityRecords records = TakeActivityRecords();
  int launches = 0;
  for (const CUpti_ActivityAPI& call : records.runtime_calls) {
    if (!IsLaunchCallbackId(call.cbid)) continue;
    ++launches;
    EXPECT_GE(call.end - call.start, kLaunchNs) << "runtime record of a launch is too short";
  }
  EXPECT_EQ(launches, kKernels);
}

// Queues `kernels` k5ms kernels on `stream`, then one async copy; returns how long the copy call
// took and whether the stream was still busy right after it.
struct AsyncCopyObservation {
  uint64_t first_launch = 0;
  uint64_t copy_called = 0;
  uint64_t copy_returned = 0;
  cudaError_t stream_state_after = cudaSuccess;
  bool host_kept_up = false;  // the state was asked before the kernels could have finished
};

AsyncCopyObservation CopyBehindKernels(void* dst, const void* src, size_t bytes,
                                       cudaMemcpyKind kind, cudaStream_t stream, int kernels) {
  AsyncCopyObservation seen;
  seen.first_launch = MonotonicNs();
  for (int i = 0; i < kernels; ++i) k5ms<<<1, 1, 0, stream>>>(nullptr);
  seen.copy_called = MonotonicNs();
  EXPECT_EQ(cudaMemcpyAsync(dst, src, bytes, kind, stream), cudaSuccess);
  seen.copy_returned = MonotonicNs();
  seen.stream_state_after = cudaStreamQuery(stream);
  seen.host_kept_up = CannotHaveFinished(seen.first_launch, kernels * k5msNs, MonotonicNs());
  return seen;
}

TEST_F(BlockingSemanticsTest, PageableAsyncCopiesWaitForTheStreamAndTheCopy) {
  constexpr size_t kCount = 64 * 1024;
  constexpr size_t kBytes = kCount * sizeof(int);
  constexpr int kKernels = 4;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  const std::vector<int> sent = Pattern(kCount, 7);
  std::vector<int> received(kCount, 0);

  // Host to device from pageable memory: the stream's earlier work is done before it returns.
  const AsyncCopyObservation h2d =
      CopyBehindKernels(device, sent.data(), kBytes, cudaMemcpyHostToDevice, stream, kKernels);
  EXPECT_GE(h2d.copy_returned - h2d.first_launch, kKernels * k5msNs);
  // Device to host into pageable memory: returns only once the copy itself completed.
  const AsyncCopyObservation d2h =
      CopyBehindKernels(received.data(), device, kBytes, cudaMemcpyDeviceToHost, stream, kKernels);
  const uint64_t copy_ns = static_cast<uint64_t>(kBytes / kCopyBytesPerNs);
  EXPECT_GE(d2h.copy_returned - d2h.first_launch, kKernels * k5msNs + copy_ns);
  EXPECT_EQ(d2h.stream_state_after, cudaSuccess);
  EXPECT_EQ(received, sent) << "data did not survive a pageable round trip";

  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 2u);
  for (const CUpti_ActivityMemcpy6& copy : records.memcpys) {
    if (copy.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) {
      EXPECT_LE(copy.end, d2h.copy_returned) << "pageable D2H returned before its copy ended";
    }
  }
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Pinned host memory from cudaMallocHost or cudaHostRegister: the copy call returns while the
// kernels ahead of it still run, and the data arrives once the stream is synchronized.
void ExpectPinnedCopiesReturnAtOnce(int* pinned_out, int* pinned_in, size_t count) {
  const size_t bytes = count * sizeof(int);
  constexpr int kKernels = 8;  // 40 ms of device work ahead of each copy
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  const std::vector<int> pattern = Pattern(count, 11);
  std::copy(pattern.begin(), pattern.end(), pinned_out);
  std::fill(pinned_in, pinned_in + count, 0);

  const AsyncCopyObservation h2d =
      CopyBehindKernels(device, pinned_out, bytes, cudaMemcpyHostToDevice, stream, kKernels);
  const AsyncCopyObservation d2h =
      CopyBehindKernels(pinned_in, device, bytes, cudaMemcpyDeviceToHost, stream, kKernels);
  // Had the copies waited for the kernels, they would have returned 40 ms after the first launch.
  EXPECT_LT(h2d.copy_returned - h2d.first_launch, kKernels * k5msNs);
  EXPECT_LT(d2h.copy_returned - d2h.first_launch, kKernels * k5msNs);
  if (h2d.host_kept_up) {
    EXPECT_EQ(h2d.stream_state_after, cudaErrorNotReady) << "pinned H2D copy waited for the stream";
  }
  if (d2h.host_kept_up) {
    EXPECT_EQ(d2h.stream_state_after, cudaErrorNotReady) << "pinned D2H copy waited for the stream";
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_GE(MonotonicNs() - h2d.first_launch, 2 * kKernels * k5msNs);
  EXPECT_TRUE(std::equal(pattern.begin(), pattern.end(), pinned_in))
      << "data did not survive a pinned round trip";

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 2u);
  for (const CUpti_ActivityMemcpy6& copy : records.memcpys) {
    if (!h2d.host_kept_up) break;
    EXPECT_GT(copy.start, h2d.copy_returned) << "copy record starts before the call returned, "
                                                "though 40 ms of kernels were queued ahead";
  }
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(BlockingSemanticsTest, AsyncCopiesFromCudaMallocHostMemoryReturnAtOnce) {
  constexpr size_t kCount = 64 * 1024;
  int* out = nullptr;
  int* in = nullptr;
  ASSERT_EQ(cudaMallocHost(&out, kCount * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&in, kCount * sizeof(int)), cudaSuccess);
  ExpectPinnedCopiesReturnAtOnce(out, in, kCount);
  EXPECT_EQ(cudaFreeHost(out), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(in), cudaSuccess);
}

TEST_F(BlockingSemanticsTest, AsyncCopiesFromRegisteredHostMemoryReturnAtOnce) {
  constexpr size_t kCount = 64 * 1024;
  std::vector<int> out(kCount);
  std::vector<int> in(kCount);
  ASSERT_EQ(cudaHostRegister(out.data(), kCount * sizeof(int), cudaHostRegisterDefault),
            cudaSuccess);
  ASSERT_EQ(cudaHostRegister(in.data(), kCount * sizeof(int), cudaHostRegisterDefault),
            cudaSuccess);
  ExpectPinnedCopiesReturnAtOnce(out.data(), in.data(), kCount);
  EXPECT_EQ(cudaHostUnregister(out.data()), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(in.data()), cudaSuccess);
}

TEST_F(BlockingSemanticsTest, CudaFreeWaitsForQueuedKernels) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 4096), cudaSuccess);
  constexpr int kKernels = 4;
  const uint64_t first_launch = MonotonicNs();
  for (int i = 0; i < kKernels; ++i) k5ms<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  const uint64_t returned = MonotonicNs();
  EXPECT_GE(returned - first_launch, kKernels * k5msNs);
  EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess) << "cudaFree returned with kernels pending";
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(BlockingSemanticsTest, CudaMallocDoesNotWaitForQueuedKernels) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kKernels = 4;  // 80 ms
  const uint64_t first_launch = MonotonicNs();
  for (int i = 0; i < kKernels; ++i) k20ms<<<1, 1, 0, stream>>>(nullptr);
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 4096), cudaSuccess);
  const uint64_t returned = MonotonicNs();
  const cudaError_t state = cudaStreamQuery(stream);
  // Had cudaMalloc waited for the kernels, it would have returned 80 ms after the first launch.
  EXPECT_LT(returned - first_launch, kKernels * k20msNs);
  if (CannotHaveFinished(first_launch, kKernels * k20msNs, MonotonicNs())) {
    EXPECT_EQ(state, cudaErrorNotReady) << "cudaMalloc waited for the device";
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace brrr::simtest
