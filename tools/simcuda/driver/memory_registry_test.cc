// Tests of MemoryRegistry: interior-pointer lookup, overlap rejection, kind-checked erase.
#include "memory_registry.h"

#include <gtest/gtest.h>

namespace simcuda {
namespace {

TEST(MemoryRegistryTest, FindsInteriorPointersOnly) {
  MemoryRegistry registry;
  ASSERT_TRUE(registry.Insert({1000, 100, MemoryKind::kDevice, true}));
  EXPECT_EQ(registry.KindOf(reinterpret_cast<void*>(1000)), MemoryKind::kDevice);
  EXPECT_EQ(registry.KindOf(reinterpret_cast<void*>(1099)), MemoryKind::kDevice);
  EXPECT_EQ(registry.KindOf(reinterpret_cast<void*>(1100)), MemoryKind::kPageable);
  EXPECT_EQ(registry.KindOf(reinterpret_cast<void*>(999)), MemoryKind::kPageable);
  EXPECT_EQ(registry.Find(reinterpret_cast<void*>(1050))->base, 1000u);
}

TEST(MemoryRegistryTest, RejectsOverlapsAndEmptyRanges) {
  MemoryRegistry registry;
  ASSERT_TRUE(registry.Insert({1000, 100, MemoryKind::kPinned, false}));
  EXPECT_FALSE(registry.Insert({1099, 10, MemoryKind::kPinned, false}));
  EXPECT_FALSE(registry.Insert({990, 11, MemoryKind::kPinned, false}));
  EXPECT_FALSE(registry.Insert({500, 0, MemoryKind::kPinned, false}));
  EXPECT_TRUE(registry.Insert({1100, 10, MemoryKind::kPinned, false}));
  EXPECT_TRUE(registry.Insert({990, 10, MemoryKind::kDevice, true}));
}

TEST(MemoryRegistryTest, EraseNeedsExactBaseAndKind) {
  MemoryRegistry registry;
  ASSERT_TRUE(registry.Insert({1000, 100, MemoryKind::kDevice, true}));
  EXPECT_FALSE(registry.Erase(reinterpret_cast<void*>(1001), MemoryKind::kDevice));
  EXPECT_FALSE(registry.Erase(reinterpret_cast<void*>(1000), MemoryKind::kPinned));
  EXPECT_TRUE(registry.Erase(reinterpret_cast<void*>(1000), MemoryKind::kDevice));
  EXPECT_EQ(registry.KindOf(reinterpret_cast<void*>(1000)), MemoryKind::kPageable);
}

}  // namespace
}  // namespace simcuda
