// DetachGrace: starts at the window length, halves after clean flushes down to 1 ms, quadruples
// (capped at the window length) after a flush that handed back untimed work.
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
