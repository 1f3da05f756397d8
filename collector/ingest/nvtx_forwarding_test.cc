// The EventSink decorators between the reader and the analysis (MapsTrackingSink, TraceRecorder)
// forward NVTX events unchanged: without it the analysis would never see a phase. The recorder also
// keeps them in the trace.
#include <gtest/gtest.h>

#include "collector/symbolize/maps_tracking_sink.h"
#include "collector/symbolize/process_maps.h"
#include "collector/ingest/testing/recording_sink.h"
#include "collector/ingest/trace_recorder.h"

namespace brrr::ingest {
namespace {

NvtxEvent Sample() {
  NvtxEvent e;
  e.op = ring::NvtxOp::kStart;
  e.tid = 42;
  e.time_ns = 123'456;
  e.message = "load";
  e.domain = "data";
  e.range_id = 7;
  return e;
}

void ExpectSample(const testing::RecordingSink& sink) {
  ASSERT_EQ(sink.nvtx.size(), 1u);
  const NvtxEvent& e = sink.nvtx[0];
  EXPECT_EQ(e.op, ring::NvtxOp::kStart);
  EXPECT_EQ(e.tid, 42u);
  EXPECT_EQ(e.time_ns, 123'456);
  EXPECT_EQ(e.message, "load");
  EXPECT_EQ(e.domain, "data");
  EXPECT_EQ(e.range_id, 7u);
}

TEST(NvtxForwardingTest, MapsTrackingSinkForwardsNvtxEvents) {
  testing::RecordingSink inner;
  symbolize::ProcessMaps maps;
  symbolize::MapsTrackingSink sink(&inner, &maps, 1);
  sink.OnNvtx(Sample());
  ExpectSample(inner);
}

TEST(NvtxForwardingTest, TraceRecorderForwardsNvtxEventsAndKeepsThemInTheTrace) {
  testing::RecordingSink inner;
  TraceRecorder recorder(&inner, /*cap=*/10, /*app_pid=*/1);
  recorder.OnNvtx(Sample());
  ExpectSample(inner);
  ASSERT_EQ(recorder.trace().kept(), 1u);
  const TraceNvtx& kept = recorder.trace().nvtx[0];
  EXPECT_EQ(kept.op, 3);  // start
  EXPECT_EQ(kept.range_id, 7u);
  EXPECT_EQ(recorder.trace().names.at(kept.message_index), "load");
  EXPECT_EQ(recorder.trace().names.at(kept.domain_index), "data");
}

}  // namespace
}  // namespace brrr::ingest
