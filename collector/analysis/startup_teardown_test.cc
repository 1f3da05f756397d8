// Tests of start-up and teardown in the device-time breakdown (split_startup_teardown): the time
// before the first CUDA work and after the last is its own part, on every device and in the host
// split, the parts still add up to wall exactly, the idle listener still gets those pieces
// classified by the idle rules, and a sweep in the middle of start-up is handled.
#include <gtest/gtest.h>

#include <vector>

#include "collector/analysis/device_time_breakdown.h"

namespace brrr {
namespace {

DeviceTimeBreakdown::Options Split(int64_t window = int64_t{1} << 50) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = 100;
  o.window_ns = window;
  o.split_startup_teardown = true;
  return o;
}

int64_t Sum(const DeviceBreakdown& d) {
  return d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns +
         d.startup_ns + d.teardown_ns;
}

class IdleSum : public DeviceTimeBreakdown::IdleListener {
 public:
  void OnIdle(uint32_t, IdleKind kind, int64_t lo, int64_t hi) override {
    by_kind[static_cast<int>(kind)] += hi - lo;
  }
  void OnSwept(int64_t) override {}
  int64_t by_kind[3] = {};
};

TEST(StartupTeardownTest, TimeBeforeFirstAndAfterLastCudaWorkIsApart) {
  DeviceTimeBreakdown b(Split());
  IdleSum listener;
  b.SetIdleListener(&listener);
  b.SetOrigin(0);
  // Process start at 0; the first CUDA call enters at 5000 (interpreter start, imports).
  b.AddHostSpan(5'000, 5'010, false);  // launch
  b.AddDeviceOp(0, 5'010, 5'500);      // kernel
  b.AddHostSpan(5'020, 5'600, true);   // blocked until 5600
  // The process exits at 9000: [5600, 9000) is teardown.
  std::vector<DeviceBreakdown> r = b.Finish(9'000);
  ASSERT_EQ(r.size(), 1u);
  const DeviceBreakdown& d = r[0];
  EXPECT_EQ(d.wall_ns, 9'000);
  EXPECT_EQ(d.startup_ns, 5'000);
  EXPECT_EQ(d.teardown_ns, 3'400);
  EXPECT_EQ(d.busy_ns, 490);
  EXPECT_EQ(d.idle.launch_bound_ns, 10);  // [5000, 5010)
  EXPECT_EQ(d.idle.sync_drain_ns, 100);   // [5500, 5600) inside the blocked call
  EXPECT_EQ(d.idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(Sum(d), d.wall_ns);
  const DeviceTimeBreakdown::HostSplit h = b.host_split();
  EXPECT_EQ(h.wall_ns, 9'000);
  EXPECT_EQ(h.startup_ns, 5'000);
  EXPECT_EQ(h.teardown_ns, 3'400);
  EXPECT_EQ(h.in_stall_ns, 580);        // [5020, 5600)
  EXPECT_EQ(h.in_or_near_cuda_ns, 20);  // [5000, 5020)
  EXPECT_EQ(h.outside_cuda_ns, 0);
  // The listener (NVTX phases) sees start-up and teardown classified as before the split:
  // [0,5000) outside CUDA, [5600,5700) drain by rule 3, [5700,9000) outside.
  EXPECT_EQ(listener.by_kind[0], 10);
  EXPECT_EQ(listener.by_kind[1], 100 + 100);
  EXPECT_EQ(listener.by_kind[2], 5'000 + 3'300);
}

// A program's first call, cudaFree(NULL), creates CUDA's context (200 ms on an H100): that is
// start-up, not launch-bound idle in the steady state.
TEST(StartupTeardownTest, AFirstCallThatOnlyInitializesIsStartup) {
  DeviceTimeBreakdown b(Split());
  b.SetOrigin(0);
  b.AddHostSpan(1'000, 4'000, false);  // cudaFree(NULL)
  b.NoteInitializationCall(1'000, 4'000);
  b.AddHostSpan(4'100, 4'110, false);  // launch
  b.AddDeviceOp(0, 4'110, 4'600);
  std::vector<DeviceBreakdown> r = b.Finish(5'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].startup_ns, 4'000);
  // [4000, 4110): the 100 ns gap is not over host_gap_ns, so it is launching too.
  EXPECT_EQ(r[0].idle.launch_bound_ns, 110);
  EXPECT_EQ(r[0].idle.host_outside_cuda_ns, 0);
  EXPECT_EQ(r[0].busy_ns, 490);
  EXPECT_EQ(r[0].teardown_ns, 400);
  EXPECT_EQ(Sum(r[0]), r[0].wall_ns);
  EXPECT_EQ(b.host_split().startup_ns, 4'000);
}

// nvcc's registrations (__cudaRegisterFatBinary, at static initialization) and device queries
// come before it: still setting up.
TEST(StartupTeardownTest, AnInitializationCallAfterRegistrationsStillEndsStartup) {
  DeviceTimeBreakdown b(Split());
  b.SetOrigin(0);
  b.AddHostSpan(100, 200, false);      // __cudaRegisterFatBinary
  b.AddHostSpan(1'000, 4'000, false);  // cudaFree(NULL)
  b.NoteInitializationCall(1'000, 4'000);
  b.AddHostSpan(4'100, 4'110, false);
  b.AddDeviceOp(0, 4'110, 4'600);
  std::vector<DeviceBreakdown> r = b.Finish(5'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].startup_ns, 4'000);
  EXPECT_EQ(Sum(r[0]), r[0].wall_ns);
}

TEST(StartupTeardownTest, AnInitializationCallAfterOtherWorkChangesNothing) {
  DeviceTimeBreakdown b(Split());
  b.SetOrigin(0);
  b.AddHostSpan(1'000, 1'010, false);  // launch
  b.AddDeviceOp(0, 1'010, 1'500);
  b.AddHostSpan(2'000, 3'000, false);  // a later cudaFree(NULL) (another thread's, say)
  b.NoteInitializationCall(2'000, 3'000);
  std::vector<DeviceBreakdown> r = b.Finish(3'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].startup_ns, 1'000);
  EXPECT_EQ(Sum(r[0]), r[0].wall_ns);
}

TEST(StartupTeardownTest, WithoutTheOptionNothingIsSplit) {
  DeviceTimeBreakdown::Options o = Split();
  o.split_startup_teardown = false;
  DeviceTimeBreakdown b(o);
  b.SetOrigin(0);
  b.AddHostSpan(5'000, 5'010, false);
  b.AddDeviceOp(0, 5'010, 5'500);
  std::vector<DeviceBreakdown> r = b.Finish(9'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].startup_ns, 0);
  EXPECT_EQ(r[0].teardown_ns, 0);
  EXPECT_EQ(r[0].idle.host_outside_cuda_ns, 5'000 + 3'500);  // [0,5000) and [5500,9000)
  EXPECT_EQ(Sum(r[0]), 9'000);
}

TEST(StartupTeardownTest, SweepsDuringAndAfterStartupAndLateDevices) {
  // A 1 ms window: sweeps run long before Finish, some of them inside start-up; device 1 is
  // first seen after the sweep passed the start of CUDA work.
  DeviceTimeBreakdown b(Split(/*window=*/1'000'000));
  b.SetOrigin(0);
  b.ObserveTime(3'000'000);  // events (NVTX, say) push the watermark: a sweep at 2 ms
  b.AddHostSpan(10'000'000, 10'000'010, false);
  b.AddDeviceOp(0, 10'000'010, 10'000'500);
  for (int i = 1; i <= 20; ++i) {
    b.AddHostSpan(10'000'000 + i * 1'000'000, 10'000'000 + i * 1'000'000 + 10, false);
    if (i == 15) b.AddDeviceOp(1, 25'000'000, 25'000'100);  // device 1's first op
  }
  std::vector<DeviceBreakdown> r = b.Finish(40'000'000);
  ASSERT_EQ(r.size(), 2u);
  for (const DeviceBreakdown& d : r) {
    EXPECT_EQ(d.wall_ns, 40'000'000) << d.id;
    EXPECT_EQ(d.startup_ns, 10'000'000) << d.id;
    EXPECT_EQ(d.teardown_ns, 40'000'000 - 30'000'010) << d.id;  // after the last call's exit
    EXPECT_EQ(Sum(d), d.wall_ns) << d.id;
  }
  EXPECT_EQ(r[0].busy_ns, 490);
  EXPECT_EQ(r[1].busy_ns, 100);
}

TEST(StartupTeardownTest, NoCudaWorkAtAllIsAllStartup) {
  DeviceTimeBreakdown b(Split());
  b.SetOrigin(0);
  b.ObserveTime(7'000);
  b.Finish(7'000);
  const DeviceTimeBreakdown::HostSplit h = b.host_split();
  EXPECT_EQ(h.wall_ns, 7'000);
  EXPECT_EQ(h.startup_ns, 7'000);
  EXPECT_EQ(h.in_stall_ns + h.in_or_near_cuda_ns + h.outside_cuda_ns + h.teardown_ns, 0);
}

}  // namespace
}  // namespace brrr
