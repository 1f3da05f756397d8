// DetachGrace: starts at the window length, halves after clean flushes down to 1 ms, quadruples
// (capped at the window length) after a flush that handed back untimed work, and does not halve
// back to a wait that lost work for 8 clean flushes.
#include "shim/detach_grace.h"

#include <gtest/gtest.h>

namespace brrr::shim {
namespace {

TEST(DetachGraceTest, StartsAtTheWindowAndHalvesAfterCleanFlushesDownToOneMillisecond) {
  DetachGrace g(50'000'000);
  EXPECT_EQ(g.ns(), 50'000'000u);
  g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 25'000'000u);
  for (int i = 0; i < 4; ++i) g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 1'562'500u);  // 50 ms / 32
  g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 1'000'000u);  // not 781 us
  g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 1'000'000u);
}

TEST(DetachGraceTest, AFlushThatHandedBackUntimedWorkWaitsFourTimesLongerUpToTheWindow) {
  DetachGrace g(50'000'000);
  for (int i = 0; i < 10; ++i) g.OnFlushBeforeDetach(0);
  g.OnFlushBeforeDetach(3);
  EXPECT_EQ(g.ns(), 4'000'000u);
  g.OnFlushBeforeDetach(1);
  EXPECT_EQ(g.ns(), 16'000'000u);
  g.OnFlushBeforeDetach(1);
  EXPECT_EQ(g.ns(), 50'000'000u);  // not 64 ms
  g.OnFlushBeforeDetach(1);
  EXPECT_EQ(g.ns(), 50'000'000u);
}

// A flush at the full window wait that still handed back untimed work: CUPTI stays attached from
// then on. One that did so at a shorter wait only lengthens it.
TEST(DetachGraceTest, WhenAWindowLengthWasNotEnoughCuptiStaysAttached) {
  DetachGrace g(50'000'000);
  g.OnFlushBeforeDetach(0);  // 25 ms
  g.OnFlushBeforeDetach(7);  // 100 ms, capped: 50 ms
  EXPECT_EQ(g.ns(), 50'000'000u);
  EXPECT_TRUE(g.detaches());
  g.OnFlushBeforeDetach(7);  // at the window length, and still some was queued
  EXPECT_FALSE(g.detaches());
  g.OnFlushBeforeDetach(0);
  EXPECT_FALSE(g.detaches());
  // Fixed at the window length (BRRR_DETACH_WAIT=window): it always detaches, as before.
  DetachGrace fixed(50'000'000, /*adaptive=*/false);
  fixed.OnFlushBeforeDetach(7);
  EXPECT_TRUE(fixed.detaches());
}

// The H100's device-bound loop (a queue 32 ms deep, 50 ms windows): one loss at 25 ms, then the
// wait stays at 50 ms for 8 clean flushes instead of going back to 25 ms and losing every other
// window's end; then it tries 25 ms again (one loss in ten windows, not one in two).
TEST(DetachGraceTest, AfterALossItStaysAboveTheWaitThatLostWorkForEightCleanFlushes) {
  DetachGrace g(50'000'000);
  g.OnFlushBeforeDetach(0);     // 50 ms was enough: 25 ms
  g.OnFlushBeforeDetach(1600);  // 25 ms was not: 50 ms, floor 50 ms
  EXPECT_EQ(g.ns(), 50'000'000u);
  for (uint32_t i = 1; i < DetachGrace::kFloorFlushes; ++i) {
    g.OnFlushBeforeDetach(0);
    EXPECT_EQ(g.ns(), 50'000'000u) << i;
  }
  g.OnFlushBeforeDetach(0);  // the 8th clean flush at the floor: the floor halves
  EXPECT_EQ(g.ns(), 25'000'000u);
  g.OnFlushBeforeDetach(1600);  // lost again: 50 ms, floor 50 ms
  EXPECT_EQ(g.ns(), 50'000'000u);
  g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 50'000'000u);
  EXPECT_TRUE(g.detaches());
  // A short loss: 1 ms lost, 4 ms clean, then 2 ms (twice the lost wait) and no lower.
  DetachGrace s(50'000'000);
  for (int i = 0; i < 10; ++i) s.OnFlushBeforeDetach(0);
  s.OnFlushBeforeDetach(2);
  EXPECT_EQ(s.ns(), 4'000'000u);
  s.OnFlushBeforeDetach(0);
  EXPECT_EQ(s.ns(), 2'000'000u);
  s.OnFlushBeforeDetach(0);
  EXPECT_EQ(s.ns(), 2'000'000u);
  // A later, longer loss raises the floor: 8 ms lost (after 2 ms lost, 8 ms tried), floor 16 ms.
  s.OnFlushBeforeDetach(1);  // 2 ms lost: 8 ms
  s.OnFlushBeforeDetach(1);  // 8 ms lost: 32 ms, floor 16 ms
  s.OnFlushBeforeDetach(0);
  EXPECT_EQ(s.ns(), 16'000'000u);
  s.OnFlushBeforeDetach(0);
  EXPECT_EQ(s.ns(), 16'000'000u);
}

// A cuptiFinalize that waited for queued device work (longer than 5 ms, or than a quarter of the
// window when that is longer) keeps CUPTI attached from then on; an idle one does not.
TEST(DetachGraceTest, ADetachThatWaitedLongForTheDeviceKeepsCuptiAttached) {
  DetachGrace g(50'000'000);
  g.OnDetachTook(2'300'000);   // idle on an H100
  g.OnDetachTook(12'500'000);  // exactly a quarter of the window: not above it
  EXPECT_TRUE(g.detaches());
  g.OnDetachTook(12'500'001);
  EXPECT_FALSE(g.detaches());
  DetachGrace short_windows(10'000'000);  // a quarter is 2.5 ms: the 5 ms floor holds
  short_windows.OnDetachTook(4'900'000);
  EXPECT_TRUE(short_windows.detaches());
  short_windows.OnDetachTook(5'100'000);
  EXPECT_FALSE(short_windows.detaches());
  DetachGrace fixed(50'000'000, /*adaptive=*/false);
  fixed.OnDetachTook(30'000'000);
  EXPECT_TRUE(fixed.detaches());
}

TEST(DetachGraceTest, NotAdaptiveItIsAlwaysTheWindowLength) {
  DetachGrace g(50'000'000, /*adaptive=*/false);
  g.OnFlushBeforeDetach(0);
  g.OnFlushBeforeDetach(0);
  EXPECT_EQ(g.ns(), 50'000'000u);
  g.OnFlushBeforeDetach(9);
  EXPECT_EQ(g.ns(), 50'000'000u);
}

TEST(DetachGraceTest, AWindowShorterThanTheFloorWaitsTheFloor) {
  DetachGrace g(200'000);
  EXPECT_EQ(g.ns(), DetachGrace::kMinNs);
  g.OnFlushBeforeDetach(5);
  EXPECT_EQ(g.ns(), DetachGrace::kMinNs);
}

}  // namespace
}  // namespace brrr::shim
