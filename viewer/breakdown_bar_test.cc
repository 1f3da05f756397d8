// Tests for breakdown_bar.h: proportional cell allocation and the bar's width and glyphs.
// Must never: derive expected cell counts from the code under test (shares are recomputed here).
#include "viewer/breakdown_bar.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(AllocateCellsTest, ExactSharesAreKept) {
  EXPECT_EQ(AllocateCells({500, 250, 125, 125}, 8), (std::vector<int>{4, 2, 1, 1}));
  EXPECT_EQ(AllocateCells({1, 0, 0, 0}, 60), (std::vector<int>{60, 0, 0, 0}));
}

TEST(AllocateCellsTest, AllZeroOrNegativeGivesNoCells) {
  EXPECT_EQ(AllocateCells({0, 0, 0}, 60), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(AllocateCells({-5, 0}, 60), (std::vector<int>{0, 0}));
}

TEST(AllocateCellsTest, RandomPartsSumToWidthAndStayWithinOneCellOfTheirShare) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<int64_t> parts(5);
    const int64_t scale = int64_t{1} << (rng() % 62);
    for (int64_t& p : parts) p = static_cast<int64_t>(rng() % static_cast<uint64_t>(scale));
    const int width = 1 + static_cast<int>(rng() % 120);
    const std::vector<int> cells = AllocateCells(parts, width);
    long double total = 0;
    for (int64_t p : parts) total += p;
    if (total == 0) continue;
    int sum = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      const long double share = parts[i] * static_cast<long double>(width) / total;
      EXPECT_LT(std::fabs(static_cast<double>(cells[i] - share)), 1.0)
          << "part " << i << " trial " << trial;
      sum += cells[i];
    }
    EXPECT_EQ(sum, width) << "trial " << trial;
  }
}

TEST(AllocateCellsTest, HugeValuesDoNotOverflow) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  const std::vector<int> cells = AllocateCells({big, big, big, big}, 60);
  EXPECT_EQ(cells, (std::vector<int>{15, 15, 15, 15}));
}

DeviceBreakdown Device(int64_t wall, int64_t busy, int64_t launch, int64_t drain, int64_t host) {
  DeviceBreakdown d;
  d.wall_ns = wall;
  d.busy_ns = busy;
  d.idle = {launch, drain, host};
  return d;
}

TEST(BreakdownBarTest, GlyphsInOrderWithProportionalCounts) {
  const std::string bar = BreakdownBar(Device(1000, 500, 250, 100, 150), 20);
  EXPECT_EQ(bar, "##########~~~~~==...");
}

TEST(BreakdownBarTest, UnaccountedTimeIsShownWhenPartsFallShortOfWall) {
  const std::string bar = BreakdownBar(Device(1000, 500, 0, 0, 0), 10);
  EXPECT_EQ(bar, "#####?????");
}

TEST(BreakdownBarTest, InconsistentInputKeepsTheWidth) {
  for (const DeviceBreakdown& d :
       {Device(0, 0, 0, 0, 0), Device(-1, -2, -3, -4, -5), Device(10, 1000, 1000, 0, 0),
        Device(std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(),
               std::numeric_limits<int64_t>::max(), 0, std::numeric_limits<int64_t>::min())}) {
    EXPECT_EQ(BreakdownBar(d, 60).size(), 60u);
  }
}

}  // namespace
}  // namespace brrr
