// KernelCounters: the per-kernel join of PM samples and kernel intervals, with every expected value
// worked out by hand in the comments; arrival in either order; samples shared by kernels; active
// share normalization and lower bounds; the bounded windows and what leaving them costs.
#include "collector/analysis/kernel_counters.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace brrr {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const KernelCounters::Figures* Find(const KernelCounters& c, const std::string& name,
                                    KernelCounters::Figures* out) {
  for (const auto& [n, f] : c.ByName()) {
    if (n == name) {
      *out = f;
      return out;
    }
  }
  return nullptr;
}

// Two kernels, three 1 ms samples (times in µs for the comments, ns in the code):
//   A [0, 1500)    B [1500, 3000)
//   S1 [0, 1000)     SM 80, DRAM 10, active 100
//   S2 [1000, 2000)  SM 40, DRAM 30, active 100
//   S3 [2000, 3000)  SM 30, DRAM 20, active 50  -> normalized SM 60, DRAM 40
// A: S1 1000 µs, S2 500 µs -> SM (80*1000 + 40*500) / 1500 = 66.67, DRAM (10*1000 + 30*500) /
//    1500 = 16.67; covered 1500 of 1500; shared 500 (S2 also covers B).
// B: S2 500 µs, S3 1000 µs -> SM (40*500 + 60*1000) / 1500 = 53.33, DRAM (30*500 + 40*1000) /
//    1500 = 36.67; covered 1500; shared 500.
void FeedTwoKernels(KernelCounters& c, bool samples_first) {
  const auto kernels = [&] {
    c.AddKernel("A", 0, 1'500'000);
    c.AddKernel("B", 1'500'000, 3'000'000);
  };
  const auto samples = [&] {
    c.AddSample({0, 1'000'000, 80, 10, 100});
    c.AddSample({1'000'000, 2'000'000, 40, 30, 100});
    c.AddSample({2'000'000, 3'000'000, 30, 20, 50});
  };
  if (samples_first) {
    samples();
    kernels();
  } else {
    kernels();
    samples();
  }
}

void ExpectTwoKernels(const KernelCounters& c) {
  KernelCounters::Figures a, b;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  ASSERT_NE(Find(c, "B", &b), nullptr);
  EXPECT_EQ(a.kernel_ns, 1'500'000);
  EXPECT_EQ(a.covered_ns, 1'500'000);
  EXPECT_EQ(a.shared_ns, 500'000);
  EXPECT_NEAR(a.sm_sum / a.sm_ns, 66.667, 0.001);
  EXPECT_NEAR(a.dram_sum / a.dram_ns, 16.667, 0.001);
  EXPECT_EQ(b.covered_ns, 1'500'000);
  EXPECT_EQ(b.shared_ns, 500'000);
  EXPECT_NEAR(b.sm_sum / b.sm_ns, 53.333, 0.001);
  EXPECT_NEAR(b.dram_sum / b.dram_ns, 36.667, 0.001);
  EXPECT_EQ(a.lower_bound_ns + b.lower_bound_ns, 0);
}

TEST(KernelCounters, TwoKernelsThreeSamplesKernelsFirst) {
  KernelCounters c;
  FeedTwoKernels(c, /*samples_first=*/false);
  ExpectTwoKernels(c);
  EXPECT_EQ(c.totals().samples, 3u);
  EXPECT_EQ(c.totals().kernels, 2u);
}

TEST(KernelCounters, TwoKernelsThreeSamplesSamplesFirst) {
  KernelCounters c;
  FeedTwoKernels(c, /*samples_first=*/true);
  ExpectTwoKernels(c);
}

TEST(KernelCounters, TheTopKernelsGetTheFigures) {
  KernelCounters c;
  FeedTwoKernels(c, false);
  c.AddKernel("C", 10'000'000, 11'000'000);  // after every sample: coverage 0, no figures
  std::vector<KernelStat> top(4);
  top[0].name = "A";
  top[1].name = "B";
  top[2].name = "C";
  top[3].name = "D";  // never seen by the join
  AttachKernelCounters(c, &top);
  ASSERT_TRUE(top[0].achieved_sm_pct.has_value());
  EXPECT_NEAR(*top[0].achieved_sm_pct, 66.667, 0.001);
  EXPECT_NEAR(*top[0].achieved_dram_pct, 16.667, 0.001);
  EXPECT_DOUBLE_EQ(*top[0].counter_coverage, 1.0);
  EXPECT_NEAR(*top[0].counter_shared, 1.0 / 3, 1e-9);  // 500 of 1500 µs
  EXPECT_FALSE(top[0].counter_lower_bound);
  EXPECT_NEAR(*top[1].achieved_sm_pct, 53.333, 0.001);
  EXPECT_DOUBLE_EQ(*top[2].counter_coverage, 0.0);
  EXPECT_FALSE(top[2].achieved_sm_pct.has_value());
  EXPECT_FALSE(top[3].counter_coverage.has_value());
}

TEST(KernelCounters, ConcurrentKernelsShareASample) {
  // A [0, 1000) and B [500, 1000) on two streams; S [0, 1000) SM 50, DRAM 50, active 100.
  // A: 1000 µs at 50, all shared (B overlaps the same sample); B: 500 µs at 50, all shared.
  KernelCounters c;
  c.AddKernel("A", 0, 1'000'000);
  c.AddSample({0, 1'000'000, 50, 50, 100});
  c.AddKernel("B", 500'000, 1'000'000);  // arrives after: the first kernel's time turns shared
  KernelCounters::Figures a, b;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  ASSERT_NE(Find(c, "B", &b), nullptr);
  EXPECT_EQ(a.covered_ns, 1'000'000);
  EXPECT_EQ(a.shared_ns, 1'000'000);
  EXPECT_EQ(b.covered_ns, 500'000);
  EXPECT_EQ(b.shared_ns, 500'000);
  EXPECT_DOUBLE_EQ(b.sm_sum / b.sm_ns, 50.0);
}

TEST(KernelCounters, ASampleJoinsOnlyTheKernelsOfItsDevice) {
  // A on device 1 and B on device 0, both [0, 1000); S [0, 1000) of device 0, SM 40: only B is
  // joined (unshared), A is counted on another device. A later sample of device 1 is skipped.
  KernelCounters c;
  c.AddKernel("A", 0, 1'000'000, /*device_id=*/1);
  c.AddSample({0, 1'000'000, 40, 20, 100, /*device_id=*/0});
  c.AddKernel("B", 0, 1'000'000, /*device_id=*/0);
  c.AddKernel("A", 1'000'000, 1'500'000, /*device_id=*/1);  // arrives after: not joined either
  c.AddSample({1'000'000, 2'000'000, 90, 90, 100, /*device_id=*/1});
  KernelCounters::Figures a, b;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  ASSERT_NE(Find(c, "B", &b), nullptr);
  EXPECT_EQ(a.covered_ns, 0);
  EXPECT_EQ(b.covered_ns, 1'000'000);
  EXPECT_EQ(b.shared_ns, 0);
  EXPECT_DOUBLE_EQ(b.sm_sum / b.sm_ns, 40.0);
  EXPECT_EQ(c.sampled_device(), 0u);
  EXPECT_EQ(c.totals().samples, 1u);
  EXPECT_EQ(c.totals().samples_skipped, 1u);
  EXPECT_EQ(c.OtherDevices().kernels, 2u);
  EXPECT_EQ(c.OtherDevices().device_ns, 1'500'000);
}

TEST(KernelCounters, TheSampledDeviceIsTheSamplesOne) {
  // Samples of device 3 (a job's rank 3): its kernels join, device 0's are the others.
  KernelCounters c;
  c.AddKernel("A", 0, 1'000'000, /*device_id=*/3);
  c.AddKernel("B", 0, 250'000, /*device_id=*/0);
  EXPECT_EQ(c.sampled_device(), 0u);  // before any sample: the shim samples device 0
  EXPECT_EQ(c.OtherDevices().kernels, 1u);
  c.AddSample({0, 1'000'000, 60, 10, 100, /*device_id=*/3});
  EXPECT_EQ(c.sampled_device(), 3u);
  EXPECT_EQ(c.OtherDevices().kernels, 1u);
  EXPECT_EQ(c.OtherDevices().device_ns, 250'000);
  KernelCounters::Figures a;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  EXPECT_EQ(a.covered_ns, 1'000'000);
}

TEST(KernelCounters, WithoutAnActiveShareValuesAreLowerBounds) {
  // S1 [0, 1000) SM 30 active unknown (taken as is: 30, lower bound); S2 [1000, 2000) SM 30
  // active 60 -> 50. A [0, 2000): (30*1000 + 50*1000) / 2000 = 40, lower bound over 1000 µs.
  // A DRAM value unknown in S2: DRAM over S1 only = 10.
  KernelCounters c;
  c.AddKernel("A", 0, 2'000'000);
  c.AddSample({0, 1'000'000, 30, 10, kNaN});
  c.AddSample({1'000'000, 2'000'000, 30, kNaN, 60});
  KernelCounters::Figures a;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  EXPECT_DOUBLE_EQ(a.sm_sum / a.sm_ns, 40.0);
  EXPECT_EQ(a.lower_bound_ns, 1'000'000);
  EXPECT_EQ(a.dram_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(a.dram_sum / a.dram_ns, 10.0);
  std::vector<KernelStat> top(1);
  top[0].name = "A";
  AttachKernelCounters(c, &top);
  EXPECT_TRUE(top[0].counter_lower_bound);
}

TEST(KernelCounters, NormalizedValuesAreCappedAtPeak) {
  // SM 90 over an active share of 45: 200 % by division, capped at 100.
  KernelCounters c;
  c.AddKernel("A", 0, 1'000'000);
  c.AddSample({0, 1'000'000, 90, 10, 45});
  KernelCounters::Figures a;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  EXPECT_DOUBLE_EQ(a.sm_sum / a.sm_ns, 100.0);
}

TEST(KernelCounters, ItemsBeyondTheWindowsAreCountedLateAndLoseTheirOverlap) {
  // Windows of 2 samples and 2 kernels. Samples [0,1), [1,2), [2,3) ms: the first leaves.
  // Kernel K [0, 3) ms arrives then: it is late (a sample of its time left) and only joins the
  // two held samples: coverage 2 of 3 ms.
  KernelCounters::Options o;
  o.max_samples = 2;
  o.max_kernels = 2;
  KernelCounters c(o);
  for (int i = 0; i < 3; ++i) c.AddSample({i * 1'000'000, (i + 1) * 1'000'000, 50, 50, 100});
  c.AddKernel("K", 0, 3'000'000);
  KernelCounters::Figures k;
  ASSERT_NE(Find(c, "K", &k), nullptr);
  EXPECT_EQ(k.kernel_ns, 3'000'000);
  EXPECT_EQ(k.covered_ns, 2'000'000);
  EXPECT_EQ(c.totals().kernels_late, 1u);
  // Kernels L1 [10,11), L2 [11,12), L3 [12,13) ms: L1 leaves the kernel window (K left first, then
  // L1). A sample [10, 11) arriving now is late and joins nothing.
  c.AddKernel("L", 10'000'000, 11'000'000);
  c.AddKernel("L", 11'000'000, 12'000'000);
  c.AddKernel("L", 12'000'000, 13'000'000);
  c.AddSample({10'000'000, 11'000'000, 50, 50, 100});
  EXPECT_EQ(c.totals().samples_late, 1u);
  KernelCounters::Figures l;
  ASSERT_NE(Find(c, "L", &l), nullptr);
  EXPECT_EQ(l.kernel_ns, 3'000'000);
  EXPECT_EQ(l.covered_ns, 0);
  EXPECT_LE(c.held(), 4u);
}

TEST(KernelCounters, MemoryStaysBoundedOverALongRun) {
  KernelCounters::Options o;
  o.max_samples = 64;
  o.max_kernels = 128;
  KernelCounters c(o);
  for (int64_t i = 0; i < 100'000; ++i) {
    c.AddKernel(i % 2 ? "odd" : "even", i * 100'000, i * 100'000 + 90'000);
    if (i % 10 == 0) c.AddSample({i * 100'000, (i + 10) * 100'000, 70, 20, 100});
  }
  EXPECT_LE(c.held(), 64u + 128u);
  EXPECT_EQ(c.ByName().size(), 2u);
  // Every kernel lies in a sample that arrived after it: all covered, each 90 µs at SM 70.
  KernelCounters::Figures even;
  ASSERT_NE(Find(c, "even", &even), nullptr);
  EXPECT_EQ(even.covered_ns, even.kernel_ns);
  EXPECT_DOUBLE_EQ(even.sm_sum / even.sm_ns, 70.0);
  EXPECT_EQ(even.shared_ns, even.covered_ns);  // ten kernels per sample
}

TEST(KernelCounters, KernelsOutOfTimeOrderStillJoinLaterSamples) {
  // Two streams' buffers: B [2, 3) ms arrives before A [0, 1) ms and C [1, 2) ms. The samples
  // [0, 1.5) and [1.5, 3) ms then find each by time: A 1 ms, C 0.5 + 0.5 ms, B 1 ms covered.
  KernelCounters c;
  c.AddKernel("B", 2'000'000, 3'000'000);
  c.AddKernel("A", 0, 1'000'000);
  c.AddKernel("C", 1'000'000, 2'000'000);
  c.AddSample({0, 1'500'000, 40, 40, 100});
  c.AddSample({1'500'000, 3'000'000, 80, 80, 100});
  KernelCounters::Figures a, b, k;
  ASSERT_NE(Find(c, "A", &a), nullptr);
  ASSERT_NE(Find(c, "B", &b), nullptr);
  ASSERT_NE(Find(c, "C", &k), nullptr);
  EXPECT_EQ(a.covered_ns, 1'000'000);
  EXPECT_EQ(b.covered_ns, 1'000'000);
  EXPECT_EQ(k.covered_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(a.sm_sum / a.sm_ns, 40.0);
  EXPECT_DOUBLE_EQ(b.sm_sum / b.sm_ns, 80.0);
  EXPECT_DOUBLE_EQ(k.sm_sum / k.sm_ns, 60.0);  // (40 x 0.5 + 80 x 0.5) / 1
}

TEST(KernelCounters, DamagedSamplesAreSkipped) {
  KernelCounters c;
  c.AddSample({1'000'000, 2'000'000, 50, 50, 100});
  c.AddSample({500'000, 900'000, 50, 50, 100});  // starts before the last one
  c.AddSample({3'000'000, 3'000'000, 50, 50, 100});  // zero length
  c.AddSample({4'000'000, 3'000'000, 50, 50, 100});  // ends before it starts
  EXPECT_EQ(c.totals().samples, 1u);
  EXPECT_EQ(c.totals().samples_skipped, 3u);
}

}  // namespace
}  // namespace brrr
