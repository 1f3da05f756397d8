// Tests of the reader's decoding of streamed counter samples (ring::DeviceKind::kCounterSample):
// the once-only announcement that counters were asked for, values from milli-percent (unknown and
// damaged ones NaN, the damaged counted), and the times put on CLOCK_MONOTONIC through the
// sampler's clock pair, or left raw and marked unaligned when no basis fits.
#include <gtest/gtest.h>

#include <cmath>

#include "collector/ingest/clock_pair.h"
#include "collector/ingest/counter_clock.h"
#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/recording_sink.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using testing::RecordingSink;
using testing::TestSegment;

constexpr uint64_t kRealtimeAhead = 1'000'000'000'000'000'000ull;  // realtime = mono + 10^18

ring::DeviceRecord Sample(uint64_t start, uint64_t end, uint32_t sm, uint32_t dram,
                          uint32_t active, uint64_t number) {
  ring::DeviceRecord r{};
  r.kind = static_cast<uint8_t>(ring::DeviceKind::kCounterSample);
  r.start = start;
  r.end = end;
  r.correlation_id = sm;
  r.stream_id = dram;
  r.thread_id = active;
  r.bytes = number;
  return r;
}

std::unique_ptr<SegmentReader> OpenOrDie(TestSegment& seg) {
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

TEST(SegmentReaderCountersTest, RealtimeSamplesArePutOnTheMonotonicClock) {
  TestSegment seg;
  const uint64_t mono = static_cast<uint64_t>(MonotonicNowNs());
  seg.header().counters_state.store(ring::kCountersSampling);
  seg.header().counters_clock_realtime_ns = mono + kRealtimeAhead;
  seg.header().counters_clock_mono_ns = mono;
  // 2 ms after the pair on the realtime clock: SM 62.5 %, DRAM 0.001 %, active unknown.
  ASSERT_TRUE(seg.AppendDevice(Sample(mono + kRealtimeAhead + 2'000'000,
                                      mono + kRealtimeAhead + 3'000'000, 62'500, 1,
                                      ring::kCounterValueUnknown, 0)));
  ring::DeviceRecord kernel{};
  kernel.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  kernel.start = mono;
  kernel.end = mono + 10;
  ASSERT_TRUE(seg.AppendDevice(kernel));
  // Damaged: SM past 1000 % (unknown, counted), end before start (clamped, counted).
  ring::DeviceRecord damaged = Sample(mono + kRealtimeAhead + 5'000'000,
                                     mono + kRealtimeAhead + 4'000'000,
                                     ring::kMaxCounterMilliPct + 1, 2'000, 100'000, 1);
  damaged.device_id = 3;  // the device sampled passes through
  ASSERT_TRUE(seg.AppendDevice(damaged));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  reader->Drain(sink);  // the announcement is made once
  EXPECT_EQ(sink.order, "RCDC");
  ASSERT_EQ(sink.samples.size(), 2u);
  const CounterSampleEvent& a = sink.samples[0];
  EXPECT_TRUE(a.aligned);
  EXPECT_EQ(a.clock_basis, CounterClockBasis::kRealtime);
  EXPECT_EQ(a.start_ns, static_cast<int64_t>(mono) + 2'000'000);
  EXPECT_EQ(a.end_ns, static_cast<int64_t>(mono) + 3'000'000);
  EXPECT_DOUBLE_EQ(a.sm_pct, 62.5);
  EXPECT_DOUBLE_EQ(a.dram_pct, 0.001);
  EXPECT_TRUE(std::isnan(a.active_pct));
  const CounterSampleEvent& b = sink.samples[1];
  EXPECT_TRUE(std::isnan(b.sm_pct));
  EXPECT_DOUBLE_EQ(b.dram_pct, 2.0);
  EXPECT_DOUBLE_EQ(b.active_pct, 100.0);
  EXPECT_EQ(b.number, 1u);
  EXPECT_EQ(a.device_id, 0u);
  EXPECT_EQ(b.device_id, 3u);
  EXPECT_EQ(b.start_ns, static_cast<int64_t>(mono) + 5'000'000);
  EXPECT_EQ(b.end_ns, b.start_ns);
  EXPECT_EQ(reader->stats().bad_counter_values, 1u);
  EXPECT_EQ(reader->stats().bad_timestamps, 1u);
  EXPECT_EQ(reader->stats().bad_enum_values, 0u);
}

TEST(SegmentReaderCountersTest, SamplesOnNoKnownClockStayRawAndUnaligned) {
  TestSegment seg;
  const uint64_t mono = static_cast<uint64_t>(MonotonicNowNs());
  seg.header().counters_state.store(ring::kCountersDone);
  seg.header().counters_clock_realtime_ns = mono + kRealtimeAhead;
  seg.header().counters_clock_mono_ns = mono;
  // A timer starting at 1 s (the pair says realtime and monotonic are far from it).
  ASSERT_TRUE(seg.AppendDevice(Sample(1'000'000'000, 1'001'000'000, 50'000, 50'000, 50'000, 0)));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.samples.size(), 1u);
  EXPECT_FALSE(sink.samples[0].aligned);
  EXPECT_EQ(sink.samples[0].clock_basis, CounterClockBasis::kUndecided);
  EXPECT_EQ(sink.samples[0].start_ns, 1'000'000'000);
}

TEST(SegmentReaderCountersTest, WithoutCountersNothingIsAnnounced) {
  TestSegment seg;
  ring::DeviceRecord kernel{};
  kernel.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  kernel.start = 1'000;
  kernel.end = 2'000;
  ASSERT_TRUE(seg.AppendDevice(kernel));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  EXPECT_EQ(sink.order, "D");
}

}  // namespace
}  // namespace brrr::ingest
