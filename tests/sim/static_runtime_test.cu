// A program linked with the simulated stack's static runtime (libsimcudart_static.a, the stand-in
// for nvcc's default static cudart): its runtime functions live in the executable, no libcudart
// is loaded, the runtime reaches the device through libcuda.so.1 -- and CUPTI still records its
// runtime calls, kernels, copies and synchronizations.
// Must never link or load the shared runtime.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "cupti_recorder.h"
#include "host_clock.h"
#include "sim_kernels.cuh"
#include "sim_stack_check.h"

namespace brrr::simtest {
namespace {

class StaticRuntimeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string error = StartActivityRecording({});
    ASSERT_TRUE(error.empty()) << "CUPTI activity recording could not start: " << error;
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);  // loads libcuda.so.1 if not yet
    const std::string problem = StaticRuntimeStackProblem();
    if (!problem.empty()) GTEST_FAIL() << problem;
  }
};
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new StaticRuntimeEnvironment());

std::string RealPath(const char* path) {
  char resolved[PATH_MAX];
  return realpath(path, resolved) != nullptr ? resolved : path;
}

class StaticRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    TakeActivityRecords();
  }
};

TEST_F(StaticRuntimeTest, RuntimeFunctionsAreBoundInsideTheExecutable) {
  // What makes static cudart invisible to an LD_PRELOADed hook: the calls never leave the program.
  using MallocFn = cudaError_t (*)(void**, size_t);
  using LaunchFn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
  const MallocFn malloc_fn = &::cudaMalloc;
  const LaunchFn launch_fn = &::cudaLaunchKernel;
  const std::vector<const void*> functions = {
      reinterpret_cast<const void*>(malloc_fn), reinterpret_cast<const void*>(launch_fn),
      reinterpret_cast<const void*>(&cudaStreamSynchronize)};
  for (const void* function : functions) {
    Dl_info info{};
    ASSERT_NE(dladdr(function, &info), 0);
    EXPECT_EQ(RealPath(info.dli_fname), RealPath("/proc/self/exe"));
  }
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "cudaMalloc"), nullptr)
      << "the executable exports the runtime: a preload could interpose it";
}

TEST_F(StaticRuntimeTest, CuptiSeesRuntimeCallsAndTheirKernels) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const uint64_t launched_at = MonotonicNs();
  k5ms<<<2, 32, 0, stream>>>(nullptr);
  tiny<<<1, 1, 0, stream>>>(nullptr);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_GE(MonotonicNs(), launched_at + k5msNs + kTinyNs);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  const std::vector<KernelRecord> kernels = records.KernelsByCorrelation();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, k5msMangled);
  EXPECT_EQ(kernels[0].raw.end - kernels[0].raw.start, k5msNs);
  EXPECT_EQ(kernels[1].name, kTinyMangled);
  EXPECT_EQ(kernels[1].raw.end - kernels[1].raw.start, kTinyNs);
  for (const KernelRecord& kernel : kernels) {
    const auto calls = records.RuntimeCallsWithCorrelation(kernel.raw.correlationId);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_TRUE(IsLaunchCallbackId(calls[0].cbid)) << calls[0].cbid;
  }
  ASSERT_EQ(records.synchronizations.size(), 1u);
  EXPECT_EQ(records.synchronizations[0].type,
            CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
  EXPECT_EQ(records.RuntimeCallsWithCorrelation(records.synchronizations[0].correlationId).size(),
            1u);
  EXPECT_TRUE(records.driver_calls.empty());
}

TEST_F(StaticRuntimeTest, CopiesBlockAndAreRecorded) {
  constexpr size_t kBytes = 1 << 16;
  std::vector<unsigned char> in(kBytes, 0x11), out(kBytes, 0);
  unsigned char* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device, in.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  const uint64_t launched_at = MonotonicNs();
  k20ms<<<1, 1>>>(nullptr);
  ASSERT_EQ(cudaMemcpy(out.data(), device, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_GE(MonotonicNs(), launched_at + k20msNs);
  EXPECT_EQ(out, in);
  ASSERT_EQ(cudaFree(device), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.memcpys.size(), 2u);
  for (const MemcpyRecord& copy : records.memcpys) {
    const auto calls = records.RuntimeCallsWithCorrelation(copy.correlationId);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].cbid, static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020));
  }
}

}  // namespace
}  // namespace brrr::simtest
