// Tests of reading the shim's counter table from a segment header: hand-worked throughputs, each
// failure state's reason, and a damaged table (count beyond the table, impossible spans, NaN,
// unknown state) that is clamped and explained, never trusted.
#include "collector/counters/counter_table.h"

#include <cupti_result.h>

#include <cmath>
#include <limits>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::counters {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<ring::SegmentHeader> Header() { return std::make_unique<ring::SegmentHeader>(); }

void Put(ring::SegmentHeader& h, uint32_t i, uint64_t start, uint64_t end, float sm, float dram,
         float active, uint32_t merged = 1) {
  h.counter_samples[i] = ring::CounterSampleSlot{start, end, sm, dram, active, merged};
}

TEST(CounterTableTest, SamplesGiveThroughputOverBusyTime) {
  auto h = Header();
  // 2 ms (2 merged samples) fully busy at SM 80 / DRAM 10; 1 ms half busy at SM 25 / DRAM 15;
  // 1 ms idle. Busy time 2.5 ms: SM (160 + 25) / 250 = 74 %, DRAM (20 + 15) / 250 = 14 %.
  Put(*h, 0, 1'000'000, 3'000'000, 80, 10, 100, 2);
  Put(*h, 1, 3'000'000, 4'000'000, 25, 15, 50);
  Put(*h, 2, 4'000'000, 5'000'000, 0, 0, 0);
  h->counters_sample_count.store(3);
  h->counters_state.store(ring::kCountersDone);
  const CounterOutcome o = OutcomeOf(ReadCounterTable(*h));
  ASSERT_TRUE(o.measured.has_value()) << o.unavailable;
  EXPECT_NEAR(o.measured->sm_pct, 74.0, 1e-9);
  EXPECT_NEAR(o.measured->dram_pct, 14.0, 1e-9);
  EXPECT_EQ(o.measured->samples, 3u);  // the PM samples behind the busy slots
  EXPECT_TRUE(o.shim_sampled);
  EXPECT_EQ(o.unavailable, "");
}

TEST(CounterTableTest, StatesGiveTheirReasons) {
  const struct {
    uint32_t state, call;
    CUptiResult result;
    const char* reason;
  } cases[] = {
      {ring::kCountersFailed, ring::kCallEnable, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
       "not permitted"},
      {ring::kCountersFailed, ring::kCallEnable, CUPTI_ERROR_HARDWARE_BUSY, "busy: another tool"},
      {ring::kCountersFailed, ring::kCallProfilerInitialize, CUPTI_ERROR_NOT_SUPPORTED,
       "not supported on this GPU"},
      {ring::kCountersFailed, ring::kCallSetConfig, CUPTI_ERROR_INVALID_PARAMETER,
       "failed at cuptiPmSamplingSetConfig: CUPTI_ERROR_INVALID_PARAMETER (1)"},
      {ring::kCountersFailed, ring::kCallSetConfig, CUPTI_ERROR_NOT_SUPPORTED,
       "cuptiPmSamplingSetConfig: CUPTI_ERROR_NOT_SUPPORTED (27): each metric set brrr knows (4) "
       "needs more than one pass on this GPU"},
      {ring::kCountersFailed, ring::kCallConfig, CUPTI_ERROR_INVALID_METRIC_NAME,
       "(cuptiProfilerHostGetConfigImage): CUPTI_ERROR_INVALID_METRIC_NAME"},
      {ring::kCountersFailed, 77, CUPTI_ERROR_UNKNOWN, "an unknown call: CUPTI_ERROR_UNKNOWN (999)"},
      {ring::kCountersFailed, ring::kCallDecode, static_cast<CUptiResult>(4242),
       "decoding (cuptiPmSamplingDecodeData): CUPTI error 4242"},
      {ring::kCountersNoLibrary, 0, CUPTI_SUCCESS, "this libcupti has no PM sampling"},
      {ring::kCountersWaiting, 0, CUPTI_SUCCESS, "sampling never started"},
      {ring::kCountersDone, 0, CUPTI_SUCCESS, "no PM sample saw the GPU busy (0 samples)"},
      {12345, 0, CUPTI_SUCCESS, "damaged (state 12345)"},
  };
  for (const auto& c : cases) {
    auto h = Header();
    h->counters_state.store(c.state);
    h->counters_failed_call.store(c.call);
    h->counters_result.store(static_cast<int32_t>(c.result));
    const CounterOutcome o = OutcomeOf(ReadCounterTable(*h));
    EXPECT_FALSE(o.measured.has_value()) << c.reason;
    EXPECT_THAT(o.unavailable, HasSubstr(c.reason));
    EXPECT_TRUE(o.shim_sampled);
  }
  auto off = Header();
  const CounterOutcome o = OutcomeOf(ReadCounterTable(*off));
  EXPECT_FALSE(o.shim_sampled);
  EXPECT_EQ(o.unavailable, "");
}

TEST(CounterTableTest, DamagedTableIsClampedAndChecked) {
  auto h = Header();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t i = 0; i < ring::kMaxCounterSamples; ++i) Put(*h, i, 0, 0, 90, 90, 100);  // empty
  Put(*h, 0, 10, 5, 90, 90, 100);                  // end before start
  Put(*h, 1, 0, uint64_t{1} << 60, 90, 90, 100);   // a span of years
  Put(*h, 2, 0, 1000, 90, 90, 100, /*merged=*/0);  // stands for no sample
  Put(*h, 3, 0, 1000, nan, 90, 100);               // not a number: skipped by the decoder
  Put(*h, 4, ~uint64_t{0} - 2000, ~uint64_t{0} - 1000, 40, 60,
      100);                                     // high bits: kept, no overflow
  h->counters_sample_count.store(0xFFFFFFFFu);  // far beyond the table
  h->counters_state.store(ring::kCountersSampling);
  const CounterTable t = ReadCounterTable(*h);
  EXPECT_EQ(t.samples.size() + t.skipped, ring::kMaxCounterSamples);
  EXPECT_EQ(t.samples.size(), 2u);  // slots 3 and 4
  const CounterOutcome o = OutcomeOf(t);
  ASSERT_TRUE(o.measured.has_value());
  EXPECT_NEAR(o.measured->sm_pct, 40.0, 1e-9);
  EXPECT_NEAR(o.measured->dram_pct, 60.0, 1e-9);
  EXPECT_GT(t.samples[1].end_ns, t.samples[1].start_ns);
}

}  // namespace
TEST(CounterTableTest, TheSampledMetricSetIsNamedOnlyWhenTheShimSaysWhichItWas) {
  auto h = Header();
  h->counters_state.store(ring::kCountersDone);
  EXPECT_EQ(OutcomeOf(ReadCounterTable(*h)).metrics, "");  // 0: not said (an older shim)
  h->counters_metric_plan.store(1);
  const std::string first = OutcomeOf(ReadCounterTable(*h)).metrics;
  EXPECT_THAT(first, HasSubstr("sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed, "));
  EXPECT_THAT(first, HasSubstr("gpu__dram_throughput"));
  h->counters_metric_plan.store(2);
  EXPECT_THAT(OutcomeOf(ReadCounterTable(*h)).metrics, HasSubstr("dramc__write_throughput"));
  h->counters_metric_plan.store(4);
  EXPECT_THAT(OutcomeOf(ReadCounterTable(*h)).metrics, HasSubstr("(sm__throughput.avg"));
  for (uint32_t bad : {5u, 0xFFFFFFFFu}) {
    h->counters_metric_plan.store(bad);
    EXPECT_EQ(OutcomeOf(ReadCounterTable(*h)).metrics, "") << bad;
  }
}

}  // namespace brrr::counters
