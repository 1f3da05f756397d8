// Tests the per-device breakdown: hand-computed cases, and a seeded property test against an
// independent reference that classifies every elementary interval by the documented rules.
#include "collector/analysis/device_time_breakdown.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

constexpr int64_t kNoWindowSweep = int64_t{1} << 50;  // never sweeps before Finish

DeviceTimeBreakdown::Options Opts(int64_t gap, int64_t window = kNoWindowSweep) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = gap;
  o.window_ns = window;
  return o;
}

int64_t Sum(const DeviceBreakdown& d) {
  return d.busy_ns + d.idle.launch_bound_ns + d.idle.sync_drain_ns + d.idle.host_outside_cuda_ns;
}

TEST(DeviceTimeBreakdownTest, LaunchBoundLoop) {
  DeviceTimeBreakdown b(Opts(100));
  b.SetOrigin(0);
  b.AddHostSpan(0, 40, false);
  b.AddHostSpan(50, 90, false);
  b.AddDeviceOp(0, 45, 55);
  b.AddDeviceOp(0, 95, 100);
  std::vector<DeviceBreakdown> r = b.Finish(100);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].wall_ns, 100);
  EXPECT_EQ(r[0].busy_ns, 15);
  EXPECT_EQ(r[0].idle.launch_bound_ns, 85);
  EXPECT_EQ(r[0].idle.sync_drain_ns, 0);
  EXPECT_EQ(r[0].idle.host_outside_cuda_ns, 0);
}

TEST(DeviceTimeBreakdownTest, SyncDrainThenOutsideCudaThenRefill) {
  DeviceTimeBreakdown b(Opts(100));
  b.SetOrigin(0);
  b.AddHostSpan(0, 10, false);       // launch
  b.AddDeviceOp(0, 10, 500);         // long kernel
  b.AddHostSpan(20, 520, true);      // cudaMemcpy D2H: blocked until 520
  b.AddDeviceOp(0, 500, 510);        // the copy
  b.AddHostSpan(1000, 1010, false);  // next launch after 480 ns outside CUDA
  b.AddDeviceOp(0, 1015, 1100);
  std::vector<DeviceBreakdown> r = b.Finish(1100);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].wall_ns, 1100);
  EXPECT_EQ(r[0].busy_ns, 490 + 10 + 85);
  EXPECT_EQ(r[0].idle.launch_bound_ns, 10);               // [0,10)
  EXPECT_EQ(r[0].idle.sync_drain_ns, 10 + 100 + 10 + 5);  // [510,520) [520,620) [1000,1015)
  EXPECT_EQ(r[0].idle.host_outside_cuda_ns, 380);         // [620,1000)
  const DeviceTimeBreakdown::HostSplit h = b.host_split();
  EXPECT_EQ(h.wall_ns, 1100);
  EXPECT_EQ(h.in_stall_ns, 500);                    // [20,520)
  EXPECT_EQ(h.in_or_near_cuda_ns, 20 + 100 + 100);  // [0,20) [520,620) [1000,1100)
  EXPECT_EQ(h.in_or_near_cuda_ns + h.in_stall_ns + h.outside_cuda_ns, 1100);
}

TEST(DeviceTimeBreakdownTest, NoEventsNoDevices) {
  DeviceTimeBreakdown b(Opts(100));
  EXPECT_TRUE(b.Finish(0).empty());
}

TEST(DeviceTimeBreakdownTest, EventsOutsideTheRunAreClipped) {
  DeviceTimeBreakdown b(Opts(10));
  b.SetOrigin(100);
  b.AddDeviceOp(0, 50, 150);   // started before the run
  b.AddDeviceOp(0, 180, 400);  // ends after it
  std::vector<DeviceBreakdown> r = b.Finish(200);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].wall_ns, 100);
  EXPECT_EQ(r[0].busy_ns, 50 + 20);
  EXPECT_EQ(Sum(r[0]), 100);
}

// --- Property test -------------------------------------------------------------------------

struct Item {
  bool host;
  uint32_t device;
  int64_t start, end;
  bool stall;
};

// The documented rules, evaluated independently on each elementary interval.
struct Expected {
  int64_t busy = 0, launch = 0, drain = 0, outside = 0;
};
Expected Reference(const std::vector<Item>& items, uint32_t device, int64_t origin, int64_t end,
                   int64_t gap) {
  std::vector<int64_t> points = {origin, end};
  for (const Item& it : items) {
    for (int64_t p : {it.start, it.end, it.end + gap}) {
      if (p > origin && p < end) points.push_back(p);
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  Expected e;
  for (size_t k = 0; k + 1 < points.size(); ++k) {
    const int64_t t = points[k], len = points[k + 1] - points[k];
    bool busy = false, in_stall = false, in_call = false;
    bool any_exit = false, any_stall_end = false, any_start = false;
    int64_t last_exit = 0, stall_end = 0, last_start = 0;
    for (const Item& it : items) {
      if (it.host) {
        if (it.start <= t && t < it.end) {
          in_call = true;
          if (it.stall) in_stall = true;
        }
        if (it.end <= t) {
          last_exit = any_exit ? std::max(last_exit, it.end) : it.end;
          any_exit = true;
          if (it.stall) {
            stall_end = any_stall_end ? std::max(stall_end, it.end) : it.end;
            any_stall_end = true;
          }
        }
      } else if (it.device == device) {
        if (it.start <= t && t < it.end) busy = true;
        if (it.start <= t) {
          last_start = any_start ? std::max(last_start, it.start) : it.start;
          any_start = true;
        }
      }
    }
    if (busy) {
      e.busy += len;
    } else if (in_stall) {
      e.drain += len;
    } else if (!in_call && (!any_exit || t - last_exit >= gap)) {
      e.outside += len;
    } else if (any_stall_end && (!any_start || stall_end > last_start)) {
      e.drain += len;
    } else {
      e.launch += len;
    }
  }
  return e;
}

class BreakdownPropertyTest : public ::testing::TestWithParam<int> {};

TEST_P(BreakdownPropertyTest, MatchesReferenceAndSumsToWall) {
  const int seed = GetParam();
  std::mt19937_64 rng(seed);
  const int64_t us = 1000;
  const int64_t origin = 1 * us, end = 50'000 * us;  // 50 ms, so the sweep runs many times
  const int64_t gap = std::uniform_int_distribution<int64_t>(0, 300)(rng) * us;
  // Items start before the run's end (cursor <= end), some before its start (clipped).
  std::uniform_int_distribution<int64_t> when(0, 49'500 * us);
  std::uniform_int_distribution<int64_t> length(0, 500 * us);
  std::vector<Item> items;
  const int n = std::uniform_int_distribution<int>(1, 120)(rng);
  for (int i = 0; i < n; ++i) {
    Item it;
    it.host = rng() % 2;
    it.device = static_cast<uint32_t>(rng() % 2);
    it.start = when(rng);
    it.end = it.start + length(rng);
    it.stall = it.host && rng() % 3 == 0;
    items.push_back(it);
  }
  // Arrival order: time order jittered by up to 4 ms (CUPTI lag); with a 5 ms window and items
  // at most 0.5 ms long, nothing arrives after the watermark passed it.
  std::vector<std::pair<int64_t, size_t>> arrival;
  std::uniform_int_distribution<int64_t> delay(0, 4000 * us);
  for (size_t i = 0; i < items.size(); ++i) arrival.push_back({items[i].start + delay(rng), i});
  std::sort(arrival.begin(), arrival.end());

  for (int64_t window : {int64_t{5000} * us, int64_t{300} * us}) {
    DeviceTimeBreakdown b(Opts(gap, window));
    b.SetOrigin(origin);
    for (auto [key, i] : arrival) {
      const Item& it = items[i];
      if (it.host) {
        b.AddHostSpan(it.start, it.end, it.stall);
      } else {
        b.AddDeviceOp(it.device, it.start, it.end);
      }
    }
    std::vector<DeviceBreakdown> r = b.Finish(end);
    for (const DeviceBreakdown& d : r) {
      EXPECT_EQ(d.wall_ns, end - origin);
      EXPECT_EQ(Sum(d), d.wall_ns) << "seed " << seed << " window " << window;
      if (window == 5000 * us) {
        const Expected e = Reference(items, d.id, origin, end, gap);
        EXPECT_EQ(d.busy_ns, e.busy) << "seed " << seed;
        EXPECT_EQ(d.idle.launch_bound_ns, e.launch) << "seed " << seed;
        EXPECT_EQ(d.idle.sync_drain_ns, e.drain) << "seed " << seed;
        EXPECT_EQ(d.idle.host_outside_cuda_ns, e.outside) << "seed " << seed;
      }
    }
    const DeviceTimeBreakdown::HostSplit h = b.host_split();
    EXPECT_EQ(h.in_stall_ns + h.in_or_near_cuda_ns + h.outside_cuda_ns, h.wall_ns);
    if (window == 5000 * us) {
      EXPECT_EQ(b.late_items(), 0u) << "seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, BreakdownPropertyTest, ::testing::Range(1, 201));

TEST(DeviceTimeBreakdownTest, CapForcesEarlySweepsAndKeepsMemoryBounded) {
  DeviceTimeBreakdown::Options o = Opts(100, kNoWindowSweep);
  o.max_pending = 1000;
  DeviceTimeBreakdown b(o);
  b.SetOrigin(0);
  size_t max_retained = 0;
  for (int64_t i = 0; i < 100'000; ++i) {
    b.AddHostSpan(i * 100, i * 100 + 30, false);
    b.AddDeviceOp(0, i * 100 + 40, i * 100 + 50);
    max_retained = std::max(max_retained, b.RetainedItemsForTest());
  }
  EXPECT_LE(max_retained, 2 * 1000u + 2);
  EXPECT_GT(b.forced_sweeps(), 0u);
  std::vector<DeviceBreakdown> r = b.Finish(100'000 * 100);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].busy_ns, 100'000 * 10);
  EXPECT_EQ(r[0].idle.launch_bound_ns, 100'000 * 90);
  EXPECT_EQ(Sum(r[0]), r[0].wall_ns);
}

// A listener that takes the pieces one by one (PartListener's default OnParts): what a sweep
// gathers into batches must reach it whole and in order.
class PieceLog : public DeviceTimeBreakdown::PartListener {
 public:
  struct Entry {
    uint32_t device;
    Part part;
    int64_t lo, hi;
  };
  void OnPart(uint32_t device_id, Part part, int64_t lo, int64_t hi) override {
    entries.push_back({device_id, part, lo, hi});
  }
  void OnEmptyDevicePart(Part, int64_t, int64_t) override {}
  void OnSwept(int64_t) override { ++sweeps; }
  std::vector<Entry> entries;
  int sweeps = 0;
};

TEST(DeviceTimeBreakdownTest, PiecesOfASweepReachThePartListenerInOrderEvenPastOneBatch) {
  // Two devices, 1,000 launches each in one sweep (at Finish): 2,000 pieces a device, several
  // batches. Device 0: 60 ns kernels every 100 ns; device 1: 30 ns kernels every 100 ns.
  DeviceTimeBreakdown b(Opts(/*gap=*/1000));
  PieceLog log;
  b.SetPartListener(&log);
  b.SetOrigin(0);
  for (int64_t i = 0; i < 1000; ++i) {
    b.AddHostSpan(i * 100, i * 100 + 10, false);
    b.AddDeviceOp(0, i * 100 + 20, i * 100 + 80);
    b.AddDeviceOp(1, i * 100 + 20, i * 100 + 50);
  }
  const std::vector<DeviceBreakdown> r = b.Finish(100'000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(log.sweeps, 1);
  for (const DeviceBreakdown& d : r) {
    SCOPED_TRACE(d.id);
    int64_t at = 0, busy = 0, launch = 0, pieces = 0;
    for (const PieceLog::Entry& e : log.entries) {
      if (e.device != d.id) continue;
      ASSERT_EQ(e.lo, at) << "piece " << pieces;  // contiguous, in time order
      ASSERT_GT(e.hi, e.lo);
      at = e.hi;
      ++pieces;
      (e.part == PieceLog::Part::kBusy ? busy : launch) += e.hi - e.lo;
    }
    EXPECT_EQ(at, 100'000);
    // [0, 20) start-up would be apart only with split_startup_teardown: here a busy piece and a
    // launch-bound piece per launch, and the first gap.
    EXPECT_EQ(pieces, 2001);
    EXPECT_EQ(busy, d.busy_ns);
    EXPECT_EQ(launch, d.idle.launch_bound_ns);
    EXPECT_EQ(busy, d.id == 0 ? 60'000 : 30'000);
  }
}

}  // namespace
}  // namespace brrr
