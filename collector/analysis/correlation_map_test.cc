// Tests of CorrelationMap: entries survive slot collisions, erase removes exactly one id, and
// EraseIf/clear reach entries in both the slot array and the overflow map.
//
// Must never: depend on the slot count beyond "ids 4096 apart share a slot" being possible.
#include "collector/analysis/correlation_map.h"

#include <gtest/gtest.h>

namespace brrr {
namespace {

TEST(CorrelationMapTest, FindsOnlyWhatWasSet) {
  CorrelationMap<int> map;
  EXPECT_EQ(map.Find(7), nullptr);
  map.Set(7, 70);
  ASSERT_NE(map.Find(7), nullptr);
  EXPECT_EQ(*map.Find(7), 70);
  EXPECT_EQ(map.Find(8), nullptr);
  map.Set(7, 71);
  EXPECT_EQ(*map.Find(7), 71);
  EXPECT_EQ(map.size(), 1u);
}

TEST(CorrelationMapTest, InsertGivesTheExistingEntryOrAFreshOneInBothPlaces) {
  CorrelationMap<int> map;
  map.Set(9, 90);
  map.Insert(9) += 1;  // the existing entry, not a new one
  EXPECT_EQ(*map.Find(9), 91);
  // A slot freed by an erase, and an id that collides into the overflow map, start from zero.
  map.Erase(9);
  EXPECT_EQ(map.Insert(9), 0);
  const uint32_t colliding = 9 + (1u << 20);
  EXPECT_EQ(map.Insert(colliding), 0);
  map.Insert(colliding) = 5;
  EXPECT_EQ(*map.Find(colliding), 5);
  EXPECT_EQ(*map.Find(9), 0);
  EXPECT_EQ(map.size(), 2u);
}

TEST(CorrelationMapTest, HundredsOfThousandsOfDenseIdsInFlightAllGetSlots) {
  // A device 300,000 launches behind: every launch waits for its kernel at once.
  CorrelationMap<int> map;
  constexpr uint32_t kInFlight = 300'000;
  for (uint32_t id = 1; id <= kInFlight; ++id) map.Set(id, 1);
  EXPECT_EQ(map.size(), kInFlight);
  EXPECT_EQ(map.OverflowSizeForTest(), 0u);
  // Sliding on (the oldest kernel arrives as a new launch is recorded) keeps them there.
  for (uint32_t id = kInFlight + 1; id <= 2 * kInFlight; ++id) {
    map.Erase(id - kInFlight);
    map.Set(id, 2);
  }
  EXPECT_EQ(map.size(), kInFlight);
  EXPECT_EQ(map.OverflowSizeForTest(), 0u);
  EXPECT_EQ(map.Find(kInFlight), nullptr);
  EXPECT_EQ(*map.Find(kInFlight + 1), 2);
}

TEST(CorrelationMapTest, CollidingIdsAreAllKeptAndErasedIndependently) {
  CorrelationMap<int> map;
  // Ids far apart (multiples of a large power of two) share direct-mapped slots.
  const uint32_t a = 5, b = 5 + (1u << 20), c = 5 + (2u << 20);
  map.Set(a, 1);
  map.Set(b, 2);
  map.Set(c, 3);
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(*map.Find(a), 1);
  EXPECT_EQ(*map.Find(b), 2);
  EXPECT_EQ(*map.Find(c), 3);
  map.Erase(a, map.Find(a));
  EXPECT_EQ(map.Find(a), nullptr);
  EXPECT_EQ(*map.Find(b), 2);
  EXPECT_EQ(*map.Find(c), 3);
  map.Set(a, 4);  // the freed slot is reused
  map.Erase(c);
  EXPECT_EQ(*map.Find(a), 4);
  EXPECT_EQ(*map.Find(b), 2);
  EXPECT_EQ(map.Find(c), nullptr);
  EXPECT_EQ(map.size(), 2u);
}

TEST(CorrelationMapTest, EraseIfAndClearReachEveryEntry) {
  CorrelationMap<int> map;
  for (uint32_t i = 0; i < 10'000; ++i) map.Set(i * 3, static_cast<int>(i));
  EXPECT_EQ(map.size(), 10'000u);
  map.EraseIf([](uint32_t, int v) { return v % 2 == 0; });
  EXPECT_EQ(map.size(), 5'000u);
  for (uint32_t i = 0; i < 10'000; ++i) {
    EXPECT_EQ(map.Find(i * 3) != nullptr, i % 2 == 1) << i;
  }
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find(3), nullptr);
}

}  // namespace
}  // namespace brrr
