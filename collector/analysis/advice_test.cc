// Tests of the advice with hand-worked numbers: which items appear, their order by what they
// could save, the numbers each quotes, the source frame of a stall, and each stall kind's remedy.
#include "collector/analysis/advice.h"

#include "collector/analysis/verdict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr int64_t kMs = 1'000'000;

DeviceBreakdown Device(int64_t busy, int64_t launch, int64_t drain, int64_t outside,
                       int64_t startup = 0, int64_t teardown = 0) {
  DeviceBreakdown d;
  d.wall_ns = busy + launch + drain + outside + startup + teardown;
  d.busy_ns = busy;
  d.idle = {launch, drain, outside};
  d.startup_ns = startup;
  d.teardown_ns = teardown;
  return d;
}

TEST(AdviceTest, DeviceBoundBandwidthRunGetsEveryItemOrderedBySaving) {
  // Steady state 1000 ms: busy 800, launch-bound 120, drain 30, outside 50. Kernels: pointwise
  // 500, reduction 200, matmul 100 -> bandwidth (87.5%). The d2h stall cost 40 ms.
  VerdictInputs in;
  in.devices = {Device(800 * kMs, 120 * kMs, 30 * kMs, 50 * kMs)};
  in.have_device_records = true;
  in.kernel_launches = 50'000;
  in.median_kernel_ns = 9'000;
  in.median_launch_call_ns = 4'000;
  in.kernel_classes = {{"pointwise", 30'000, 500 * kMs},
                       {"reduction", 15'000, 200 * kMs},
                       {"matmul", 5'000, 100 * kMs}};
  in.top_kernels = {
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3>)",
       30'000, 500 * kMs, 16'666, "pointwise"},
      {"triton_red_fused__softmax_0", 15'000, 200 * kMs, 13'333, "reduction"},
      {"ampere_sgemm_128x64_nn", 5'000, 100 * kMs, 20'000, "matmul"}};
  in.top_stall_row = Stall{"cudaMemcpy",
                           "d2h_copy",
                           400,
                           40 * kMs,
                           {"cudaMemcpy (libcudart.so.13)", "at::native::copy_ (libtorch_cuda.so)",
                            "Tensor.item (/usr/lib/python3/site-packages/torch/_tensor.py:10)",
                            "train_step (train.py:42)", "main (train.py:90)"}};
  in.top_launch_site =
      LaunchSite{{"cudaLaunchKernel (libcudart.so.13)", "forward (model.py:17)"}, 32'000};
  const Verdict v = DecideVerdict(in);
  ASSERT_EQ(v.regime, "device-bound");
  ASSERT_TRUE(v.device_regime.has_value());
  EXPECT_EQ(v.device_regime->regime, "bandwidth");
  ASSERT_THAT(v.advice, SizeIs(4));
  // bandwidth 700 ms > launch 120 ms > input 50 ms > stall 40 ms.
  EXPECT_THAT(v.advice[0], StartsWith("bandwidth-bound kernels: fuse them (torch.compile)"));
  EXPECT_THAT(v.advice[0], HasSubstr("16-bit activations"));
  EXPECT_THAT(v.advice[0], HasSubstr("pointwise 62.5%, reduction 25.0% of kernel time (700 ms)"));
  EXPECT_THAT(v.advice[0],
              HasSubstr("top: at::native::vectorized_elementwise_kernel<...> 62.5% (pointwise), "
                        "triton_red_fused__softmax_0 25.0% (reduction)"));
  EXPECT_THAT(v.advice[1], StartsWith("launch-bound: capture the loop in a CUDA graph"));
  EXPECT_THAT(v.advice[1], HasSubstr("the device idled 120 ms (12.0% of the steady state)"));
  EXPECT_THAT(v.advice[1], HasSubstr("50,000 launches, 50,000/s"));
  EXPECT_THAT(v.advice[1], HasSubstr("median kernel 9.00 us vs median launch call 4.00 us"));
  EXPECT_THAT(v.advice[1], HasSubstr("top launch site forward (model.py:17) (~32,000 launches)"));
  EXPECT_THAT(v.advice[2], StartsWith("input-bound: more DataLoader workers"));
  EXPECT_THAT(v.advice[2], HasSubstr("50.0 ms (5.0% of the steady state)"));
  // Its cost is the 30 ms of sync drain (less than its 40 ms blocked): still the smallest.
  EXPECT_THAT(v.advice[3], StartsWith("host stall: cudaMemcpy (d2h_copy) at train_step "
                                      "(train.py:42), 400 calls, 40.0 ms blocked; the device "
                                      "idled 30.0 ms (3.0% of the steady state) while the host "
                                      "was blocked in synchronizations: keep the value on the "
                                      "device"));
}

TEST(AdviceTest, ComputeRegimeAdvisesTensorCoresWithTheMatmulShare) {
  VerdictInputs in;
  in.devices = {Device(950 * kMs, 10 * kMs, 10 * kMs, 30 * kMs)};
  in.have_device_records = true;
  in.kernel_classes = {
      {"matmul", 100, 600 * kMs}, {"attention", 50, 250 * kMs}, {"pointwise", 500, 100 * kMs}};
  in.top_kernels = {{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1"
                     "x1_execute_segment_k_off_kernel__5x_cublas",
                     100, 600 * kMs, 6 * kMs, "matmul"},
                    {"flash_fwd_kernel", 50, 250 * kMs, 5 * kMs, "attention"}};
  const Verdict v = DecideVerdict(in);
  ASSERT_TRUE(v.device_regime.has_value());
  EXPECT_EQ(v.device_regime->regime, "compute");
  // Nothing else reaches its threshold: launch 1%, outside 3% (< 5%), no stall.
  ASSERT_THAT(v.advice, SizeIs(1));
  EXPECT_THAT(v.advice[0], StartsWith("compute-bound kernels: use Tensor Cores with BF16/FP16"));
  EXPECT_THAT(v.advice[0], HasSubstr("TF32"));
  EXPECT_THAT(v.advice[0], HasSubstr("larger matmul shapes"));
  EXPECT_THAT(v.advice[0], HasSubstr("matmul 63.2%, attention 26.3% of kernel time (850 ms)"));
  EXPECT_THAT(v.advice[0], HasSubstr("flash_fwd_kernel 26.3% (attention)"));
}

TEST(AdviceTest, StartupIsNotCountedInTheVerdict) {
  // 64 ms run: 30 ms of process start-up before the first CUDA call, 4 ms of teardown; the
  // 30 ms steady state is 60% launch-bound idle, 30% busy, 10% outside CUDA. Counting start-up
  // as "host outside CUDA" would have made it input-bound (33 of 64 ms).
  VerdictInputs in;
  in.devices = {Device(9 * kMs, 18 * kMs, 0, 3 * kMs, 30 * kMs, 4 * kMs)};
  in.have_device_records = true;
  const Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "launch-bound");
  EXPECT_THAT(v.why, HasSubstr("device busy 30.0% of the steady state (9.00 ms of 30.0 ms) "
                               "(start-up 30.0 ms and teardown 4.00 ms not counted)"));
  EXPECT_THAT(v.why, HasSubstr("60.0% idle while the host was launching"));
  ASSERT_THAT(v.advice, SizeIs(2));  // launch 18 ms, input 3 ms (10%)
  EXPECT_THAT(v.advice[0], StartsWith("launch-bound"));
  EXPECT_THAT(v.advice[1], StartsWith("input-bound"));
}

TEST(AdviceTest, AStallWhileTheDeviceIsBusyCostsNothing) {
  // Device-bound: the host waits 990 ms in cudaDeviceSynchronize while kernels run; the device
  // idled only 5 ms for it (0.5% < 1%): no stall advice, only the compute one.
  VerdictInputs in;
  in.devices = {Device(990 * kMs, 5 * kMs, 5 * kMs, 0)};
  in.have_device_records = true;
  in.kernel_classes = {{"matmul", 10, 990 * kMs}};
  in.top_stall_row = Stall{"cudaDeviceSynchronize", "device_sync", 1, 990 * kMs, {"main (a.cu:9)"}};
  const Verdict v = DecideVerdict(in);
  ASSERT_THAT(v.advice, SizeIs(1));
  EXPECT_THAT(v.advice[0], StartsWith("compute-bound kernels"));
}

TEST(AdviceTest, DeviceBoundInUnnamedKernelsPointsAtTheTopKernel) {
  VerdictInputs in;
  in.devices = {Device(950 * kMs, 10 * kMs, 10 * kMs, 30 * kMs)};
  in.have_device_records = true;
  in.kernel_classes = {{"other", 20, 950 * kMs}};
  in.top_kernels = {{"work(float*)", 20, 950 * kMs, 47'500'000, "other"}};
  const Verdict v = DecideVerdict(in);
  ASSERT_TRUE(v.device_regime.has_value());
  EXPECT_EQ(v.device_regime->regime, "mixed");
  ASSERT_THAT(v.advice, SizeIs(1));
  EXPECT_THAT(v.advice[0], StartsWith("device-bound in kernels whose names say neither"));
  EXPECT_THAT(v.advice[0], HasSubstr("--counters"));
  EXPECT_THAT(v.advice[0], HasSubstr("top: work 100.0% of kernel time (950 ms)"));
}

TEST(AdviceTest, SyncBoundWithoutStallRowsStillAdvises) {
  VerdictInputs in;
  in.devices = {Device(100, 100, 700, 100)};
  in.have_device_records = true;
  const Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "sync-bound");
  ASSERT_FALSE(v.advice.empty());
  EXPECT_THAT(v.advice[0], StartsWith("sync-bound: synchronize only where the host needs"));
  EXPECT_THAT(v.advice[0], HasSubstr("(70.0% of the steady state)"));
}

TEST(AdviceTest, HostOnlyRunsSpeakOfTheHost) {
  VerdictInputs in;
  in.host_split = {1000, 100, 300, 600};
  const Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "input-bound");
  ASSERT_THAT(v.advice, SizeIs(2));
  EXPECT_THAT(v.advice[0], HasSubstr("the host spent 600 ns (60.0% of the steady state)"));
  EXPECT_THAT(v.advice[1], StartsWith("launch-bound"));
}

// With no kernel record (host-only, or sampled with no window traced) a kernel's length is unknown:
// the advice gives the launch call's median and no "median kernel 0 ns".
TEST(AdviceTest, WithoutKernelRecordsTheLaunchAdviceNamesNoKernelLength) {
  VerdictInputs in;
  in.host_split = {1000, 10, 950, 40};
  in.median_launch_call_ns = 2'860;
  const Verdict v = DecideVerdict(in);
  ASSERT_THAT(v.advice, Not(IsEmpty()));
  EXPECT_THAT(v.advice[0], StartsWith("launch-bound"));
  EXPECT_THAT(v.advice[0], HasSubstr("; median launch call 2.86 us"));
  EXPECT_THAT(v.advice[0], Not(HasSubstr("median kernel")));
}

TEST(AdviceTest, SourceFrameSkipsPlumbing) {
  EXPECT_EQ(
      SourceFrame({"cudaMemcpy (libcudart.so.13)", "at::Tensor::item (libtorch_cpu.so)",
                   "Tensor.item (/x/site-packages/torch/_tensor.py:1)", "train (train.py:7)"}),
      "train (train.py:7)");
  EXPECT_EQ(SourceFrame({"cudaStreamSynchronize (libcudart.so.13)", "cuStreamSynchronize (x)",
                         "step (app.cc:12)", "main (app)"}),
            "step (app.cc:12)");
  EXPECT_EQ(SourceFrame({"cudaFree (libcudart.so.13)", "main (app)"}), "main (app)");
  EXPECT_EQ(SourceFrame({"cudaFree (libcudart.so.13)"}), "cudaFree (libcudart.so.13)");
  EXPECT_EQ(SourceFrame({}), "");
  // A user function whose name starts with "cu" is not a driver entry point.
  EXPECT_EQ(SourceFrame({"cudaFree (libcudart.so.13)", "custom_step (app.cc:3)"}),
            "custom_step (app.cc:3)");
}

// A launch site as nvcc's <<<>>> makes it (with inlined frames expanded): the stub's helper, the
// stub, the host wrapper named as the kernel at its definition, then the line of the launch.
TEST(AdviceTest, SourceFrameOfALaunchSkipsNvccsLaunchCode) {
  EXPECT_EQ(SourceFrame({"__cudaLaunchKernel_helper(void const*) (device_functions.h:2963)",
                         "__device_stub__Z8tiny_addPfi(float*, int) (tmpxft_01-6_app.cudafe1.stub.c:14)",
                         "tiny_add(float*, int) (app.cu:18)", "LaunchBoundPhase(float*) (app.cu:50)",
                         "main (app.cu:113)"}),
            "LaunchBoundPhase(float*) (app.cu:50)");
  // A stack cut right after the stub keeps the last resort: the innermost frame.
  EXPECT_EQ(SourceFrame({"__device_stub__Z1kv() (x.stub.c:1)", "k() (app.cu:3)"}),
            "__device_stub__Z1kv() (x.stub.c:1)");
}

TEST(AdviceTest, EachStallKindHasItsRemedyInTheProgramsWords) {
  EXPECT_THAT(StallRemedy(StallReason::kD2hCopy, true), HasSubstr(".item()"));
  EXPECT_THAT(StallRemedy(StallReason::kD2hCopy, false), HasSubstr("cudaMemcpyAsync into pinned"));
  EXPECT_THAT(StallRemedy(StallReason::kPageableAsyncCopy, true), HasSubstr("pin_memory=True"));
  EXPECT_THAT(StallRemedy(StallReason::kPageableAsyncCopy, false), HasSubstr("cudaMallocHost"));
  EXPECT_THAT(StallRemedy(StallReason::kFreeSyncsDevice, true), HasSubstr("caching allocator"));
  EXPECT_THAT(StallRemedy(StallReason::kFreeSyncsDevice, false), HasSubstr("cudaMallocAsync"));
  EXPECT_THAT(StallRemedy(StallReason::kStreamSync, false), HasSubstr("cudaStreamWaitEvent"));
  EXPECT_THAT(StallRemedy(StallReason::kQueryPoll, false), HasSubstr("instead of polling"));
  EXPECT_EQ(StallRemedy(StallReason::kNone, true), "");
  // Every kind has one, both ways; a C++ remedy never speaks of PyTorch.
  for (int i = 1; i < static_cast<int>(StallReason::kCount); ++i) {
    const auto reason = static_cast<StallReason>(i);
    EXPECT_NE(StallRemedy(reason, true), "") << StallReasonName(reason);
    const std::string cpp = StallRemedy(reason, false);
    EXPECT_NE(cpp, "") << StallReasonName(reason);
    for (const char* word : {"torch", "DataLoader", ".item()", "pin_memory", "non_blocking"}) {
      EXPECT_THAT(cpp, Not(HasSubstr(word))) << StallReasonName(reason);
    }
    EXPECT_EQ(StallReasonFromName(StallReasonName(reason)), reason);
  }
  EXPECT_EQ(StallReasonFromName("something new"), StallReason::kNone);
}

TEST(AdviceTest, AProgramWithoutPythonGetsCppRemediesForEveryRegime) {
  for (const auto& devices :
       {std::vector<DeviceBreakdown>{Device(100, 700, 100, 100)},    // launch-bound
        std::vector<DeviceBreakdown>{Device(100, 100, 700, 100)},    // sync-bound
        std::vector<DeviceBreakdown>{Device(100, 100, 100, 700)}}) {  // input-bound
    VerdictInputs in;
    in.devices = devices;
    in.have_device_records = true;
    in.python = false;
    const Verdict v = DecideVerdict(in);
    ASSERT_FALSE(v.advice.empty()) << v.regime;
    for (const std::string& item : v.advice) {
      for (const char* word : {"torch", "DataLoader", ".item()", "pin_memory", "num_workers"}) {
        EXPECT_THAT(item, Not(HasSubstr(word))) << v.regime;
      }
    }
    in.python = true;
    EXPECT_NE(DecideVerdict(in).advice, v.advice) << v.regime;
  }
}

TEST(AdviceTest, ARunWithoutCudaWorkIsSaidSoWithNoAdvice) {
  VerdictInputs in;
  in.host_split = {1000, 0, 0, 1000};  // wall, all of it outside CUDA
  in.cuda_calls = 0;
  const Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "no-cuda-work");
  EXPECT_THAT(v.why, HasSubstr("no CUDA call and no device work were recorded"));
  EXPECT_TRUE(v.advice.empty());
  in.cuda_calls = 3;  // calls made, but no time in them: still nothing to judge
  EXPECT_EQ(DecideVerdict(in).regime, "input-bound");
}

}  // namespace
}  // namespace brrr
