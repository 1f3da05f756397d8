// Tests of the reader's decoding of NVTX records (ring::kRecordNvtx): each op becomes an NvtxEvent
// in order with the thread's calls, never a HostCall; names and domains come from the name table;
// damaged records (unknown op, name ids beyond the table or 32 bits) are skipped or emptied and
// counted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "collector/ingest/segment_reader.h"
#include "collector/ingest/testing/recording_sink.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using ::testing::HasSubstr;
using testing::MakeHostRecord;
using testing::RecordingSink;
using testing::TestSegment;

ring::HostRecord Nvtx(ring::NvtxOp op, uint64_t time, uint64_t message, uint64_t domain,
                      uint64_t range_id) {
  ring::HostRecord r = MakeHostRecord(ring::Api::kUnknown, time, time);
  r.api = static_cast<uint16_t>(op);
  r.flags = ring::kRecordNvtx;
  r.target = message;
  r.stream = domain;
  r.bytes = range_id;
  return r;
}

std::unique_ptr<SegmentReader> OpenOrDie(TestSegment& seg) {
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

TEST(SegmentReaderNvtxTest, DecodesEveryOpInOrderWithTheThreadsCalls) {
  TestSegment seg;
  const uint32_t step = seg.AddName("step");
  const uint32_t fwd = seg.AddName("fwd");
  const uint32_t domain = seg.AddName("megatron");
  seg.ActivateThread(0, 77, 0xabc);
  ASSERT_TRUE(seg.AppendHost(0, Nvtx(ring::NvtxOp::kPush, 1'000, step, 0, 0)));
  ASSERT_TRUE(seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaLaunchKernel, 1'100, 1'200)));
  ASSERT_TRUE(seg.AppendHost(0, Nvtx(ring::NvtxOp::kStart, 1'300, fwd, domain, 42)));
  ASSERT_TRUE(seg.AppendHost(0, Nvtx(ring::NvtxOp::kMark, 1'400, fwd, 0, 0)));
  ASSERT_TRUE(seg.AppendHost(0, Nvtx(ring::NvtxOp::kEnd, 1'500, 0, domain, 42)));
  // range_id on a pop is meaningless: it is reported as 0.
  ASSERT_TRUE(seg.AppendHost(0, Nvtx(ring::NvtxOp::kPop, 1'600, 0, 0, 7)));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  const DrainResult result = reader->Drain(sink);
  EXPECT_EQ(sink.order, "NHNNNN");
  ASSERT_EQ(sink.calls.size(), 1u);
  ASSERT_EQ(sink.nvtx.size(), 5u);
  const NvtxEvent& push = sink.nvtx[0];
  EXPECT_EQ(push.op, ring::NvtxOp::kPush);
  EXPECT_EQ(push.tid, 77u);
  EXPECT_EQ(push.time_ns, 1'000);
  EXPECT_EQ(push.message, "step");
  EXPECT_EQ(push.domain, "");
  EXPECT_EQ(push.range_id, 0u);
  const NvtxEvent& start = sink.nvtx[1];
  EXPECT_EQ(start.op, ring::NvtxOp::kStart);
  EXPECT_EQ(start.message, "fwd");
  EXPECT_EQ(start.domain, "megatron");
  EXPECT_EQ(start.range_id, 42u);
  EXPECT_EQ(sink.nvtx[2].op, ring::NvtxOp::kMark);
  EXPECT_EQ(sink.nvtx[2].domain, "");
  EXPECT_EQ(sink.nvtx[3].op, ring::NvtxOp::kEnd);
  EXPECT_EQ(sink.nvtx[3].message, "");
  EXPECT_EQ(sink.nvtx[3].range_id, 42u);
  EXPECT_EQ(sink.nvtx[3].time_ns, 1'500);
  EXPECT_EQ(sink.nvtx[4].op, ring::NvtxOp::kPop);
  EXPECT_EQ(sink.nvtx[4].range_id, 0u);
  // NVTX records are drained (ring accounting) but are not host calls.
  EXPECT_EQ(result.host_records, 6u);
  EXPECT_EQ(reader->ReadRunInfo().host_records, 1u);
  EXPECT_EQ(reader->stats().Damage(), 0u);
}

TEST(SegmentReaderNvtxTest, UnknownOpIsSkippedAndCounted) {
  TestSegment seg;
  const uint32_t step = seg.AddName("step");
  seg.ActivateThread(0, 1, 1);
  ring::HostRecord zero = Nvtx(ring::NvtxOp::kPush, 10, step, 0, 0);
  zero.api = 0;
  ring::HostRecord six = Nvtx(ring::NvtxOp::kPush, 20, step, 0, 0);
  six.api = 6;
  ring::HostRecord huge = Nvtx(ring::NvtxOp::kPush, 30, step, 0, 0);
  huge.api = 0xffff;
  seg.AppendHost(0, zero);
  seg.AppendHost(0, six);
  seg.AppendHost(0, huge);
  seg.AppendHost(0, Nvtx(ring::NvtxOp::kPop, 40, 0, 0, 0));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.nvtx.size(), 1u);
  EXPECT_EQ(sink.nvtx[0].op, ring::NvtxOp::kPop);
  EXPECT_TRUE(sink.calls.empty()) << "an NVTX record with a bad op must not become a call";
  EXPECT_EQ(reader->stats().bad_nvtx_ops, 3u);
  EXPECT_EQ(reader->stats().unknown_api, 0u);
  EXPECT_THAT(reader->stats().ToString(), HasSubstr("bad_nvtx_ops=3"));
}

TEST(SegmentReaderNvtxTest, BadNameIdsGiveEmptyNamesAndAreCounted) {
  TestSegment seg;
  seg.AddName("step");
  const uint32_t not_ready = seg.AddName("later", /*ready=*/false);
  seg.ActivateThread(0, 1, 1);
  seg.AppendHost(0, Nvtx(ring::NvtxOp::kPush, 10, 5000, 0, 0));              // beyond the table
  seg.AppendHost(0, Nvtx(ring::NvtxOp::kPush, 20, (1ull << 32) + 1, 0, 0));  // beyond 32 bits
  seg.AppendHost(0, Nvtx(ring::NvtxOp::kPush, 30, 1, 1ull << 40, 0));        // domain id damaged
  seg.AppendHost(0, Nvtx(ring::NvtxOp::kPush, 40, not_ready, 0, 0));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.nvtx.size(), 4u);
  EXPECT_EQ(sink.nvtx[0].message, "");
  EXPECT_EQ(sink.nvtx[1].message, "");
  EXPECT_EQ(sink.nvtx[2].message, "step");
  EXPECT_EQ(sink.nvtx[2].domain, "");
  EXPECT_EQ(sink.nvtx[3].message, "") << "a slot not yet ready is not read";
  EXPECT_EQ(reader->stats().bad_name_ids, 3u);
}

}  // namespace
}  // namespace brrr::ingest
