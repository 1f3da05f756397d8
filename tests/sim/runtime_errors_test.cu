// Errors of the simulated runtime are the real ones: unsupported calls say cudaErrorNotSupported
// (and the runtime keeps working), an empty launch configuration is
// cudaErrorInvalidConfiguration from cudaGetLastError, and error names and strings are the texts
// the real libcudart 13 prints (copied from it, not from the simulator).
// Must never rely on the simulator for the expected texts.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "cupti_recorder.h"
#include "sim_kernels.cuh"
#include "sim_test_environment.h"

namespace brrr::simtest {
namespace {

const auto* const kEnvironment = InstallSimEnvironment({});

using RuntimeErrorsTest = SimTest;

// After a failed call, the runtime still copies data and runs kernels.
void ExpectRuntimeStillWorks() {
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, sizeof(int)), cudaSuccess);
  const int sent = 42;
  int received = 0;
  ASSERT_EQ(cudaMemcpy(device, &sent, sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  plain<<<1, 1>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&received, device, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(received, sent);
  ASSERT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(RuntimeErrorsTest, GraphCreateIsNotSupported) {
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaGraphCreate(&graph, 0), cudaErrorNotSupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported) << "the failure is the thread's last error";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "cudaGetLastError resets it";
  ExpectRuntimeStillWorks();
}

TEST_F(RuntimeErrorsTest, Malloc3DIsNotSupported) {
  cudaPitchedPtr pitched{};
  EXPECT_EQ(cudaMalloc3D(&pitched, make_cudaExtent(64, 4, 4)), cudaErrorNotSupported);
  (void)cudaGetLastError();
  ExpectRuntimeStillWorks();
}

TEST_F(RuntimeErrorsTest, EmptyLaunchConfigurationIsInvalidConfiguration) {
  plain<<<0, 1>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration) << "zero grid";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the error is not sticky";
  plain<<<1, 0>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration) << "zero block";
  plain<<<dim3(1, 0, 1), 1>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration) << "zero grid y";
  tiny<<<1, 1>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const ActivityRecords records = TakeActivityRecords();
  ASSERT_EQ(records.kernels.size(), 1u) << "a rejected launch produced a kernel record";
  EXPECT_EQ(records.kernels[0].name, kTinyMangled);
}

TEST_F(RuntimeErrorsTest, ErrorNamesAndStringsAreTheRealOnes) {
  const struct {
    cudaError_t error;
    const char* name;
    const char* text;
  } expected[] = {
      {cudaSuccess, "cudaSuccess", "no error"},
      {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
      {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
      {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
       "invalid configuration argument"},
      {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
      {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
  };
  for (const auto& want : expected) {
    const char* name = cudaGetErrorName(want.error);
    const char* text = cudaGetErrorString(want.error);
    ASSERT_NE(name, nullptr);
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(std::string(name), want.name);
    EXPECT_EQ(std::string(text), want.text) << want.name;
  }
}

}  // namespace
}  // namespace brrr::simtest
