// A job's device view: a device per (host, id), a shared one's wall once on the job's clock, its
// parts adding up to it. Hand-worked numbers.
#include "collector/job/job_devices.h"

#include <limits>

#include "gtest/gtest.h"

namespace brrr::job {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kOrigin = 1'700'000'000'000'000'000;  // a Unix time in ns

// A process that started `start_ms` after kOrigin and ran `wall_ms`: start-up, busy, launch-bound
// and host-outside parts as given, teardown the rest.
Report Process(int64_t start_ms, int64_t wall_ms, int64_t startup_ms, int64_t busy_ms,
               int64_t launch_bound_ms, int64_t host_outside_ms, uint32_t device = 0) {
  Report r;
  r.wall_ns = wall_ms * kMs;
  r.timeline.emplace();
  r.timeline->origin_unix_ns = kOrigin + start_ms * kMs;
  DeviceBreakdown d;
  d.id = device;
  d.wall_ns = r.wall_ns;
  d.startup_ns = startup_ms * kMs;
  d.busy_ns = busy_ms * kMs;
  d.idle.launch_bound_ns = launch_bound_ms * kMs;
  d.idle.host_outside_cuda_ns = host_outside_ms * kMs;
  d.teardown_ns = d.wall_ns - d.startup_ns - d.busy_ns - d.idle.launch_bound_ns -
                  d.idle.host_outside_cuda_ns;
  r.devices.push_back(d);
  return r;
}

int64_t Parts(const DeviceBreakdown& d) {
  return d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns +
         d.startup_ns + d.teardown_ns;
}

// The case: 3 ranks of a 45.5 s job on one host's device 0 showed "DEVICE 0 wall 135 s".
TEST(JobDevicesTest, ThreeRanksOnOneDeviceGiveItsWallOnceOverTheJobsClock) {
  const std::vector<Report> in = {Process(0, 45'000, 1'000, 10'000, 20'000, 10'000),
                                  Process(200, 45'000, 1'500, 10'000, 20'000, 10'000),
                                  Process(500, 45'000, 2'000, 10'000, 20'000, 10'000)};
  const std::vector<DeviceBreakdown> out = MergeDevices(in, {"node0", "node0", "node0"});
  ASSERT_EQ(out.size(), 1u);
  const DeviceBreakdown& d = out[0];
  EXPECT_EQ(d.host, "node0");
  EXPECT_EQ(d.processes, 3u);
  EXPECT_EQ(d.wall_ns, 45'500 * kMs);
  EXPECT_EQ(d.startup_ns, 1'000 * kMs);  // rank 0's first work, 1 s in
  // Last work: rank 0 at 45,000 - 4,000 (its teardown) = 41,000 ms; rank 1 at 200 + 45,000 -
  // 3,500 = 41,700; rank 2 at 500 + 45,000 - 3,000 = 42,500.
  EXPECT_EQ(d.teardown_ns, (45'500 - 42'500) * kMs);
  EXPECT_EQ(d.busy_ns, 30'000 * kMs);  // 3 x 10 s, under the 41.5 s steady state
  // The steady state's other 11.5 s, split 2:1 as the ranks' launch-bound and host-outside times.
  const int64_t idle = (42'500 - 1'000 - 30'000) * kMs;
  EXPECT_EQ(d.idle.launch_bound_ns + d.idle.host_outside_cuda_ns, idle);
  EXPECT_NEAR(static_cast<double>(d.idle.launch_bound_ns), idle * 2.0 / 3.0, 1.0);
  EXPECT_EQ(d.idle.sync_drain_ns, 0);
  EXPECT_EQ(Parts(d), d.wall_ns);
}

TEST(JobDevicesTest, ADeviceOneProcessUsedKeepsItsBreakdown) {
  const std::vector<Report> in = {Process(0, 1'000, 10, 600, 300, 50, 0),
                                  Process(0, 1'000, 20, 500, 100, 100, 1)};
  const std::vector<DeviceBreakdown> out = MergeDevices(in, {"node0", "node0"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, 0u);
  EXPECT_EQ(out[0].processes, 1u);
  EXPECT_EQ(out[0].busy_ns, 600 * kMs);
  EXPECT_EQ(out[0].idle.launch_bound_ns, 300 * kMs);
  EXPECT_EQ(out[0].startup_ns, 10 * kMs);
  EXPECT_EQ(out[1].id, 1u);
  EXPECT_EQ(out[1].busy_ns, 500 * kMs);
  EXPECT_EQ(out[1].wall_ns, 1'000 * kMs);
}

TEST(JobDevicesTest, DeviceZeroOnTwoHostsIsTwoDevices) {
  const std::vector<Report> in = {Process(0, 1'000, 0, 900, 0, 100),
                                  Process(0, 2'000, 0, 1'000, 0, 1'000)};
  const std::vector<DeviceBreakdown> out = MergeDevices(in, {"b-host", "a-host"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].host, "a-host");
  EXPECT_EQ(out[0].wall_ns, 2'000 * kMs);
  EXPECT_EQ(out[1].host, "b-host");
  EXPECT_EQ(out[1].wall_ns, 1'000 * kMs);
}

// One process after the other on the same device: the time between them is no process's, and
// counts as host outside CUDA; busy is theirs, not capped.
TEST(JobDevicesTest, TheGapBetweenProcessesThatTookTurnsIsHostOutsideCuda) {
  const std::vector<Report> in = {Process(0, 1'000, 0, 1'000, 0, 0),
                                  Process(3'000, 1'000, 0, 1'000, 0, 0)};
  const std::vector<DeviceBreakdown> out = MergeDevices(in, {"", ""});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].wall_ns, 4'000 * kMs);
  EXPECT_EQ(out[0].busy_ns, 2'000 * kMs);
  EXPECT_EQ(out[0].idle.host_outside_cuda_ns, 2'000 * kMs);
  EXPECT_EQ(Parts(out[0]), out[0].wall_ns);
}

// More busy time than the steady state (MPS, or wild inputs): busy is the steady state, no more.
TEST(JobDevicesTest, BusyTimeSummedPastTheSteadyStateStopsAtIt) {
  const std::vector<Report> in = {Process(0, 1'000, 100, 800, 100, 0),
                                  Process(0, 1'000, 100, 800, 100, 0)};
  const std::vector<DeviceBreakdown> out = MergeDevices(in, {"h", "h"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].busy_ns, 900 * kMs);
  EXPECT_EQ(out[0].idle.launch_bound_ns, 0);
  EXPECT_EQ(out[0].startup_ns, 100 * kMs);
  EXPECT_EQ(Parts(out[0]), out[0].wall_ns);
}

// A process with no start on the wall clock (a report written before it) counts as starting with
// the earliest; values at int64's ends neither overflow nor go negative.
TEST(JobDevicesTest, UnknownStartsAndWildValuesStayInRange) {
  std::vector<Report> in = {Process(0, 1'000, 0, 500, 0, 500), Process(0, 500, 0, 250, 0, 250)};
  in[1].timeline.reset();
  std::vector<DeviceBreakdown> out = MergeDevices(in, {"h", "h"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].wall_ns, 1'000 * kMs);
  EXPECT_EQ(Parts(out[0]), out[0].wall_ns);

  in[0].devices[0].wall_ns = std::numeric_limits<int64_t>::max();
  in[0].devices[0].busy_ns = std::numeric_limits<int64_t>::max();
  in[0].devices[0].startup_ns = -5;
  in[1].devices[0].idle.sync_drain_ns = std::numeric_limits<int64_t>::max();
  in[1].timeline.emplace();
  in[1].timeline->origin_unix_ns = std::numeric_limits<int64_t>::max();
  out = MergeDevices(in, {"h", "h"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(out[0].wall_ns, 0);
  EXPECT_GE(out[0].busy_ns, 0);
  EXPECT_GE(out[0].idle.host_outside_cuda_ns, 0);
  EXPECT_GE(out[0].idle.sync_drain_ns, 0);
  EXPECT_GE(out[0].teardown_ns, 0);
}

}  // namespace
}  // namespace brrr::job
