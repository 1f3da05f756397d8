// The processes' timelines on the job's clock: hand-worked re-bucketing of two processes with
// different starts and widths, whole-bucket shifts when offsets are aligned, wider buckets and the
// row cap with many processes (the straggler kept, the rest counted), rows that cannot be placed
// counted with why, inputs at their limits, and over random inputs (valid, and as a damaged file
// could give them): every row kept adds up to its device's breakdown exactly, the rest counted.
#include "collector/job/job_timeline.h"

#include <random>

#include "collector/job/job_merge.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/timeline_sums_for_test.h"

namespace brrr::job {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1'700'000'000'000'000'000;  // some Unix time in ns

TimelineBucket Bucket(int64_t busy, int64_t launch_bound = 0, int64_t startup = 0,
                      int64_t teardown = 0) {
  TimelineBucket b;
  b.busy_ns = busy;
  b.launch_bound_ns = launch_bound;
  b.startup_ns = startup;
  b.teardown_ns = teardown;
  return b;
}

// A process with one device (id 0) whose breakdown is the sum of `buckets`.
Report Process(int64_t origin, int64_t bucket_ns, int64_t wall, std::vector<TimelineBucket> buckets,
               uint32_t device_id = 0) {
  Report r;
  DeviceBreakdown d;
  d.id = device_id;
  d.wall_ns = wall;
  const TimelineBucket sum = SumOfBuckets(DeviceTimeline{device_id, buckets});
  d.busy_ns = sum.busy_ns;
  d.idle = {sum.launch_bound_ns, sum.sync_drain_ns, sum.host_outside_cuda_ns};
  d.startup_ns = sum.startup_ns;
  d.teardown_ns = sum.teardown_ns;
  r.devices.push_back(d);
  r.timeline.emplace();
  r.timeline->bucket_ns = bucket_ns;
  r.timeline->origin_unix_ns = origin;
  r.timeline->devices.push_back({device_id, std::move(buckets)});
  r.wall_ns = wall;
  return r;
}

void ExpectBucket(const TimelineBucket& b, int64_t busy, int64_t launch_bound, int64_t startup,
                  int64_t teardown) {
  EXPECT_EQ(b.busy_ns, busy);
  EXPECT_EQ(b.launch_bound_ns, launch_bound);
  EXPECT_EQ(b.startup_ns, startup);
  EXPECT_EQ(b.teardown_ns, teardown);
  EXPECT_EQ(b.sync_drain_ns, 0);
  EXPECT_EQ(b.host_outside_cuda_ns, 0);
}

// A: starts at T0, 1024 ns buckets, wall 3000: [0,1024) busy 1024 | [1024,2048) busy 500 +
// launch-bound 524 | [2048,3000) teardown 952.
// B: starts 1000 ns later, 2048 ns buckets, wall 3000: [0,2048) startup 1000 + busy 1048 |
// [2048,3000) busy 952.
// Job clock: origin T0, width max(1024, 2048) = 2048, span max(3000, 1000 + 3000) = 4000 -> 2
// buckets [0,2048) [2048,4096).
// A: its buckets 0 and 1 lie in job bucket 0, its bucket 2 in job bucket 1 (a plain merge).
// B: its bucket 0 is [1000,3048) on the job clock: 1048 of its 2048 ns in job bucket 0, so
//   startup floor(1000 * 1048 / 2048) = floor(511.71875) = 511 there, 1000 - 511 = 489 after;
//   busy floor(1048 * 1048 / 2048) = floor(536.28125) = 536 there, 1048 - 536 = 512 after.
//   Its bucket 1 is [3048,4000), inside job bucket 1: busy 952.
TEST(JobTimelineTest, TwoProcessesWithDifferentStartsAndWidths) {
  const std::vector<Report> in = {
      Process(kT0, 1024, 3000, {Bucket(1024), Bucket(500, 524), Bucket(0, 0, 0, 952)}),
      Process(kT0 + 1000, 2048, 3000, {Bucket(1048, 0, 1000), Bucket(952)}),
  };
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  EXPECT_EQ(t.rows_left_out, 0u);
  EXPECT_EQ(t.note, "");
  ASSERT_EQ(t.per_process.size(), 2u);
  ASSERT_TRUE(t.per_process[0].has_value());
  ASSERT_TRUE(t.per_process[1].has_value());
  for (const std::optional<Timeline>& p : t.per_process) {
    EXPECT_EQ(p->bucket_ns, 2048);
    EXPECT_EQ(p->origin_unix_ns, kT0);
    ASSERT_EQ(p->devices.size(), 1u);
    EXPECT_EQ(p->devices[0].id, 0u);
    ASSERT_EQ(p->devices[0].buckets.size(), 2u);
  }
  const std::vector<TimelineBucket>& a = t.per_process[0]->devices[0].buckets;
  ExpectBucket(a[0], 1524, 524, 0, 0);
  ExpectBucket(a[1], 0, 0, 0, 952);
  const std::vector<TimelineBucket>& b = t.per_process[1]->devices[0].buckets;
  ExpectBucket(b[0], 536, 0, 511, 0);
  ExpectBucket(b[1], 512 + 952, 0, 489, 0);
}

// B starts 4096 ns after A, a multiple of the job width (2048): its buckets move whole, 2 job
// buckets later. Span 4096 + 3000 = 7096 -> 4 buckets of 2048.
TEST(JobTimelineTest, AnAlignedOffsetShiftsWholeBuckets) {
  const std::vector<Report> in = {
      Process(kT0, 2048, 2048, {Bucket(2048)}),
      Process(kT0 + 4096, 2048, 3000, {Bucket(1048, 0, 1000), Bucket(952)}),
  };
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  ASSERT_TRUE(t.per_process[1].has_value());
  const std::vector<TimelineBucket>& b = t.per_process[1]->devices[0].buckets;
  ASSERT_EQ(b.size(), 4u);
  ExpectBucket(b[0], 0, 0, 0, 0);
  ExpectBucket(b[1], 0, 0, 0, 0);
  ExpectBucket(b[2], 1048, 0, 1000, 0);
  ExpectBucket(b[3], 952, 0, 0, 0);
  const std::vector<TimelineBucket>& a = t.per_process[0]->devices[0].buckets;
  ASSERT_EQ(a.size(), 4u) << "every row has the job's bucket count";
  ExpectBucket(a[0], 2048, 0, 0, 0);
  ExpectBucket(a[3], 0, 0, 0, 0);
}

// 100 rows: 8192 / 100 = 81 buckets each at most. Every process: 128 buckets of 1024 ns (wall
// 131072), busy 1024 each. Width 1024 would need 128 buckets; 2048 needs 64 <= 81: each job
// bucket is two source buckets, busy 2048.
TEST(JobTimelineTest, ManyRowsGetWiderBuckets) {
  std::vector<Report> in;
  for (int i = 0; i < 100; ++i) {
    in.push_back(Process(kT0, 1024, 131072, std::vector<TimelineBucket>(128, Bucket(1024))));
  }
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  EXPECT_EQ(t.rows_left_out, 0u);
  for (const std::optional<Timeline>& p : t.per_process) {
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->bucket_ns, 2048);
    ASSERT_EQ(p->devices[0].buckets.size(), 64u);
    for (const TimelineBucket& b : p->devices[0].buckets) EXPECT_EQ(b.busy_ns, 2048);
  }
}

// 600 rows: 8192 / 16 = 512 are kept, 16 buckets each; the straggler (the last process) first,
// then processes 0..510; 88 are left out and the note says so.
TEST(JobTimelineTest, RowsOverTheCapAreLeftOutTheStragglersKept) {
  std::vector<Report> in;
  for (int i = 0; i < 600; ++i) in.push_back(Process(kT0, 1024, 1024, {Bucket(1024)}));
  const JobTimelines t = MergeTimelines(in, size_t{599});
  EXPECT_EQ(t.rows_left_out, 88u);
  EXPECT_EQ(t.note,
            "Timelines left out for 88 of 600 (process, GPU) rows: 88 over the cap of 512 rows "
            "(the straggler's kept first, then by rank).");
  size_t kept = 0, buckets = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!t.per_process[i].has_value()) continue;
    ++kept;
    buckets += t.per_process[i]->devices[0].buckets.size();
  }
  EXPECT_EQ(kept, 512u);
  EXPECT_LE(buckets, kMaxJobTimelineBuckets);
  EXPECT_TRUE(t.per_process[599].has_value());
  EXPECT_TRUE(t.per_process[510].has_value());
  EXPECT_FALSE(t.per_process[511].has_value());
  EXPECT_FALSE(t.per_process[598].has_value());
  // Width 1024 (the widest source's), span 1024: one bucket would do, 16 is the floor only of
  // the cap, not of the count.
  EXPECT_EQ(t.per_process[0]->devices[0].buckets.size(), 1u);
}

TEST(JobTimelineTest, RowsThatCannotBePlacedAreCountedWithWhy) {
  std::vector<Report> in = {
      Process(kT0, 1024, 1024, {Bucket(1024)}),
      Process(0, 1024, 1024, {Bucket(1024)}),  // no common clock: an older report
      Process(kT0, 1024, 1024, {Bucket(1000)}),
  };
  in[2].devices[0].busy_ns = 1024;  // its buckets say 1000
  Report host_only;                 // no devices: no rows at all
  in.push_back(host_only);
  Report no_timeline = Process(kT0, 1024, 1024, {Bucket(1024)});
  no_timeline.timeline.reset();
  in.push_back(no_timeline);
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  EXPECT_TRUE(t.per_process[0].has_value());
  for (size_t i = 1; i < in.size(); ++i) EXPECT_FALSE(t.per_process[i].has_value()) << i;
  EXPECT_EQ(t.rows_left_out, 3u);
  EXPECT_EQ(t.note,
            "Timelines left out for 3 of 4 (process, GPU) rows: 2 with no timeline on a common "
            "clock (no device work recorded, or a report written before it); 1 whose buckets do "
            "not fit the breakdown (do not add up to it, or are not as a collector writes "
            "them).");
}

// A device id listed twice in one process (a damaged or hand-made file; found by
// job_merge_fuzzer): a job row is named by its id alone, so a reader could not tell which of the
// two it is (the HTML draws it under both). Process 0 lists device 1 twice (startup 1000, then
// sync-drain 952 + host 2048, which its one timeline row for id 1 adds up to) and device 0 once:
// both id-1 entries are left out as not fitting, device 0 is kept. Process 1 is untouched.
TEST(JobTimelineTest, ARepeatedDeviceIdGetsNoRow) {
  Report r = Process(kT0, 1024, 2048, {Bucket(0, 0, 0, 0), Bucket(0, 0, 0, 0)}, 1);
  r.timeline->devices[0].buckets[0].host_outside_cuda_ns = 1024;
  r.timeline->devices[0].buckets[1].host_outside_cuda_ns = 1024;
  r.timeline->devices[0].buckets[1].sync_drain_ns = 952;
  r.devices[0].idle.host_outside_cuda_ns = 2048;
  r.devices[0].idle.sync_drain_ns = 952;  // this entry adds up to the id-1 row
  DeviceBreakdown first = r.devices[0];
  first.idle = {};
  first.startup_ns = 1000;  // this one does not
  r.devices.insert(r.devices.begin(), first);
  const Report zero = Process(kT0, 1024, 2048, {Bucket(1024), Bucket(1024)}, 0);
  r.devices.push_back(zero.devices[0]);
  r.timeline->devices.push_back(zero.timeline->devices[0]);
  const std::vector<Report> in = {r, Process(kT0, 1024, 1024, {Bucket(1024)})};
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  ASSERT_TRUE(t.per_process[0].has_value());
  ASSERT_EQ(t.per_process[0]->devices.size(), 1u);
  EXPECT_EQ(t.per_process[0]->devices[0].id, 0u);
  EXPECT_TRUE(t.per_process[1].has_value());
  EXPECT_EQ(t.rows_left_out, 2u);
  EXPECT_THAT(t.note, HasSubstr("2 whose buckets do not fit the breakdown"));
}

// Two devices of one process, listed 1 then 0: rows as its device list has them.
TEST(JobTimelineTest, RowsFollowTheProcesssDeviceList) {
  Report r = Process(kT0, 1024, 1024, {Bucket(1024)}, 1);
  Report other = Process(kT0, 1024, 1024, {Bucket(24, 1000)}, 0);
  r.devices.push_back(other.devices[0]);
  r.timeline->devices.insert(r.timeline->devices.begin(), other.timeline->devices[0]);
  const JobTimelines t = MergeTimelines({r}, std::nullopt);
  ASSERT_TRUE(t.per_process[0].has_value());
  ASSERT_EQ(t.per_process[0]->devices.size(), 2u);
  EXPECT_EQ(t.per_process[0]->devices[0].id, 1u);
  EXPECT_EQ(t.per_process[0]->devices[1].id, 0u);
  ExpectBucket(t.per_process[0]->devices[1].buckets[0], 24, 1000, 0, 0);
}

// Random processes (starts up to a second apart, widths 2^10..2^30, up to 128 buckets, up to 3
// devices, up to 700 processes): every kept row adds up to its device's breakdown part by part,
// all rows share one width, origin and count, the total stays under the cap, and every device is
// either a row or counted as left out.
TEST(JobTimelineTest, RowsAddUpToTheirBreakdownOverRandomInputs) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 60; ++round) {
    const int processes = round < 50 ? 1 + static_cast<int>(rng() % 12) : 150 + 50 * (round - 50);
    std::vector<Report> in;
    for (int p = 0; p < processes; ++p) {
      const int64_t width = int64_t{1} << (10 + rng() % 21);
      const size_t n = 1 + rng() % 128;
      const int64_t wall = static_cast<int64_t>(n - 1) * width + 1 +
                           static_cast<int64_t>(rng() % static_cast<uint64_t>(width));
      const int64_t origin = kT0 + static_cast<int64_t>(rng() % 1'000'000'000);
      Report r;
      const int devices = 1 + static_cast<int>(rng() % 3);
      for (int d = 0; d < devices; ++d) {
        std::vector<TimelineBucket> buckets(n);
        for (size_t k = 0; k < n; ++k) {
          const int64_t len = k + 1 < n ? width : wall - static_cast<int64_t>(k) * width;
          // Cut the bucket's time into the six parts at random.
          int64_t left = len;
          for (int64_t TimelineBucket::*part :
               {&TimelineBucket::busy_ns, &TimelineBucket::launch_bound_ns,
                &TimelineBucket::sync_drain_ns, &TimelineBucket::host_outside_cuda_ns,
                &TimelineBucket::startup_ns}) {
            const int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(left + 1));
            buckets[k].*part = v;
            left -= v;
          }
          buckets[k].teardown_ns = left;
        }
        Report one = Process(origin, width, wall, buckets, static_cast<uint32_t>(d));
        r.devices.push_back(one.devices[0]);
        if (!r.timeline.has_value()) r.timeline = one.timeline;
        else r.timeline->devices.push_back(one.timeline->devices[0]);
      }
      in.push_back(std::move(r));
    }
    const JobTimelines t = MergeTimelines(in, size_t{0});
    size_t rows = 0, buckets = 0;
    std::optional<int64_t> width, origin;
    std::optional<size_t> count;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!t.per_process[i].has_value()) continue;
      const Timeline& tl = *t.per_process[i];
      if (!width) width = tl.bucket_ns, origin = tl.origin_unix_ns;
      EXPECT_EQ(tl.bucket_ns, *width);
      EXPECT_EQ(tl.origin_unix_ns, *origin);
      for (const DeviceTimeline& row : tl.devices) {
        ++rows;
        buckets += row.buckets.size();
        if (!count) count = row.buckets.size();
        EXPECT_EQ(row.buckets.size(), *count);
        EXPECT_LE(row.buckets.size(), kMaxTimelineBuckets);
        const DeviceBreakdown& d = in[i].devices[row.id];
        TimelineBucket sum;
        for (const TimelineBucket& b : row.buckets) {
          for (int64_t TimelineBucket::*part :
               {&TimelineBucket::busy_ns, &TimelineBucket::launch_bound_ns,
                &TimelineBucket::sync_drain_ns, &TimelineBucket::host_outside_cuda_ns,
                &TimelineBucket::startup_ns, &TimelineBucket::teardown_ns}) {
            EXPECT_GE(b.*part, 0);
            sum.*part += b.*part;
          }
        }
        EXPECT_EQ(sum.busy_ns, d.busy_ns) << "round " << round;
        EXPECT_EQ(sum.launch_bound_ns, d.idle.launch_bound_ns);
        EXPECT_EQ(sum.sync_drain_ns, d.idle.sync_drain_ns);
        EXPECT_EQ(sum.host_outside_cuda_ns, d.idle.host_outside_cuda_ns);
        EXPECT_EQ(sum.startup_ns, d.startup_ns);
        EXPECT_EQ(sum.teardown_ns, d.teardown_ns);
      }
    }
    size_t devices = 0;
    for (const Report& r : in) devices += r.devices.size();
    EXPECT_EQ(rows + t.rows_left_out, devices) << "round " << round;
    EXPECT_LE(buckets, kMaxJobTimelineBuckets);
    EXPECT_LE(rows, kMaxJobTimelineBuckets / kMinJobTimelineBuckets);
    EXPECT_TRUE(t.per_process[0].has_value()) << "the one kept first";
  }
}

// Values a file may hold at their limits: A starts at 1 with one 2^55 ns bucket, busy 2^63 - 1
// over a wall of 2^63 - 1; B starts 2^63 - 2 ns after it, busy 1000 over 1000 ns. Span: B's end,
// 2^63 + 998 ns. 2^56 ns buckets would need 129 > 128; 2^57 need 65.
// A covers [0, 2^63 - 1): each job bucket j < 63 gets floor(v (j + 1) 2^57 / v) minus the earlier
// shares = 2^57; bucket 63 the rest, 2^57 - 1. B's [2^63 - 2, 2^63 + 998) straddles the edge at
// 64 x 2^57 = 2^63: bucket 63 gets floor(1000 x 2 / 1000) = 2, bucket 64 the other 998.
TEST(JobTimelineTest, ExtremeInputsStayExactAndBounded) {
  const std::vector<Report> in = {
      Process(1, int64_t{1} << 55, INT64_MAX, {Bucket(INT64_MAX)}),
      Process(INT64_MAX, 1024, 1000, {Bucket(1000)}),
      Process(kT0, (int64_t{1} << 55) + 1, 1000, {Bucket(1000)}),  // wider than the collector's
  };
  const JobTimelines t = MergeTimelines(in, std::nullopt);
  ASSERT_TRUE(t.per_process[0].has_value());
  ASSERT_TRUE(t.per_process[1].has_value());
  EXPECT_FALSE(t.per_process[2].has_value());
  EXPECT_EQ(t.rows_left_out, 1u);
  EXPECT_EQ(t.per_process[0]->bucket_ns, int64_t{1} << 57);
  EXPECT_EQ(t.per_process[0]->origin_unix_ns, 1);
  const std::vector<TimelineBucket>& a = t.per_process[0]->devices[0].buckets;
  const std::vector<TimelineBucket>& b = t.per_process[1]->devices[0].buckets;
  ASSERT_EQ(a.size(), 65u);
  ASSERT_EQ(b.size(), 65u);
  for (size_t j = 0; j < 63; ++j) EXPECT_EQ(a[j].busy_ns, int64_t{1} << 57) << j;
  EXPECT_EQ(a[63].busy_ns, (int64_t{1} << 57) - 1);
  EXPECT_EQ(a[64].busy_ns, 0);
  for (size_t j = 0; j < 63; ++j) EXPECT_EQ(b[j].busy_ns, 0) << j;
  EXPECT_EQ(b[63].busy_ns, 2);
  EXPECT_EQ(b[64].busy_ns, 998);
}

// Reports as a damaged or hostile file could give them (after the JSON reader's own checks, which
// allow any non-negative value): random origins, widths, bucket counts and values, breakdowns that
// often do not match. Nothing overflows or crashes, every device is a row or counted, and every
// row kept adds up to its device.
TEST(JobTimelineTest, ArbitraryReportsAreCountedOrKeptExact) {
  std::mt19937_64 rng(99);
  size_t kept = 0, left_out = 0;
  const auto any = [&](int64_t hi) {  // in [0, hi]
    return static_cast<int64_t>(rng() % (static_cast<uint64_t>(hi) + 1));
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<Report> in(1 + rng() % 6);
    size_t devices = 0;
    for (Report& r : in) {
      const size_t n = rng() % 130;
      const int64_t width = 1 + any(int64_t{1} << (rng() % 60));
      const int64_t wall = any(rng() % 2 || width > INT64_MAX / 130 ? INT64_MAX : width * 130);
      r.timeline.emplace();
      r.timeline->bucket_ns = width;
      r.timeline->origin_unix_ns = rng() % 8 == 0 ? 0 : any(INT64_MAX);
      DeviceBreakdown d;
      d.wall_ns = wall;
      DeviceTimeline& row = r.timeline->devices.emplace_back();
      for (size_t k = 0; k < n; ++k) {
        TimelineBucket& b = row.buckets.emplace_back();
        b.busy_ns = any(rng() % 2 ? 1000 : INT64_MAX / 256);
        b.teardown_ns = any(1000);
        d.busy_ns += b.busy_ns;
        d.teardown_ns += b.teardown_ns;
      }
      if (rng() % 4 == 0) d.busy_ns += 1;  // does not add up
      r.devices.push_back(d);
      ++devices;
    }
    const JobTimelines t = MergeTimelines(in, std::nullopt);
    size_t rows = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!t.per_process[i].has_value()) continue;
      for (const DeviceTimeline& row : t.per_process[i]->devices) {
        ++rows;
        EXPECT_LE(row.buckets.size(), kMaxTimelineBuckets);
        int64_t busy = 0, teardown = 0;
        for (const TimelineBucket& b : row.buckets) {
          ASSERT_GE(b.busy_ns, 0);
          ASSERT_LE(b.busy_ns, INT64_MAX - busy);
          busy += b.busy_ns;
          teardown += b.teardown_ns;
        }
        EXPECT_EQ(busy, in[i].devices[0].busy_ns) << "round " << round;
        EXPECT_EQ(teardown, in[i].devices[0].teardown_ns) << "round " << round;
      }
    }
    EXPECT_EQ(rows + t.rows_left_out, devices) << "round " << round;
    EXPECT_EQ(t.note.empty(), t.rows_left_out == 0);
    kept += rows;
    left_out += t.rows_left_out;
  }
  EXPECT_GT(kept, 300u) << "the inputs reach the merge, not only its checks";
  EXPECT_GT(left_out, 100u);
}

// MergeJob puts each process's timeline in its row (rows by rank) and the count in the summary.
TEST(JobTimelineTest, MergeJobFillsEachRowsTimeline) {
  std::vector<Report> in = {
      Process(kT0 + 1000, 2048, 3000, {Bucket(1048, 0, 1000), Bucket(952)}),
      Process(kT0, 1024, 3000, {Bucket(1024), Bucket(500, 524), Bucket(0, 0, 0, 952)}),
  };
  in[0].process.emplace();
  in[0].process->rank = 1;
  in[0].process->pid = 11;
  in[1].process.emplace();
  in[1].process->rank = 0;
  in[1].process->pid = 10;
  const Report job = MergeJob(in, {});
  ASSERT_EQ(job.processes.size(), 2u);
  ASSERT_TRUE(job.processes[0].timeline.has_value());
  ASSERT_TRUE(job.processes[1].timeline.has_value());
  EXPECT_EQ(job.processes[0].rank, 0);
  ExpectBucket(job.processes[0].timeline->devices[0].buckets[0], 1524, 524, 0, 0);
  ExpectBucket(job.processes[1].timeline->devices[0].buckets[0], 536, 0, 511, 0);
  ASSERT_TRUE(job.job.has_value());
  EXPECT_EQ(job.job->timeline_rows_left_out, 0u);
  EXPECT_FALSE(job.timeline.has_value()) << "the job's own devices are sums by id: no row of theirs";
}

}  // namespace
}  // namespace brrr::job
