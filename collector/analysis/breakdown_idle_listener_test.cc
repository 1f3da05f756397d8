// Tests of DeviceTimeBreakdown's IdleListener: the idle pieces it reports are exactly the
// device's classified idle time (hand-worked case, and their sums against the device parts on a
// run swept many times), in time order per device, each sweep closed by OnSwept(watermark).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "collector/analysis/device_time_breakdown.h"

namespace brrr {
namespace {

struct Piece {
  uint32_t device;
  IdleKind kind;
  int64_t lo, hi;
  bool operator==(const Piece& o) const {
    return std::tie(device, kind, lo, hi) == std::tie(o.device, o.kind, o.lo, o.hi);
  }
};

class Collect : public DeviceTimeBreakdown::IdleListener {
 public:
  void OnIdle(uint32_t device, IdleKind kind, int64_t lo, int64_t hi) override {
    pieces.push_back({device, kind, lo, hi});
    if (lo < swept || hi <= lo) bad = true;  // before what was already final, or empty
  }
  void OnSwept(int64_t watermark) override {
    sweeps.push_back(watermark);
    swept = watermark;
  }
  std::vector<Piece> pieces;
  std::vector<int64_t> sweeps;
  int64_t swept = INT64_MIN;
  bool bad = false;
};

TEST(BreakdownIdleListenerTest, ReportsEachIdlePieceWithItsCause) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = 100;
  o.window_ns = int64_t{1} << 50;  // one sweep, at Finish
  DeviceTimeBreakdown b(o);
  Collect c;
  b.SetIdleListener(&c);
  b.SetOrigin(0);
  b.AddHostSpan(0, 10, false);       // launch
  b.AddDeviceOp(0, 10, 500);         // long kernel
  b.AddHostSpan(20, 520, true);      // blocked until 520
  b.AddDeviceOp(0, 500, 510);        // the copy
  b.AddHostSpan(1000, 1010, false);  // next launch after 480 ns outside CUDA
  b.AddDeviceOp(0, 1015, 1100);
  b.Finish(1100);
  // As the breakdown's own test classifies it: [0,10) launch, [510,620) drain (in the stall,
  // then rule 3), [620,1000) outside, [1000,1015) drain (rule 3: refilling after the stall).
  const std::vector<Piece> want = {
      {0, IdleKind::kLaunchBound, 0, 10},    {0, IdleKind::kSyncDrain, 510, 520},
      {0, IdleKind::kSyncDrain, 520, 620},   {0, IdleKind::kHostOutsideCuda, 620, 1000},
      {0, IdleKind::kSyncDrain, 1000, 1015},
  };
  EXPECT_EQ(c.pieces, want);
  EXPECT_EQ(c.sweeps, std::vector<int64_t>{1100});
  EXPECT_FALSE(c.bad);
}

TEST(BreakdownIdleListenerTest, PiecesSumToEachDevicesIdlePartsOverManySweeps) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = 2'000;
  o.window_ns = 2'000'000;  // sweeps every ~1 ms of event time
  DeviceTimeBreakdown b(o);
  Collect c;
  b.SetIdleListener(&c);
  b.SetOrigin(0);
  std::mt19937_64 rng(7);
  int64_t t = 0;
  for (int i = 0; i < 20'000; ++i) {
    t += 200 + static_cast<int64_t>(rng() % 3'000);
    const bool stall = rng() % 10 == 0;
    const int64_t len = stall ? 5'000 + static_cast<int64_t>(rng() % 20'000) : 500;
    b.AddHostSpan(t, t + len, stall);
    const uint32_t device = static_cast<uint32_t>(rng() % 2);
    const int64_t start = t + 300 + static_cast<int64_t>(rng() % 4'000);
    b.AddDeviceOp(device, start, start + 100 + static_cast<int64_t>(rng() % 6'000));
    t += len;
  }
  const std::vector<DeviceBreakdown> devices = b.Finish(t + 10'000);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_GT(c.sweeps.size(), 10u);
  EXPECT_FALSE(c.bad);
  std::map<uint32_t, IdleBreakdown> sums;
  std::map<uint32_t, int64_t> last_hi;
  for (const Piece& p : c.pieces) {
    IdleBreakdown& s = sums[p.device];
    (p.kind == IdleKind::kLaunchBound ? s.launch_bound_ns
     : p.kind == IdleKind::kSyncDrain ? s.sync_drain_ns
                                      : s.host_outside_cuda_ns) += p.hi - p.lo;
    auto [it, inserted] = last_hi.try_emplace(p.device, p.lo);
    EXPECT_GE(p.lo, it->second) << "pieces of a device overlap or go back in time";
    it->second = p.hi;
  }
  for (const DeviceBreakdown& d : devices) {
    EXPECT_EQ(sums[d.id].launch_bound_ns, d.idle.launch_bound_ns) << d.id;
    EXPECT_EQ(sums[d.id].sync_drain_ns, d.idle.sync_drain_ns) << d.id;
    EXPECT_EQ(sums[d.id].host_outside_cuda_ns, d.idle.host_outside_cuda_ns) << d.id;
    EXPECT_GT(d.idle.launch_bound_ns, 0);
    EXPECT_GT(d.idle.sync_drain_ns, 0);
  }
}

}  // namespace
}  // namespace brrr
