// Tests of the pinned host range table: membership at the edges, removal, reuse of freed entries,
// a full table, and concurrent add/remove/lookup (run under TSan/ASan in CI).
#include "shim/pinned_ranges.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace brrr::shim {
namespace {

TEST(PinnedRangesTest, ContainsExactlyTheRange) {
  static PinnedRanges table;
  char buf[256];
  EXPECT_FALSE(table.Contains(buf));
  ASSERT_TRUE(table.Add(buf + 16, 100));
  EXPECT_FALSE(table.Contains(buf + 15));
  EXPECT_TRUE(table.Contains(buf + 16));
  EXPECT_TRUE(table.Contains(buf + 115));
  EXPECT_FALSE(table.Contains(buf + 116));
  table.Remove(buf + 17);  // not a range start: no effect
  EXPECT_TRUE(table.Contains(buf + 16));
  table.Remove(buf + 16);
  EXPECT_FALSE(table.Contains(buf + 16));
  EXPECT_FALSE(table.Add(nullptr, 10));
  EXPECT_FALSE(table.Add(buf, 0));
}

TEST(PinnedRangesTest, FullTableRefusesAndFreedEntriesAreReused) {
  static PinnedRanges table;
  std::vector<char> memory(PinnedRanges::kCapacity * 2);
  for (uint32_t i = 0; i < PinnedRanges::kCapacity; ++i) {
    ASSERT_TRUE(table.Add(&memory[i * 2], 1));
  }
  char extra;
  EXPECT_FALSE(table.Add(&extra, 1));
  EXPECT_FALSE(table.Contains(&extra));
  table.Remove(&memory[10]);
  EXPECT_TRUE(table.Add(&extra, 1));
  EXPECT_TRUE(table.Contains(&extra));
  EXPECT_TRUE(table.Contains(&memory[2 * (PinnedRanges::kCapacity - 1)]));
}

TEST(PinnedRangesTest, ConcurrentUse) {
  static PinnedRanges table;
  std::vector<char> memory(4 * 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 1000; i += 10) table.Add(&memory[t * 1000 + i], 5);
        for (int i = 0; i < 1000; i += 10) {
          EXPECT_TRUE(table.Contains(&memory[t * 1000 + i + 4]));
          EXPECT_FALSE(table.Contains(&memory[t * 1000 + i + 5]));
        }
        for (int i = 0; i < 1000; i += 10) table.Remove(&memory[t * 1000 + i]);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < memory.size(); ++i) EXPECT_FALSE(table.Contains(&memory[i]));
}

}  // namespace
}  // namespace brrr::shim
