// Tests the verdict rules on hand-made breakdowns.
#include "collector/analysis/verdict.h"

#include "gtest/gtest.h"

namespace brrr {
namespace {

DeviceBreakdown Device(int64_t busy, int64_t launch, int64_t drain, int64_t outside) {
  DeviceBreakdown d;
  d.wall_ns = busy + launch + drain + outside;
  d.busy_ns = busy;
  d.idle = {launch, drain, outside};
  return d;
}

VerdictInputs WithDevice(DeviceBreakdown d) {
  VerdictInputs in;
  in.devices = {d};
  in.have_device_records = true;
  return in;
}

TEST(VerdictTest, DeviceBoundAtSeventyPercentBusy) {
  VerdictInputs in = WithDevice(Device(700, 100, 100, 100));
  in.top_kernel = "gemm";
  in.top_kernel_ns = 350;
  Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "device-bound");
  EXPECT_NE(v.why.find("70.0%"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("gemm takes 50.0%"), std::string::npos) << v.why;
}

TEST(VerdictTest, LargestIdlePartDecides) {
  EXPECT_EQ(DecideVerdict(WithDevice(Device(100, 500, 200, 200))).regime, "launch-bound");
  EXPECT_EQ(DecideVerdict(WithDevice(Device(100, 200, 500, 200))).regime, "sync-bound");
  EXPECT_EQ(DecideVerdict(WithDevice(Device(100, 200, 200, 500))).regime, "input-bound");
}

// Issue 47: identical runs named launch-bound or sync-bound by turns. A run whose shares are 20
// points apart is not close by its margin, but when a third of its steps, each judged alone, name
// another regime, its own spread makes it close, and the note says how many; fewer than a third,
// or fewer than 8 steps, do not.
TEST(VerdictTest, TheRunsOwnSpreadAcrossStepsMakesAVerdictClose) {
  VerdictInputs in = WithDevice(Device(100, 500, 300, 100));
  EXPECT_FALSE(DecideVerdict(in).close) << "40 % vs 24 %: not close by the margin";
  for (int i = 0; i < 8; ++i) in.step_parts.push_back({10, 60, 20, 10});  // launch-bound steps
  for (int i = 0; i < 4; ++i) in.step_parts.push_back({10, 20, 60, 10});  // sync-bound steps
  Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "launch-bound");
  EXPECT_TRUE(v.close);
  EXPECT_EQ(v.runner_up, "sync-bound");
  EXPECT_NE(v.close_note.find("sync-bound close behind in the run's own spread: 4 of 12 steps "
                              "judged alone name sync-bound"),
            std::string::npos)
      << v.close_note;
  in.step_parts.push_back({10, 60, 20, 10});  // 4 of 13: under a third
  EXPECT_FALSE(DecideVerdict(in).close);
  in.step_parts.assign(6, {10, 20, 60, 10});  // all differ, but only 6 steps
  EXPECT_FALSE(DecideVerdict(in).close);
}

TEST(VerdictTest, LaunchBoundQuotesMedians) {
  VerdictInputs in = WithDevice(Device(100, 800, 50, 50));
  in.kernel_launches = 1000;
  in.median_kernel_ns = 2'000;
  in.median_launch_call_ns = 5'000;
  Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "launch-bound");
  EXPECT_NE(v.why.find("10.0%"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("80.0%"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("median kernel 2.00 us vs median launch call 5.00 us"), std::string::npos)
      << v.why;
}

TEST(VerdictTest, SyncBoundQuotesTopStall) {
  VerdictInputs in = WithDevice(Device(200, 100, 600, 100));
  in.top_stall = "cudaMemcpy (d2h_copy)";
  in.top_stall_calls = 100;
  in.top_stall_ns = 12'300'000;
  Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "sync-bound");
  EXPECT_NE(v.why.find("cudaMemcpy (d2h_copy), 100 calls, 12.3 ms"), std::string::npos) << v.why;
}

TEST(VerdictTest, HostOnlyIsInferredAndSaysSo) {
  VerdictInputs in;
  in.host_split = {1000, 600, 300, 100};
  Verdict v = DecideVerdict(in);
  EXPECT_EQ(v.regime, "sync-bound");
  EXPECT_NE(v.why.find("inferred from host timing only"), std::string::npos);
  in.host_split = {1000, 100, 300, 600};
  EXPECT_EQ(DecideVerdict(in).regime, "input-bound");
  in.host_split = {1000, 100, 600, 300};
  EXPECT_EQ(DecideVerdict(in).regime, "launch-bound");
}

}  // namespace
}  // namespace brrr
