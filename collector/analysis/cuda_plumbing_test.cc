// Tests of LeadingCudaPlumbing: nvcc's launch code, the runtime and the driver lead; the user's
// frame and everything after it stay; a stack of plumbing alone is never folded.
#include "collector/analysis/cuda_plumbing.h"

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(CudaPlumbingTest, NvccsLaunchCodeLeadsTheLaunchingFunction) {
  // As a release build's launch site reads (release_stacks_e2e_test's program).
  EXPECT_EQ(LeadingCudaPlumbing({"__cudaLaunchKernel_helper(CUkern_st*, dim3,...) (device_functions.h:2963)",
                                 "__device_stub__Z10accumulatePf(float*) (tmpxft_0-6_x.cudafe1.stub.c:13)",
                                 "accumulate(float*) (release_stacks.cu:17)",
                                 "launch_work(float*) (release_stacks.cu:24)", "main (release_stacks.cu:44)"}),
            3u);
}

TEST(CudaPlumbingTest, RuntimeDriverAndTemplateFramesLead) {
  EXPECT_EQ(LeadingCudaPlumbing({"cudaMemcpy (libcudart.so.13)", "cuMemcpyDtoH_v2 (libcuda.so.1)",
                                 "cudaError cudaLaunchKernel<char>(...) (cuda_runtime.h:216)",
                                 "step (app.cc:10)"}),
                3u);
  EXPECT_EQ(LeadingCudaPlumbing({"hook (libbrrr.so)", "main (app.cc:3)"}), 1u);
  // Whatever an inlined frame of CUDA's headers is named.
  EXPECT_EQ(LeadingCudaPlumbing({"launch_helper (device_functions.h:2963)",
                                 "__cudaRegisterLinkedBinary (host_runtime.h:191)", "step (app.cu:10)"}),
            2u);
}

TEST(CudaPlumbingTest, UserFramesAndLibrariesAreNotPlumbing) {
  EXPECT_EQ(LeadingCudaPlumbing({"copy_back(float const*) (release_lib.cu:15)", "main (app.cc:3)"}), 0u);
  EXPECT_EQ(LeadingCudaPlumbing({"at::native::copy_ (libtorch_cpu.so)", "f (x.py:3)"}), 0u);
  EXPECT_EQ(LeadingCudaPlumbing({"cublasSgemm_v2 (libcublas.so.13)", "main (app.cc:3)"}), 0u);
  // A plumbing frame after the user's frame stays where it is.
  EXPECT_EQ(LeadingCudaPlumbing({"main (app.cc:3)", "cudaFree (libcudart.so.13)"}), 0u);
  // Names that merely start alike.
  EXPECT_EQ(LeadingCudaPlumbing({"cudaish_helper (app.cc:9)", "main (app.cc:3)"}), 0u);
}

TEST(CudaPlumbingTest, AStackOfPlumbingAloneIsNotFolded) {
  EXPECT_EQ(LeadingCudaPlumbing({"cudaFree (libcudart.so.13)", "cuMemFree_v2 (libcuda.so.1)"}), 0u);
  EXPECT_EQ(LeadingCudaPlumbing({"__device_stub__Z1kv() (a.stub.c:1)"}), 0u);
  EXPECT_EQ(LeadingCudaPlumbing({}), 0u);
}

}  // namespace
}  // namespace brrr
