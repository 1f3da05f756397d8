// Tests CoverageStats on its own: counts per mechanism, the without-stack table (names, order,
// cap) and the gap sentences that make a run incomplete.
#include "collector/analysis/coverage_stats.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr uint32_t kDriverLaunchCbid = 307;  // cuLaunchKernel
constexpr uint32_t kDriverCtxSyncCbid = 17;  // cuCtxSynchronize

TEST(CoverageStatsTest, CountsEachMechanismAndStacklessCallsPerApi) {
  ApiStats names;
  const CallKey launch = ApiStats::KeyForApi(Api::kCudaLaunchKernelInternal);
  const CallKey sync = ApiStats::KeyForApi(Api::kCudaStreamSynchronize);
  const CallKey cu_launch = names.KeyForCupti(/*driver=*/true, kDriverLaunchCbid);
  CoverageStats stats;
  for (int i = 0; i < 5; ++i) stats.AddHostCall(CallSource::kHook, launch, /*has_stack=*/true);
  stats.AddHostCall(CallSource::kHook, sync, /*has_stack=*/false);
  for (int i = 0; i < 3; ++i) stats.AddHostCall(CallSource::kCuptiCallback, cu_launch, false);
  stats.AddHostCall(CallSource::kCuptiCallback, cu_launch, true);
  for (int i = 0; i < 2; ++i) stats.AddCuptiOnlyCall(sync);

  const Coverage c = stats.Finish(names, CoverageFacts{.api_records = 11}, /*top=*/20);
  EXPECT_EQ(c.hooked_calls, 6u);
  EXPECT_EQ(c.callback_calls, 4u);
  EXPECT_EQ(c.cupti_only_calls, 2u);
  EXPECT_EQ(c.calls_without_stack, 6u);
  ASSERT_THAT(c.without_stack, SizeIs(2));
  EXPECT_EQ(c.without_stack[0].api, "cuLaunchKernel");
  EXPECT_EQ(c.without_stack[0].calls, 3u);
  EXPECT_EQ(c.without_stack[1].api, "cudaStreamSynchronize");
  EXPECT_EQ(c.without_stack[1].calls, 3u);  // one hooked + two CUPTI-only
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(c.gaps, IsEmpty());
}

TEST(CoverageStatsTest, WithoutStackIsSortedByCallsThenNameAndCapped) {
  ApiStats names;
  CoverageStats stats;
  const CallKey a = ApiStats::KeyForApi(Api::kCudaMemcpy);
  const CallKey b = ApiStats::KeyForApi(Api::kCudaFree);
  const CallKey c = names.KeyForCupti(/*driver=*/true, kDriverCtxSyncCbid);
  for (int i = 0; i < 2; ++i) stats.AddCuptiOnlyCall(a);
  for (int i = 0; i < 7; ++i) stats.AddCuptiOnlyCall(c);
  for (int i = 0; i < 2; ++i) stats.AddCuptiOnlyCall(b);

  const Coverage all = stats.Finish(names, {.api_records = 11}, /*top=*/20);
  ASSERT_THAT(all.without_stack, SizeIs(3));
  EXPECT_EQ(all.without_stack[0].api, "cuCtxSynchronize");
  EXPECT_EQ(all.without_stack[1].api, "cudaFree");  // ties by name
  EXPECT_EQ(all.without_stack[2].api, "cudaMemcpy");

  const Coverage capped = stats.Finish(names, {.api_records = 11}, /*top=*/1);
  ASSERT_THAT(capped.without_stack, SizeIs(1));
  EXPECT_EQ(capped.without_stack[0].api, "cuCtxSynchronize");
  EXPECT_EQ(capped.calls_without_stack, 11u);  // the total still counts every call
}

TEST(CoverageStatsTest, HostOnlyRunIsIncompleteAndSaysWhatWasNotSeen) {
  ApiStats names;
  CoverageStats stats;
  stats.AddHostCall(CallSource::kHook, ApiStats::KeyForApi(Api::kCudaMemcpy), true);
  CoverageFacts facts;
  facts.host_only = true;
  facts.host_only_reason = "CUPTI disabled by BRRR_CUPTI=0";
  const Coverage c = stats.Finish(names, facts, 20);
  EXPECT_FALSE(c.complete);
  ASSERT_THAT(c.gaps, SizeIs(1));
  EXPECT_THAT(c.gaps[0],
              AllOf(HasSubstr("host-only"), HasSubstr("BRRR_CUPTI=0"), HasSubstr("static cudart"),
                    HasSubstr("driver API"), HasSubstr("device times are missing")));
}

TEST(CoverageStatsTest, HostOnlyWithoutAReasonStillExplainsItself) {
  const std::vector<std::string> gaps = CoverageGaps({.host_only = true}, 0, 0);
  ASSERT_THAT(gaps, SizeIs(1));
  EXPECT_THAT(gaps[0], HasSubstr("host-only run (CUPTI unavailable)"));
}

TEST(CoverageStatsTest, EveryLossIsAGapWithItsCount) {
  CoverageFacts facts;
  facts.api_records = 10;
  facts.host_dropped = 12;
  facts.device_dropped = 34;
  facts.join_dropped = 56;
  facts.join_late = 67;
  facts.invalid_times = 78;
  facts.term_signal = 9;
  EXPECT_THAT(
      CoverageGaps(facts, 100, 100),
      ElementsAre(HasSubstr("12 host calls dropped"), HasSubstr("34 device records dropped"),
                  HasSubstr("56 pending records dropped"),
                  HasSubstr("67 CUPTI API records came after brrr had stopped waiting"),
                  HasSubstr("78 events with impossible timestamps"),
                  HasSubstr("killed by signal 9")));
}

// Issue 48: threads past BRRR_MAX_THREADS were reported as "rings full"; each cause is said
// apart, the thread cap with what to do.
TEST(CoverageStatsTest, ThreadsPastTheCapAreNotCalledFullRings) {
  CoverageFacts facts;
  facts.api_records = 10;
  facts.host_dropped = 30;
  facts.host_dropped_no_ring = 20;
  facts.max_threads = 4;
  EXPECT_THAT(CoverageGaps(facts, 100, 100),
              ElementsAre(HasSubstr("10 host calls dropped (their thread's ring was full)"),
                          HasSubstr("20 host calls dropped from threads past BRRR_MAX_THREADS (4 "
                                    "threads had rings)")));
  facts.host_dropped = 20;
  EXPECT_THAT(CoverageGaps(facts, 100, 100),
              ElementsAre(HasSubstr("20 host calls dropped from threads past BRRR_MAX_THREADS")));
}

TEST(CoverageStatsTest, AnExecThatRecordedOnIsAGap) {
  CoverageFacts facts;
  facts.api_records = 10;
  facts.execs = 2;
  EXPECT_THAT(CoverageGaps(facts, 100, 100),
              ElementsAre(HasSubstr("exec'd another program 2 times and went on recording")));
}

TEST(CoverageStatsTest, CuptiOnButSilentIsAGapOnlyWhenTheShimSawCalls) {
  // Only CUPTI-only calls: CUPTI delivered them, nothing to complain about.
  EXPECT_THAT(CoverageGaps({.api_records = 2}, /*calls_seen_by_shim=*/0, /*calls_seen=*/2),
              IsEmpty());
  EXPECT_THAT(CoverageGaps({.api_records = 0}, /*calls_seen_by_shim=*/3, /*calls_seen=*/3),
              ElementsAre(HasSubstr("CUPTI was on but delivered no API records")));
  EXPECT_THAT(CoverageGaps({.api_records = 1}, /*calls_seen_by_shim=*/3, /*calls_seen=*/3),
              IsEmpty());
  // Sampled, and the run ended before the first window: CUPTI was never on, and the gap says so.
  EXPECT_THAT(CoverageGaps({.api_records = 0, .no_window = true}, 3, 3),
              ElementsAre(HasSubstr("the run ended before its first window")));
}

TEST(CoverageStatsTest, ARunWithNothingRecordedCannotVouchForAnything) {
  EXPECT_THAT(CoverageGaps({}, 0, 0),
              ElementsAre(HasSubstr("no CUDA call or device work was recorded")));
  // Device work alone (e.g. kernels whose calls CUPTI did not report) is something.
  EXPECT_THAT(CoverageGaps({.device_ops = 4}, 0, 0), IsEmpty());
  // Host-only says more than "nothing recorded": one gap, the host-only one.
  EXPECT_THAT(CoverageGaps({.host_only = true}, 0, 0), ElementsAre(HasSubstr("host-only")));
}

}  // namespace
}  // namespace brrr
