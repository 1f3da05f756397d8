// Tests of SpanBacklog: sorting by run merging gives the same multiset in start order as a plain
// sort (few runs, many runs, interleaved with consumption from the front), and counting/dropping.
#include "collector/analysis/span_backlog.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"

namespace brrr {
namespace {

using Tuple = std::tuple<int64_t, int64_t, bool>;

std::vector<Tuple> Contents(const SpanBacklog& b) {
  std::vector<Tuple> out;
  for (size_t i = 0; i < b.size(); ++i) out.emplace_back(b[i].start, b[i].end, b[i].stall);
  return out;
}

// Sorted by start; spans with equal starts compared as sets (their order is unspecified).
void ExpectSortedPermutationOf(const SpanBacklog& b, std::vector<Tuple> expected) {
  std::vector<Tuple> got = Contents(b);
  for (size_t i = 1; i < got.size(); ++i) {
    ASSERT_LE(std::get<0>(got[i - 1]), std::get<0>(got[i])) << "at " << i;
  }
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
}

TEST(SpanBacklogTest, SortedAppendsStayAsAppended) {
  SpanBacklog b;
  for (int64_t t = 0; t < 100; ++t) b.push_back(t, t + 5, t % 3 == 0);
  b.Sort();
  ASSERT_EQ(b.size(), 100u);
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(b[i].start, static_cast<int64_t>(i));
    EXPECT_EQ(b[i].end, static_cast<int64_t>(i) + 5);
    EXPECT_EQ(b[i].stall, i % 3 == 0);
  }
}

TEST(SpanBacklogTest, MergesThreadRunsAppendedOneAfterTheOther) {
  // 8 "threads", each in time order, appended thread by thread (as a drain delivers them).
  SpanBacklog b;
  std::vector<Tuple> all;
  for (int64_t thread = 0; thread < 8; ++thread) {
    for (int64_t i = 0; i < 1000; ++i) {
      const int64_t start = i * 80 + thread * 10;
      b.push_back(start, start + 7, thread == 3);
      all.emplace_back(start, start + 7, thread == 3);
    }
  }
  b.Sort();
  ExpectSortedPermutationOf(b, all);
  EXPECT_EQ(b.CountStartingBefore(80), 8u);
  EXPECT_EQ(b.CountStartingBefore(0), 0u);
  EXPECT_EQ(b.CountStartingBefore(1'000'000), 8000u);
}

TEST(SpanBacklogTest, RandomOrderWithManyRunsSortsCorrectly) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> time(0, 5000);  // many equal starts too
  SpanBacklog b;
  std::vector<Tuple> all;
  for (int i = 0; i < 20'000; ++i) {
    const int64_t start = time(rng);
    const bool stall = (rng() & 1) != 0;
    b.push_back(start, start + 100, stall);
    all.emplace_back(start, start + 100, stall);
  }
  b.Sort();
  ExpectSortedPermutationOf(b, all);
}

TEST(SpanBacklogTest, InterleavedAppendSortAndDropMatchesReference) {
  // A model of the breakdown's use: batches of per-source runs, sweeps that consume a prefix.
  std::mt19937_64 rng(7);
  SpanBacklog b;
  std::vector<Tuple> model;  // kept sorted by start (ties in any order)
  int64_t base = 0;
  for (int round = 0; round < 300; ++round) {
    const int sources = 1 + static_cast<int>(rng() % 100);  // sometimes more than 64 runs
    for (int s = 0; s < sources; ++s) {
      const int n = static_cast<int>(rng() % 40);
      int64_t t = base + static_cast<int64_t>(rng() % 1000);
      for (int i = 0; i < n; ++i) {
        t += static_cast<int64_t>(rng() % 30);
        b.push_back(t, t + 1, s == 0);
        model.emplace_back(t, t + 1, s == 0);
      }
    }
    b.Sort();
    ASSERT_NO_FATAL_FAILURE(ExpectSortedPermutationOf(b, model));
    std::stable_sort(model.begin(), model.end(), [](const Tuple& x, const Tuple& y) {
      return std::get<0>(x) < std::get<0>(y);
    });
    base += 500;
    const size_t count = b.CountStartingBefore(base);
    const size_t expected_count = static_cast<size_t>(std::count_if(
        model.begin(), model.end(), [&](const Tuple& x) { return std::get<0>(x) < base; }));
    ASSERT_EQ(count, expected_count);
    b.DropFront(count);
    model.erase(model.begin(), model.begin() + static_cast<ptrdiff_t>(count));
    ASSERT_EQ(b.size(), model.size());
  }
}

TEST(SpanBacklogTest, DropFrontEverythingEmptiesAndClearResets) {
  SpanBacklog b;
  b.push_back(10, 20, false);
  b.push_back(5, 6, true);
  b.Sort();
  EXPECT_EQ(b[0].start, 5);
  b.DropFront(5);  // more than held: drops what there is
  EXPECT_TRUE(b.empty());
  b.push_back(3, 4, false);
  b.push_back(1, 2, false);
  b.clear();
  EXPECT_TRUE(b.empty());
  b.push_back(8, 9, false);
  b.Sort();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].start, 8);
}

}  // namespace
}  // namespace brrr
