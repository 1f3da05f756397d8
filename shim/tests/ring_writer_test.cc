// Tests of the per-thread ring writer against a segment in plain memory: exact accounting
// (written == read + dropped) with a concurrent reader, drops without blocking on a tiny ring,
// ring claims and the thread-overflow case.
#include "shim/ring_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "shim/tests/test_segment.h"
#include "shim/thread_ring.h"

namespace brrr::shim {
namespace {

using testing::DrainRing;
using testing::HeapSegment;

ring::SegmentGeometry Geometry(uint32_t threads, uint32_t capacity) {
  ring::SegmentGeometry g;
  g.max_threads = threads;
  g.ring_capacity = capacity;
  g.device_capacity = 64;
  g.stack_slots = 64;
  g.name_slots = 64;
  return g;
}

ring::HostRecord RecordWithSeq(uint32_t seq) {
  ring::HostRecord r{};
  r.bytes = seq;
  r.enter = seq;
  r.exit = seq + 1;
  r.api = static_cast<uint16_t>(ring::Api::kCudaLaunchKernel);
  return r;
}

TEST(RingWriterTest, SingleThreadAllRecordsArriveInOrderWhenDrained) {
  HeapSegment seg(Geometry(1, 1024));
  ASSERT_TRUE(seg.ok());
  HostRingCursor c;
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 7, 8, &c));
  EXPECT_EQ(c.ring->tid, 7u);
  EXPECT_EQ(c.ring->state.load(), static_cast<uint32_t>(ring::RingState::kActive));
  uint32_t expected = 0;
  uint64_t read = 0;
  for (uint32_t i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(AppendRecord(c, RecordWithSeq(i)));
    if (i % 500 == 499) {
      read += DrainRing(c.ring, c.records, 1024, [&](const ring::HostRecord& r) {
        EXPECT_EQ(r.bytes, expected);
        ++expected;
      });
    }
  }
  EXPECT_EQ(read, 10'000u);
  EXPECT_EQ(c.ring->dropped.load(), 0u);
}

TEST(RingWriterTest, TinyRingDropsWithoutBlockingAndResumesAfterDrain) {
  HeapSegment seg(Geometry(1, 8));
  ASSERT_TRUE(seg.ok());
  HostRingCursor c;
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 1, 1, &c));
  int stored = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < 100; ++i) stored += AppendRecord(c, RecordWithSeq(i)) ? 1 : 0;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(stored, 8);
  EXPECT_EQ(c.ring->dropped.load(), 92u);
  std::vector<uint32_t> seqs;
  DrainRing(c.ring, c.records, 8,
            [&](const ring::HostRecord& r) { seqs.push_back(static_cast<uint32_t>(r.bytes)); });
  ASSERT_EQ(seqs.size(), 8u);
  EXPECT_EQ(seqs.front(), 0u);
  EXPECT_EQ(seqs.back(), 7u);
  EXPECT_TRUE(AppendRecord(c, RecordWithSeq(1000)));
  EXPECT_EQ(c.ring->dropped.load(), 92u);
}

TEST(RingWriterTest, EightThreadsWithConcurrentReaderAccountForEveryRecord) {
  constexpr uint32_t kThreads = 8;
  constexpr uint32_t kPerThread = 50'000;
  constexpr uint32_t kCapacity = 256;  // small: the reader cannot always keep up, drops happen
  HeapSegment seg(Geometry(kThreads, kCapacity));
  ASSERT_TRUE(seg.ok());
  std::atomic<int> writers_done{0};
  std::vector<uint64_t> stored(kThreads, 0);
  std::vector<uint64_t> read_per_ring(kThreads, 0);
  std::atomic<bool> order_ok{true};

  std::thread reader([&] {
    std::vector<int64_t> last_seq(kThreads, -1);
    auto drain_all = [&] {
      for (uint32_t i = 0; i < kThreads; ++i) {
        ring::RingHeader* r = ring::ThreadRingAt(seg.view().base, seg.view().layout, i);
        const uint32_t s = r->state.load(std::memory_order_acquire);  // R3
        if (s != static_cast<uint32_t>(ring::RingState::kActive) &&
            s != static_cast<uint32_t>(ring::RingState::kRetired)) {
          continue;
        }
        read_per_ring[i] +=
            DrainRing(r, ring::ThreadRecords(r), kCapacity, [&](const ring::HostRecord& rec) {
              if (static_cast<int64_t>(rec.bytes) <= last_seq[i]) {
                order_ok = false;
              }
              last_seq[i] = rec.bytes;
            });
      }
    };
    while (writers_done.load(std::memory_order_acquire) < static_cast<int>(kThreads)) drain_all();
    drain_all();
  });

  std::vector<std::thread> writers;
  for (uint32_t t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      HostRingCursor c;
      if (!ClaimThreadRing(seg.view(), 100 + t, t, &c)) {
        ADD_FAILURE() << "claim failed";
        writers_done.fetch_add(1, std::memory_order_release);
        return;
      }
      const uint32_t index = static_cast<uint32_t>((reinterpret_cast<char*>(c.ring) -
                                                    static_cast<char*>(seg.view().base) -
                                                    seg.view().layout.threads_offset) /
                                                   seg.view().layout.thread_ring_stride);
      uint64_t ok = 0;
      for (uint32_t i = 0; i < kPerThread; ++i) ok += AppendRecord(c, RecordWithSeq(i)) ? 1 : 0;
      stored[index] = ok;
      RetireThreadRing(c.ring);
      writers_done.fetch_add(1, std::memory_order_release);
    });
  }
  for (auto& w : writers) w.join();
  reader.join();

  uint64_t total_dropped = 0;
  for (uint32_t i = 0; i < kThreads; ++i) {
    ring::RingHeader* r = ring::ThreadRingAt(seg.view().base, seg.view().layout, i);
    EXPECT_EQ(r->state.load(), static_cast<uint32_t>(ring::RingState::kRetired));
    const uint64_t dropped = r->dropped.load();
    EXPECT_EQ(read_per_ring[i] + dropped, kPerThread) << "ring " << i;
    EXPECT_EQ(read_per_ring[i], stored[i]) << "ring " << i;
    total_dropped += dropped;
  }
  EXPECT_TRUE(order_ok.load());
  (void)total_dropped;
}

TEST(RingWriterTest, ClaimFailsWhenAllRingsAreTakenAndSucceedsAfterRecycle) {
  HeapSegment seg(Geometry(2, 8));
  ASSERT_TRUE(seg.ok());
  HostRingCursor a, b, c;
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 1, 1, &a));
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 2, 2, &b));
  EXPECT_NE(a.ring, b.ring);
  EXPECT_FALSE(ClaimThreadRing(seg.view(), 3, 3, &c));
  ASSERT_TRUE(AppendRecord(a, RecordWithSeq(0)));
  RetireThreadRing(a.ring);
  // The reader drains the retired ring, then frees it (R3).
  DrainRing(a.ring, a.records, 8, [](const ring::HostRecord&) {});
  uint32_t retired = static_cast<uint32_t>(ring::RingState::kRetired);
  ASSERT_TRUE(a.ring->state.compare_exchange_strong(retired,
                                                    static_cast<uint32_t>(ring::RingState::kFree)));
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 3, 3, &c));
  EXPECT_EQ(c.ring, a.ring);
  EXPECT_EQ(c.ring->tid, 3u);
  EXPECT_EQ(c.ring->generation, 2u);
  // Indexes continue: the new owner's first record is the one after the old owner's last.
  ASSERT_TRUE(AppendRecord(c, RecordWithSeq(42)));
  EXPECT_EQ(c.ring->write_index.load(), 2u);
}

// The ring's rules are asserted in debug builds (the ASan preset): a reader that ran past the
// writer is brrr's own bug, and such a build stops there.
TEST(RingWriterDeathTest, AReaderPastTheWriterStopsADebugBuild) {
  if (!BRRR_DCHECK_IS_ON) GTEST_SKIP() << "release build: BRRR_DCHECK is compiled out";
  HeapSegment seg(Geometry(1, 64));
  ASSERT_TRUE(seg.ok());
  HostRingCursor c;
  ASSERT_TRUE(ClaimThreadRing(seg.view(), 7, 8, &c));
  ASSERT_TRUE(AppendRecord(c, RecordWithSeq(0)));
  c.ring->read_index.store(5);  // the reader claims 5 records read of the 1 written
  c.cached_read = 5;
  EXPECT_DEATH(AppendRecord(c, RecordWithSeq(1)), "");
}

}  // namespace
}  // namespace brrr::shim
