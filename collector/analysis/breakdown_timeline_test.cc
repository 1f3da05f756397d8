// Tests of BreakdownTimeline: a hand-worked run bucketed by hand; on random runs swept many times
// (with a device first seen late, start-up/teardown split on and off, and runs long enough to
// merge buckets many times) each device's buckets add up to its DeviceBreakdown part by part
// exactly and there are never more than kMaxTimelineBuckets of them; a launch-latency histogram
// summed into power-of-two rows.
#include "collector/analysis/breakdown_timeline.h"

#include <gtest/gtest.h>

#include <random>

#include "collector/analysis/latency_buckets.h"
#include "viewer/format/timeline_sums_for_test.h"

namespace brrr {
namespace {

TEST(BreakdownTimelineTest, BucketsAHandWorkedRun) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = 100;
  o.window_ns = int64_t{1} << 50;  // one sweep, at Finish
  DeviceTimeBreakdown b(o);
  BreakdownTimeline t;
  b.SetPartListener(&t);
  b.SetOrigin(0);
  b.AddHostSpan(0, 10, false);
  b.AddDeviceOp(0, 10, 1500);   // busy [10, 1500)
  b.AddHostSpan(20, 1520, true);  // stall until 1520
  b.AddHostSpan(2400, 2410, false);
  b.AddDeviceOp(0, 2410, 2500);
  const auto devices = b.Finish(2500);
  const std::optional<Timeline> tl = t.Finish(devices);
  ASSERT_TRUE(tl.has_value());
  EXPECT_EQ(tl->bucket_ns, 1024);  // 2500 ns fit 128 buckets of the first width
  ASSERT_EQ(tl->devices.size(), 1u);
  ASSERT_EQ(tl->devices[0].buckets.size(), 3u);  // [0,1024) [1024,2048) [2048,2500)
  const auto& bk = tl->devices[0].buckets;
  // [0,10) launch-bound, [10,1024) busy.
  EXPECT_EQ(bk[0].launch_bound_ns, 10);
  EXPECT_EQ(bk[0].busy_ns, 1014);
  // [1024,1500) busy, [1500,1520) in the stall, [1520,1620) drain (rule 3), [1620,2048) outside.
  EXPECT_EQ(bk[1].busy_ns, 476);
  EXPECT_EQ(bk[1].sync_drain_ns, 120);
  EXPECT_EQ(bk[1].host_outside_cuda_ns, 428);
  // [2048,2400) outside, [2400,2410) drain (refilling after the stall), [2410,2500) busy.
  EXPECT_EQ(bk[2].host_outside_cuda_ns, 352);
  EXPECT_EQ(bk[2].sync_drain_ns, 10);
  EXPECT_EQ(bk[2].busy_ns, 90);
}

void ExpectAddsUp(const std::vector<DeviceBreakdown>& devices, const Timeline& tl) {
  ASSERT_EQ(tl.devices.size(), devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceBreakdown& d = devices[i];
    SCOPED_TRACE(d.id);
    EXPECT_EQ(tl.devices[i].id, d.id);
    EXPECT_LE(tl.devices[i].buckets.size(), kMaxTimelineBuckets);
    EXPECT_GE(static_cast<int64_t>(tl.devices[i].buckets.size()) * tl.bucket_ns, d.wall_ns);
    EXPECT_EQ(DescribeParts(SumOfBuckets(tl.devices[i])), DescribeParts(PartsOf(d)));
  }
}

TEST(BreakdownTimelineTest, RandomRunsAddUpToTheBreakdownExactly) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    DeviceTimeBreakdown::Options o;
    o.host_gap_ns = 50 + static_cast<int64_t>(rng() % 5000);
    o.window_ns = 2'000'000;  // many sweeps
    o.split_startup_teardown = round % 2 == 0;
    DeviceTimeBreakdown b(o);
    BreakdownTimeline t;
    b.SetPartListener(&t);
    b.SetOrigin(1'000'000'000);
    int64_t now = 1'000'000'000 + static_cast<int64_t>(rng() % 5'000'000);
    // Up to ~4 s of events with gaps up to ~1 ms: the buckets merge many times.
    const int events = 2000 + static_cast<int>(rng() % 3000);
    for (int i = 0; i < events; ++i) {
      now += static_cast<int64_t>(rng() % 1'000'000);
      const int64_t len = static_cast<int64_t>(rng() % 300'000);
      switch (rng() % 4) {
        case 0:
        case 1:
          b.AddHostSpan(now, now + len, rng() % 5 == 0);
          break;
        default:
          // Device 3 appears only in the second half: it inherits the empty device's history.
          b.AddDeviceOp(i > events / 2 && rng() % 2 ? 3 : 0, now + 1000, now + 1000 + len);
      }
      b.ObserveTime(now + len);
    }
    const auto devices = b.Finish(now + 10'000'000);
    const std::optional<Timeline> tl = t.Finish(devices);
    ASSERT_TRUE(tl.has_value());
    EXPECT_GT(tl->bucket_ns, BreakdownTimeline::kFirstBucketNs);
    ExpectAddsUp(devices, *tl);
  }
}

TEST(BreakdownTimelineTest, NothingRecordedGivesNoTimeline) {
  DeviceTimeBreakdown b(DeviceTimeBreakdown::Options{});
  BreakdownTimeline t;
  b.SetPartListener(&t);
  EXPECT_FALSE(t.Finish(b.Finish(100)).has_value());
}

TEST(LatencyBucketsTest, SumsIntoPowersOfTwo) {
  LogHistogram h;
  for (int64_t v : {0, 1, 3, 3, 100, 127, 128, 255, 5000, 5000, 8191, 1'000'000}) h.Add(v);
  const std::vector<LatencyBucket> rows = PowerOfTwoBuckets(h);
  // [0] 0; [1,2) 1; [2,4) 3 3; [64,128) 100 127; [128,256) 128 255; [4096,8192) 5000 5000 8191;
  // [524288, 1048576) 1000000.
  ASSERT_EQ(rows.size(), 7u);
  const std::vector<std::pair<int64_t, uint64_t>> want = {
      {0, 1}, {1, 1}, {2, 2}, {64, 2}, {128, 2}, {4096, 3}, {524288, 1}};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].lo_ns, want[i].first) << i;
    EXPECT_EQ(rows[i].count, want[i].second) << i;
  }
}

}  // namespace
}  // namespace brrr

namespace brrr {
namespace {

TEST(BreakdownTimelineTest, ACopyGoesOnByItself) {
  DeviceTimeBreakdown::Options o;
  o.host_gap_ns = 100;
  o.window_ns = 1'000'000;
  DeviceTimeBreakdown b(o);
  BreakdownTimeline t;
  b.SetPartListener(&t);
  b.SetOrigin(0);
  for (int64_t i = 0; i < 50; ++i) {
    b.AddHostSpan(i * 100'000, i * 100'000 + 10, false);
    b.AddDeviceOp(0, i * 100'000 + 10, i * 100'000 + 50'000);
    b.AddDeviceOp(1, i * 100'000 + 10, i * 100'000 + 20'000);
  }
  // Copies of both, as Analysis::Snapshot makes them; the original then goes on.
  DeviceTimeBreakdown b2 = b;
  BreakdownTimeline t2 = t;
  b2.SetPartListener(&t2);
  const auto devices2 = b2.Finish(6'000'000);
  for (int64_t i = 50; i < 60; ++i) b.AddDeviceOp(1, i * 100'000, i * 100'000 + 90'000);
  const auto devices = b.Finish(6'000'000);
  ExpectAddsUp(devices2, *t2.Finish(devices2));
  ExpectAddsUp(devices, *t.Finish(devices));
  EXPECT_NE(devices[1].busy_ns, devices2[1].busy_ns);
}

}  // namespace
}  // namespace brrr
