// Tests of the untrusted segment reader over segments built in plain memory by the test writer:
// correct decoding of every record kind, stacks and names, clock conversion, drop and loss
// accounting, ring reuse, and rejection or clamping of damaged headers, indices and fields.
#include "collector/ingest/segment_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "collector/ingest/clock_pair.h"
#include "collector/ingest/testing/recording_sink.h"
#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeHostRecord;
using testing::RecordingSink;
using testing::TestSegment;

std::unique_ptr<SegmentReader> OpenOrDie(TestSegment& seg) {
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

TEST(SegmentReaderTest, DecodesHostRecordsWithThreadAndStack) {
  TestSegment seg;
  const uint32_t stack = seg.AddStack({0x1111, 0x2222});
  seg.ActivateThread(1, 77, 0xabc);
  ring::HostRecord r = MakeHostRecord(ring::Api::kCudaMemcpyAsync, 5'000, 7'000);
  r.stream = 0x55;
  r.bytes = 4096;
  r.target = 0x99;
  r.copy_kind = static_cast<uint8_t>(ring::CopyKind::kDtoH);
  r.host_memory = static_cast<uint8_t>(ring::HostMemory::kPageable);
  r.flags = ring::kRecordLegacyStream;
  r.result = 3;
  r.stack_id = stack;
  ASSERT_TRUE(seg.AppendHost(1, r));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  const DrainResult result = reader->Drain(sink);
  EXPECT_EQ(result.host_records, 1u);
  ASSERT_EQ(sink.calls.size(), 1u);
  const HostCall& c = sink.calls[0];
  EXPECT_EQ(c.api, ring::Api::kCudaMemcpyAsync);
  EXPECT_EQ(c.tid, 77u);
  EXPECT_EQ(c.pthread_id, 0xabcu);
  EXPECT_EQ(c.enter_ns, 5'000);
  EXPECT_EQ(c.exit_ns, 7'000);
  EXPECT_EQ(c.stream, 0x55u);
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.target, 0x99u);
  EXPECT_EQ(c.copy_kind, ring::CopyKind::kDtoH);
  EXPECT_EQ(c.host_memory, ring::HostMemory::kPageable);
  EXPECT_EQ(c.flags, ring::kRecordLegacyStream);
  EXPECT_EQ(c.result, 3);
  ASSERT_EQ(sink.stacks.size(), 1u);
  EXPECT_EQ(sink.stacks[0].id, c.stack_id);
  EXPECT_THAT(sink.stacks[0].pcs, ElementsAre(0x1111, 0x2222));
  EXPECT_EQ(sink.order.front(), 'S') << "a stack is emitted before the call that uses it";
  ASSERT_NE(reader->stacks().Pcs(c.stack_id), nullptr);
  EXPECT_EQ(reader->stats().Damage(), 0u);
}

TEST(SegmentReaderTest, DecodesCallbackRecordsAsCallsNamedByCbid) {
  TestSegment seg;
  seg.ActivateThread(0, 77, 0xabc);
  ring::HostRecord driver = MakeHostRecord(ring::Api::kUnknown, 5'000, 7'000);
  driver.flags = ring::kRecordFromCallback | ring::kRecordDriverApi;
  driver.target = 307;  // cuLaunchKernel
  driver.correlation_id = 42;
  ring::HostRecord runtime = MakeHostRecord(ring::Api::kUnknown, 8'000, 9'000);
  runtime.flags = ring::kRecordFromCallback;
  runtime.target = 131;  // cudaStreamSynchronize
  runtime.correlation_id = 43;
  ring::HostRecord hooked = MakeHostRecord(ring::Api::kCudaMemcpy, 10'000, 11'000);
  hooked.correlation_id = 44;  // ignored without the callback flag or kRecordCorrelationFromDriver
  ring::HostRecord hooked_with_id = MakeHostRecord(ring::Api::kCudaLaunchKernel, 12'000, 13'000);
  hooked_with_id.flags = ring::kRecordCorrelationFromDriver;
  hooked_with_id.correlation_id = 45;
  ASSERT_TRUE(seg.AppendHost(0, driver));
  ASSERT_TRUE(seg.AppendHost(0, runtime));
  ASSERT_TRUE(seg.AppendHost(0, hooked));
  ASSERT_TRUE(seg.AppendHost(0, hooked_with_id));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 4u);
  EXPECT_EQ(sink.calls[3].source, CallSource::kHook);
  EXPECT_EQ(sink.calls[3].api, ring::Api::kCudaLaunchKernel);
  EXPECT_EQ(sink.calls[3].correlation_id, 45u);
  EXPECT_EQ(sink.calls[0].source, CallSource::kCuptiCallback);
  EXPECT_TRUE(sink.calls[0].driver);
  EXPECT_EQ(sink.calls[0].cbid, 307u);
  EXPECT_EQ(sink.calls[0].correlation_id, 42u);
  EXPECT_EQ(sink.calls[0].api, ring::Api::kUnknown);
  EXPECT_EQ(sink.calls[0].target, 0u);
  EXPECT_FALSE(sink.calls[1].driver);
  EXPECT_EQ(sink.calls[1].cbid, 131u);
  EXPECT_EQ(sink.calls[2].source, CallSource::kHook);
  EXPECT_EQ(sink.calls[2].correlation_id, 0u);
  EXPECT_EQ(reader->stats().Damage(), 0u);  // api 0 of a callback record is not damage
}

TEST(SegmentReaderTest, EachStackIsEmittedOnceAndIdenticalStacksShareAnId) {
  TestSegment seg;
  const uint32_t a = seg.AddStack({1, 2, 3});
  const uint32_t b = seg.AddStack({1, 2, 3});  // same content, another slot
  const uint32_t c = seg.AddStack({4});
  seg.ActivateThread(0, 1, 1);
  for (uint32_t id : {a, b, c, a, c}) {
    ring::HostRecord r = MakeHostRecord(ring::Api::kCudaMalloc, 1, 2);
    r.stack_id = id;
    seg.AppendHost(0, r);
  }
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 5u);
  EXPECT_EQ(sink.stacks.size(), 2u);
  EXPECT_EQ(sink.calls[0].stack_id, sink.calls[1].stack_id);
  EXPECT_NE(sink.calls[0].stack_id, sink.calls[2].stack_id);
  EXPECT_EQ(sink.calls[2].stack_id, sink.calls[4].stack_id);
}

TEST(SegmentReaderTest, StackNotYetReadyIsEmittedWhenItBecomesReady) {
  TestSegment seg;
  const uint32_t late = seg.AddStack({0xdead}, /*ready=*/false);
  seg.ActivateThread(0, 1, 1);
  ring::HostRecord r = MakeHostRecord(ring::Api::kCudaFree, 1, 2);
  r.stack_id = late;
  seg.AppendHost(0, r);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 1u);
  EXPECT_NE(sink.calls[0].stack_id, 0u);
  EXPECT_TRUE(sink.stacks.empty());
  seg.MakeStackReady(late);
  reader->Drain(sink);
  ASSERT_EQ(sink.stacks.size(), 1u);
  EXPECT_EQ(sink.stacks[0].id, sink.calls[0].stack_id);
  EXPECT_THAT(sink.stacks[0].pcs, ElementsAre(0xdead));
}

TEST(SegmentReaderTest, DecodesEveryDeviceRecordKind) {
  TestSegment seg;
  const uint32_t name = seg.AddName("_Z6kernelPf");
  ring::DeviceRecord k{};
  k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  k.start = 100;
  k.end = 200;
  k.queued = 50;
  k.submitted = 60;
  k.correlation_id = 7;
  k.stream_id = 13;
  k.device_id = 1;
  k.name_id = name;
  ring::DeviceRecord m{};
  m.kind = static_cast<uint8_t>(ring::DeviceKind::kMemcpy);
  m.start = 300;
  m.end = 400;
  m.bytes = 1 << 20;
  m.copy_kind = 2;
  m.src_kind = 1;
  m.dst_kind = 3;
  ring::DeviceRecord s{};
  s.kind = static_cast<uint8_t>(ring::DeviceKind::kSynchronization);
  s.start = 500;
  s.end = 900;
  s.cbid = 3;
  s.correlation_id = 8;
  ring::DeviceRecord api{};
  api.kind = static_cast<uint8_t>(ring::DeviceKind::kDriverApi);
  api.start = 10;
  api.end = 20;
  api.thread_id = 1234;
  api.cbid = 307;
  api.result = 1;
  api.correlation_id = 9;
  ring::DeviceRecord overhead{};
  overhead.kind = static_cast<uint8_t>(ring::DeviceKind::kOverhead);
  for (const auto& d : {k, m, s, api, overhead}) ASSERT_TRUE(seg.AppendDevice(d));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  EXPECT_EQ(reader->Drain(sink).device_records, 5u);
  ASSERT_EQ(sink.ops.size(), 2u);
  EXPECT_EQ(sink.ops[0].kind, DeviceOpKind::kKernel);
  EXPECT_EQ(sink.ops[0].name, "_Z6kernelPf");
  EXPECT_EQ(sink.ops[0].start_ns, 100);
  EXPECT_EQ(sink.ops[0].end_ns, 200);
  EXPECT_EQ(sink.ops[0].queued_ns, 50);
  EXPECT_EQ(sink.ops[0].submitted_ns, 60);
  EXPECT_EQ(sink.ops[0].correlation_id, 7u);
  EXPECT_EQ(sink.ops[0].stream_id, 13u);
  EXPECT_EQ(sink.ops[0].device_id, 1u);
  EXPECT_EQ(sink.ops[1].kind, DeviceOpKind::kMemcpy);
  EXPECT_EQ(sink.ops[1].bytes, 1u << 20);
  EXPECT_EQ(sink.ops[1].copy_kind, 2);
  EXPECT_EQ(sink.ops[1].src_kind, 1);
  EXPECT_EQ(sink.ops[1].dst_kind, 3);
  EXPECT_TRUE(sink.ops[1].name.empty());
  ASSERT_EQ(sink.syncs.size(), 1u);
  EXPECT_EQ(sink.syncs[0].type, 3u);
  EXPECT_EQ(sink.syncs[0].correlation_id, 8u);
  EXPECT_EQ(sink.syncs[0].end_ns, 900);
  ASSERT_EQ(sink.apis.size(), 1u);
  EXPECT_TRUE(sink.apis[0].driver);
  EXPECT_EQ(sink.apis[0].thread_id, 1234u);
  EXPECT_EQ(sink.apis[0].cbid, 307u);
  EXPECT_EQ(sink.apis[0].result, 1);
  EXPECT_EQ(sink.apis[0].correlation_id, 9u);
  EXPECT_EQ(reader->ReadRunInfo().device_records, 5u);
}

TEST(SegmentReaderTest, TscTimestampsBecomeMonotonicNanoseconds) {
  TestSegment seg(testing::SmallGeometry(), ring::ClockKind::kTsc);
  auto reader = SegmentReader::Open(seg.base(), seg.size());  // real calibration gap
  ASSERT_TRUE(reader.ok());
  seg.ActivateThread(0, 1, 1);
  const int64_t before = MonotonicNowNs();
  const uint64_t enter = ReadTsc();
  const int64_t middle = MonotonicNowNs();
  const uint64_t exit = ReadTsc();
  const int64_t after = MonotonicNowNs();
  seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaStreamSynchronize, enter, exit));
  RecordingSink sink;
  (*reader)->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 1u);
  // Generous tolerance for a loaded machine; the fit itself is tested in clock_fit_test.
  constexpr int64_t kTolerance = 20'000;
  EXPECT_GE(sink.calls[0].enter_ns, before - kTolerance);
  EXPECT_LE(sink.calls[0].enter_ns, middle + kTolerance);
  EXPECT_GE(sink.calls[0].exit_ns, middle - kTolerance);
  EXPECT_LE(sink.calls[0].exit_ns, after + kTolerance);
}

// HostRecord.capture_ticks: brrr's time after the call, in the host clock's units, becomes ns; a
// value that would run past the clock's range is dropped, not trusted.
TEST(SegmentReaderTest, CaptureTicksBecomeTheCallsCaptureTime) {
  TestSegment seg;
  seg.ActivateThread(0, 1, 1);
  ring::HostRecord timed = MakeHostRecord(ring::Api::kCudaStreamSynchronize, 1'000, 5'000);
  timed.capture_ticks = 30'000;
  seg.AppendHost(0, timed);
  seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaLaunchKernel, 40'000, 41'000));
  ring::HostRecord damaged = MakeHostRecord(ring::Api::kCudaLaunchKernel, 50'000, UINT64_MAX - 5);
  damaged.capture_ticks = UINT32_MAX;
  seg.AppendHost(0, damaged);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0].exit_ns, 5'000);
  EXPECT_EQ(sink.calls[0].capture_ns, 30'000);
  EXPECT_EQ(sink.calls[1].capture_ns, 0);
  EXPECT_EQ(sink.calls[2].capture_ns, 0);
}

TEST(SegmentReaderTest, FullRingDropsAreCountedWithRecords) {
  TestSegment seg;
  seg.ActivateThread(0, 1, 1);
  const uint32_t capacity = seg.geometry().ring_capacity;
  int appended = 0;
  for (uint32_t i = 0; i < capacity + 5; ++i) {
    appended += seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaLaunchKernel, i, i + 1));
  }
  EXPECT_EQ(appended, static_cast<int>(capacity));
  seg.header().threads_overflow_dropped.store(3);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  const RunInfo info = reader->ReadRunInfo();
  EXPECT_EQ(info.host_records, capacity);
  EXPECT_EQ(info.host_dropped, 5u + 3u);
  EXPECT_EQ(sink.calls.size(), capacity);
}

TEST(SegmentReaderTest, RetiredRingIsFreedAndReusedByTheNextThread) {
  TestSegment seg;
  seg.ActivateThread(0, 10, 100);
  seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaMalloc, 1, 2));
  seg.RetireThread(0);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  EXPECT_EQ(seg.thread_ring(0)->state.load(), static_cast<uint32_t>(ring::RingState::kFree));
  seg.ActivateThread(0, 11, 101);
  seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaFree, 3, 4));
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 2u);
  EXPECT_EQ(sink.calls[0].tid, 10u);
  EXPECT_EQ(sink.calls[1].tid, 11u);
  EXPECT_EQ(sink.calls[1].api, ring::Api::kCudaFree);
  EXPECT_EQ(reader->stats().Damage(), 0u);
}

TEST(SegmentReaderTest, WriteIndexTooFarAheadIsResynchronizedAndCountedAsLost) {
  TestSegment seg;
  seg.ActivateThread(0, 1, 1);
  const uint32_t capacity = seg.geometry().ring_capacity;
  seg.thread_ring(0)->write_index.store(capacity + 5);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  EXPECT_EQ(reader->Drain(sink).host_records, 0u);
  EXPECT_TRUE(sink.calls.empty());
  EXPECT_EQ(reader->stats().index_corruptions, 1u);
  EXPECT_EQ(reader->ReadRunInfo().host_dropped, capacity + 5);
  // Writing continues from the resynchronized index.
  seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaMalloc, 1, 2));
  reader->Drain(sink);
  EXPECT_EQ(sink.calls.size(), 1u);
}

TEST(SegmentReaderTest, WriteIndexGoingBackwardsIsCountedAndNothingIsRead) {
  TestSegment seg;
  seg.ActivateThread(0, 1, 1);
  for (int i = 0; i < 4; ++i) seg.AppendHost(0, MakeHostRecord(ring::Api::kCudaMalloc, 1, 2));
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  seg.thread_ring(0)->write_index.store(1);
  reader->Drain(sink);
  EXPECT_EQ(sink.calls.size(), 4u);
  EXPECT_EQ(reader->stats().index_corruptions, 1u);
}

TEST(SegmentReaderTest, OutOfRangeFieldsAreClampedAndCounted) {
  TestSegment seg;
  seg.ActivateThread(0, 1, 1);
  ring::HostRecord r = MakeHostRecord(ring::Api::kCudaMalloc, 50, 10);  // exit before enter
  r.api = 11;                                                           // a gap in the enum
  r.copy_kind = 200;
  r.host_memory = 9;
  r.stack_id = 1000;  // beyond the table
  seg.AppendHost(0, r);
  ring::DeviceRecord d{};
  d.kind = 99;
  seg.AppendDevice(d);
  ring::DeviceRecord k{};
  k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  k.name_id = 5000;
  k.start = 10;
  k.end = 5;
  seg.AppendDevice(k);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.calls.size(), 1u);
  EXPECT_EQ(sink.calls[0].api, ring::Api::kUnknown);
  EXPECT_EQ(sink.calls[0].exit_ns, sink.calls[0].enter_ns);
  EXPECT_EQ(sink.calls[0].copy_kind, ring::CopyKind::kNone);
  EXPECT_EQ(sink.calls[0].host_memory, ring::HostMemory::kUnknown);
  EXPECT_EQ(sink.calls[0].stack_id, 0u);
  ASSERT_EQ(sink.ops.size(), 1u);
  EXPECT_TRUE(sink.ops[0].name.empty());
  EXPECT_EQ(sink.ops[0].end_ns, sink.ops[0].start_ns);
  const ReaderStats& s = reader->stats();
  EXPECT_EQ(s.unknown_api, 1u);
  EXPECT_EQ(s.bad_enum_values, 3u);  // copy kind, host memory, device kind
  EXPECT_EQ(s.bad_timestamps, 2u);
  EXPECT_EQ(s.bad_stack_ids, 1u);
  EXPECT_EQ(s.bad_name_ids, 1u);
  EXPECT_THAT(s.ToString(), HasSubstr("unknown_api=1"));
}

// CUPTI's marker for work it could not time (a forced flush hands back a kernel still running with
// a zero end; the docs give 0 for both when no timing could be collected): the op is passed on
// untimed, with no times, and is not counted as damage. An API record ending before it started
// still is.
TEST(SegmentReaderTest, DeviceWorkWithoutTimestampsIsUntimedNotDamage) {
  TestSegment seg;
  const auto op = [](ring::DeviceKind kind, uint64_t start, uint64_t end) {
    ring::DeviceRecord r{};
    r.kind = static_cast<uint8_t>(kind);
    r.start = start;
    r.end = end;
    r.correlation_id = 7;
    return r;
  };
  seg.AppendDevice(op(ring::DeviceKind::kKernel, 0, 0));
  seg.AppendDevice(op(ring::DeviceKind::kKernel, 5'000, 0));  // started, still running
  seg.AppendDevice(op(ring::DeviceKind::kMemcpy, 0, 9'000));
  seg.AppendDevice(op(ring::DeviceKind::kMemset, 4'000, 4'500));  // timed
  ring::DeviceRecord api = op(ring::DeviceKind::kRuntimeApi, 6'000, 0);
  seg.AppendDevice(api);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.ops.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(sink.ops[i].untimed);
    EXPECT_EQ(sink.ops[i].start_ns, 0);
    EXPECT_EQ(sink.ops[i].end_ns, 0);
    EXPECT_EQ(sink.ops[i].correlation_id, 7u);
  }
  EXPECT_EQ(sink.ops[2].kind, DeviceOpKind::kMemcpy);
  EXPECT_FALSE(sink.ops[3].untimed);
  EXPECT_EQ(sink.ops[3].start_ns, 4'000);
  EXPECT_EQ(sink.ops[3].end_ns, 4'500);
  ASSERT_EQ(sink.apis.size(), 1u);
  EXPECT_EQ(sink.apis[0].end_ns, sink.apis[0].start_ns);  // clamped, as before
  EXPECT_EQ(reader->stats().bad_timestamps, 1u);          // the API record only
}

TEST(SegmentReaderTest, OverlongStackDepthAndNameLengthAreClamped) {
  TestSegment seg;
  const uint32_t stack = seg.AddStack({1, 2});
  ring::StackSlotsAt(seg.base(), seg.layout())[stack - 1].depth = 1000;
  const uint32_t name = seg.AddName("k");
  ring::NameSlot& slot = ring::NameSlotsAt(seg.base(), seg.layout())[name - 1];
  slot.length = 60000;
  std::memset(slot.text, '\n', sizeof(slot.text));
  seg.ActivateThread(0, 1, 1);
  ring::HostRecord r = MakeHostRecord(ring::Api::kCudaMalloc, 1, 2);
  r.stack_id = stack;
  seg.AppendHost(0, r);
  ring::DeviceRecord k{};
  k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
  k.name_id = name;
  seg.AppendDevice(k);
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ASSERT_EQ(sink.stacks.size(), 1u);
  EXPECT_EQ(sink.stacks[0].pcs.size(), ring::kMaxStackEntries);
  ASSERT_EQ(sink.ops.size(), 1u);
  EXPECT_EQ(sink.ops[0].name, std::string(ring::kMaxNameLength, '?'));
  EXPECT_EQ(reader->stats().bad_stack_depths, 1u);
  EXPECT_EQ(reader->stats().bad_name_lengths, 1u);
}

// The decoder keeps the previous kernel's name when the next has the same id: every kernel
// still gets its own name, a copy in between none, and a slot that was not ready yet its name
// once it is.
TEST(SegmentReaderTest, EachKernelGetsItsOwnNameAcrossRunsOfOneName) {
  ring::SegmentGeometry geometry = testing::SmallGeometry();
  geometry.device_capacity = 64;
  TestSegment seg(geometry);
  const uint32_t a = seg.AddName("_Z1av");
  const uint32_t b = seg.AddName("_Z1bv");
  const uint32_t late = seg.AddName("_Z4latev", /*ready=*/false);
  auto kernel = [](uint32_t name_id) {
    ring::DeviceRecord k{};
    k.kind = static_cast<uint8_t>(ring::DeviceKind::kKernel);
    k.start = 1;
    k.end = 2;
    k.name_id = name_id;
    return k;
  };
  ring::DeviceRecord copy{};
  copy.kind = static_cast<uint8_t>(ring::DeviceKind::kMemcpy);
  copy.start = 1;
  copy.end = 2;
  for (const auto& d : {kernel(a), kernel(a), kernel(b), copy, kernel(b), kernel(a), kernel(0),
                        kernel(a), kernel(late), kernel(late)}) {
    ASSERT_TRUE(seg.AppendDevice(d));
  }
  auto reader = OpenOrDie(seg);
  RecordingSink sink;
  reader->Drain(sink);
  ring::NameSlotsAt(seg.base(), seg.layout())[late - 1].ready.store(1);
  ASSERT_TRUE(seg.AppendDevice(kernel(late)));
  reader->Drain(sink);
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const DeviceOp& op : sink.ops) got.emplace_back(op.name, op.name_id);
  EXPECT_THAT(got, ElementsAre(std::pair<std::string, uint32_t>{"_Z1av", a},
                               std::pair<std::string, uint32_t>{"_Z1av", a},
                               std::pair<std::string, uint32_t>{"_Z1bv", b},
                               std::pair<std::string, uint32_t>{"", 0},
                               std::pair<std::string, uint32_t>{"_Z1bv", b},
                               std::pair<std::string, uint32_t>{"_Z1av", a},
                               std::pair<std::string, uint32_t>{"", 0},
                               std::pair<std::string, uint32_t>{"_Z1av", a},
                               std::pair<std::string, uint32_t>{"", 0},
                               std::pair<std::string, uint32_t>{"", 0},
                               std::pair<std::string, uint32_t>{"_Z4latev", late}));
}

TEST(SegmentReaderTest, ReadsRunInfoFromTheHeader) {
  TestSegment seg;
  ring::SegmentHeader& h = seg.header();
  const char command[] = "./app\0--flag\0x\0";
  std::memcpy(h.command, command, sizeof(command));
  h.flags = ring::kFlagHostOnly;
  h.host_only_reason = static_cast<uint32_t>(ring::HostOnlyReason::kCuptiBusy);
  h.exit_code.store(3);
  h.exit_code_valid.store(1);
  h.end_mono_ns.store(99'000);
  h.cupti_dropped.store(4);
  auto reader = OpenOrDie(seg);
  const RunInfo info = reader->ReadRunInfo();
  EXPECT_EQ(info.command, "./app --flag x");
  EXPECT_EQ(info.pid, 4242u);
  EXPECT_EQ(info.start_ns, 1'000);
  EXPECT_EQ(info.end_ns, 99'000);
  EXPECT_TRUE(info.exited_normally);
  EXPECT_EQ(info.exit_code, 3);
  EXPECT_TRUE(info.host_only);
  EXPECT_THAT(info.host_only_reason, HasSubstr("another tool"));
  EXPECT_EQ(info.device_dropped, 4u);
}

TEST(SegmentReaderTest, UnterminatedCommandStaysWithinTheField) {
  TestSegment seg;
  std::memset(seg.header().command, 'a', sizeof(seg.header().command));
  auto reader = OpenOrDie(seg);
  EXPECT_EQ(reader->ReadRunInfo().command.size(), sizeof(seg.header().command));
}

// PyTorch's labels: the texts count only once the state is final, and stay within their fields.
TEST(SegmentReaderTest, TorchAnnotationsAreReadOnlyWhenFinalAndBounded) {
  TestSegment seg;
  ring::SegmentHeader& h = seg.header();
  std::memcpy(h.torch_version, "2.11.0", 7);
  std::memset(h.torch_reason, 'r', sizeof(h.torch_reason));  // unterminated
  h.torch_annotations.store(static_cast<uint32_t>(ring::TorchAnnotations::kWriting));
  auto reader = OpenOrDie(seg);
  RunInfo info = reader->ReadRunInfo();
  EXPECT_EQ(info.torch_annotations, 0u);
  EXPECT_EQ(info.torch_version, "");
  h.torch_annotations.store(static_cast<uint32_t>(ring::TorchAnnotations::kUnsupported));
  info = reader->ReadRunInfo();
  EXPECT_EQ(info.torch_annotations, static_cast<uint32_t>(ring::TorchAnnotations::kUnsupported));
  EXPECT_EQ(info.torch_version, "2.11.0");
  EXPECT_EQ(info.torch_reason, std::string(sizeof(h.torch_reason), 'r'));
  h.torch_annotations.store(77);  // damage: not a state
  EXPECT_EQ(reader->ReadRunInfo().torch_annotations, 0u);
}

TEST(SegmentReaderTest, FinishedAndCollectorDoneFlags) {
  TestSegment seg;
  auto reader = OpenOrDie(seg);
  EXPECT_FALSE(reader->AppFinished());
  seg.header().finished.store(1);
  EXPECT_TRUE(reader->AppFinished());
  reader->MarkCollectorDone();
  EXPECT_EQ(seg.header().collector_done.load(), 1u);
}

struct HeaderDamage {
  const char* what;
  void (*apply)(ring::SegmentHeader&);
  const char* message;
};

class SegmentReaderHeaderTest : public ::testing::TestWithParam<HeaderDamage> {};

TEST_P(SegmentReaderHeaderTest, RejectsDamagedHeaderWithAClearError) {
  TestSegment seg;
  GetParam().apply(seg.header());
  auto reader = SegmentReader::Open(seg.base(), seg.size(), std::chrono::microseconds(0));
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Damage, SegmentReaderHeaderTest,
    ::testing::Values(
        HeaderDamage{"magic", [](ring::SegmentHeader& h) { h.magic = 1; }, "bad magic"},
        HeaderDamage{"version", [](ring::SegmentHeader& h) { h.version = ring::kVersion + 1; },
                     "version"},
        HeaderDamage{"record", [](ring::SegmentHeader& h) { h.record_size = 65; }, "record"},
        HeaderDamage{"header", [](ring::SegmentHeader& h) { h.header_size = 8; }, "record"},
        HeaderDamage{"capacity", [](ring::SegmentHeader& h) { h.ring_capacity = 12; }, "geometry"},
        HeaderDamage{"threads", [](ring::SegmentHeader& h) { h.max_threads = 0xffffffff; },
                     "geometry"},
        HeaderDamage{"offset", [](ring::SegmentHeader& h) { h.names_offset = ~0ull - 8; },
                     "offsets"},
        HeaderDamage{"size", [](ring::SegmentHeader& h) { h.segment_size *= 2; }, "offsets"}),
    [](const ::testing::TestParamInfo<HeaderDamage>& info) { return info.param.what; });

TEST(SegmentReaderTest, RejectsAMappingSmallerThanTheSegment) {
  TestSegment seg;
  auto reader = SegmentReader::Open(seg.base(), seg.size() - 4096, std::chrono::microseconds(0));
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().message(), HasSubstr("larger than the mapping"));
  auto tiny = SegmentReader::Open(seg.base(), 100, std::chrono::microseconds(0));
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(tiny.status().message(), HasSubstr("smaller than its header"));
}

}  // namespace
}  // namespace brrr::ingest
