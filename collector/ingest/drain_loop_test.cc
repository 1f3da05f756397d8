// Tests of the drain loop: pacing decisions, and a concurrent writer whose records all arrive
// (recorded + dropped == written, in order per thread) while a DrainThread drains.
#include "collector/ingest/drain_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "collector/ingest/testing/test_segment.h"

namespace brrr::ingest {
namespace {

using std::chrono::microseconds;

TEST(DrainLoopTest, PacingHurriesWhenFullAndBacksOffWhenIdle) {
  const DrainPacing pacing;
  DrainResult busy;
  busy.max_fill = 0.5;
  EXPECT_EQ(NextDrainInterval(busy, microseconds(8000), pacing), pacing.min_interval);
  DrainResult idle;
  EXPECT_EQ(NextDrainInterval(idle, microseconds(1000), pacing), microseconds(2000));
  EXPECT_EQ(NextDrainInterval(idle, microseconds(8000), pacing), pacing.max_interval);
  DrainResult some;
  some.max_fill = pacing.busy_fill / 2;
  EXPECT_EQ(NextDrainInterval(some, microseconds(8000), pacing), microseconds(4000));
}

// Counts calls and checks per-thread order by the `seq` carried in `bytes`.
class OrderSink : public EventSink {
 public:
  void OnHostCall(const HostCall& c) override {
    if (c.bytes <= last_seq_) out_of_order++;
    last_seq_ = c.bytes;
    ++calls;
  }
  void OnDeviceOp(const DeviceOp&) override {}
  void OnApiActivity(const ApiActivity&) override {}
  void OnSyncActivity(const SyncActivity&) override {}
  void OnStack(const Stack&) override {}
  uint64_t calls = 0;
  uint64_t out_of_order = 0;

 private:
  uint64_t last_seq_ = 0;
};

TEST(DrainLoopTest, ConcurrentWriterRecordsAllArriveOrAreCountedAsDropped) {
  ring::SegmentGeometry g = testing::SmallGeometry();
  g.ring_capacity = 1024;
  testing::TestSegment seg(g);
  seg.ActivateThread(0, 1, 1);
  auto reader = SegmentReader::Open(seg.base(), seg.size(), microseconds(0));
  ASSERT_TRUE(reader.ok());
  OrderSink sink;
  DrainThread drain(reader->get(), &sink);
  drain.Start();
  constexpr uint64_t kWrites = 200'000;
  uint64_t accepted = 0;
  for (uint64_t i = 1; i <= kWrites; ++i) {
    ring::HostRecord r = testing::MakeHostRecord(ring::Api::kCudaLaunchKernel, i, i + 1);
    r.bytes = i;
    accepted += seg.AppendHost(0, r);
    if (i % 4096 == 0) std::this_thread::yield();
  }
  drain.Stop();
  (*reader)->Drain(sink);  // the final drain
  const RunInfo info = (*reader)->ReadRunInfo();
  EXPECT_EQ(info.host_records + info.host_dropped, kWrites);
  EXPECT_EQ(info.host_records, accepted);
  EXPECT_EQ(sink.calls, accepted);
  EXPECT_EQ(sink.out_of_order, 0u);
  EXPECT_GT(drain.drains(), 0u);
}

TEST(DrainLoopTest, StopReturnsPromptly) {
  testing::TestSegment seg;
  auto reader = SegmentReader::Open(seg.base(), seg.size(), microseconds(0));
  ASSERT_TRUE(reader.ok());
  OrderSink sink;
  DrainThread drain(reader->get(), &sink,
                    {.min_interval = microseconds(1000), .max_interval = microseconds(5'000'000)});
  drain.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto start = std::chrono::steady_clock::now();
  drain.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace brrr::ingest
