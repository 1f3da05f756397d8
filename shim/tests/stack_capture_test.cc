// Tests of stack capture: the frame-pointer walk on real frames (same call site -> same stack id,
// different call sites -> different ids) and on garbage chains (it stops, never crashes), and the
// stack/name tables' dedup and overflow.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "shim/slot_tables.h"
#include "shim/stack_walk.h"
#include "shim/tests/test_segment.h"

namespace brrr::shim {
namespace {

struct Captured {
  uint64_t pcs[ring::kMaxStackDepth];
  uint32_t depth;
};

// Compiled with frame pointers (CMake): its frame starts a valid chain into the test.
__attribute__((noinline)) Captured CaptureHere() {
  Captured c{};
  c.depth = WalkFramePointers(__builtin_frame_address(0), CurrentThreadStackBounds(), c.pcs,
                              ring::kMaxStackDepth);
  asm volatile("" ::: "memory");
  return c;
}

__attribute__((noinline)) Captured CallSiteA() {
  Captured c = CaptureHere();
  asm volatile("" ::: "memory");
  return c;
}
__attribute__((noinline)) Captured CallSiteB() {
  Captured c = CaptureHere();
  asm volatile("" ::: "memory");
  return c;
}

class StackTableTest : public ::testing::Test {
 protected:
  std::vector<ring::StackSlot> slots_ = std::vector<ring::StackSlot>(64);
  std::atomic<uint64_t> overflow_{0};
  uint32_t Intern(const Captured& c) {
    return InternStack(slots_.data(), 64, c.pcs, c.depth, &overflow_);
  }
};

TEST_F(StackTableTest, SameCallSiteSameIdDifferentCallSiteDifferentId) {
  std::vector<Captured> a, b;
  for (int i = 0; i < 3; ++i) {
    a.push_back(CallSiteA());
    b.push_back(CallSiteB());
  }
  ASSERT_GE(a[0].depth, 2u);
  const uint32_t id_a = Intern(a[0]);
  const uint32_t id_b = Intern(b[0]);
  EXPECT_NE(id_a, 0u);
  EXPECT_NE(id_b, 0u);
  EXPECT_NE(id_a, id_b);
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(Intern(a[i]), id_a);
    EXPECT_EQ(Intern(b[i]), id_b);
  }
  const ring::StackSlot& s = slots_[id_a - 1];
  EXPECT_EQ(s.ready.load(), 1u);
  ASSERT_EQ(s.depth, a[0].depth);
  for (uint32_t d = 0; d < s.depth; ++d) EXPECT_EQ(s.pcs[d], a[0].pcs[d]);
  EXPECT_EQ(overflow_.load(), 0u);
}

TEST(StackTableFullTest, FullTableReturnsZeroAndCountsOverflow) {
  // 16 slots: the probe limit covers the whole table, so exactly 16 distinct stacks fit.
  std::vector<ring::StackSlot> slots(16);
  std::atomic<uint64_t> overflow{0};
  uint32_t zeros = 0;
  for (uint64_t i = 1; i <= 50; ++i) {
    const uint64_t pc = 0x400000 + i * 16;
    if (InternStack(slots.data(), 16, &pc, 1, &overflow) == 0) ++zeros;
  }
  EXPECT_EQ(zeros, 50u - 16u);
  EXPECT_EQ(overflow.load(), zeros);
  // A stack already stored is still found when the table is full.
  const uint64_t first = 0x400000 + 16;
  EXPECT_NE(InternStack(slots.data(), 16, &first, 1, &overflow), 0u);
}

TEST(StackWalkTest, GarbageChainsStopSafely) {
  // A fake stack: frame records at chosen offsets inside one buffer.
  alignas(16) uintptr_t stack[64] = {};
  const uintptr_t base = reinterpret_cast<uintptr_t>(stack);
  const StackBounds bounds{base, base + sizeof(stack)};
  uint64_t pcs[ring::kMaxStackDepth];

  // A cycle (frame points to itself): one pc, then the strictly-increasing rule stops it.
  stack[0] = base;
  stack[1] = 0x401000;
  EXPECT_EQ(WalkFramePointers(&stack[0], bounds, pcs, ring::kMaxStackDepth), 1u);

  // Pointing downwards: stops.
  stack[8] = base;
  stack[9] = 0x402000;
  EXPECT_EQ(WalkFramePointers(&stack[8], bounds, pcs, ring::kMaxStackDepth), 1u);

  // Misaligned next frame: stops after one.
  stack[16] = base + 8 * 20 + 3;
  stack[17] = 0x403000;
  EXPECT_EQ(WalkFramePointers(&stack[16], bounds, pcs, ring::kMaxStackDepth), 1u);

  // Next frame outside the bounds (e.g. a heap address): stops after one.
  stack[24] = base + sizeof(stack) + 4096;
  stack[25] = 0x404000;
  EXPECT_EQ(WalkFramePointers(&stack[24], bounds, pcs, ring::kMaxStackDepth), 1u);

  // Frame record straddling the top of the stack: not read.
  EXPECT_EQ(WalkFramePointers(&stack[63], bounds, pcs, ring::kMaxStackDepth), 0u);

  // A small pc (not code): stops before recording it.
  stack[30] = base + 8 * 40;
  stack[31] = 12;
  EXPECT_EQ(WalkFramePointers(&stack[30], bounds, pcs, ring::kMaxStackDepth), 0u);

  // A long valid chain is cut at max_depth.
  for (int i = 32; i < 62; i += 2) {
    stack[i] = base + 8 * (i + 2);
    stack[i + 1] = 0x500000 + i;
  }
  stack[62] = 0;
  stack[63] = 0x600000;
  EXPECT_EQ(WalkFramePointers(&stack[32], bounds, pcs, 5), 5u);
  EXPECT_EQ(pcs[0], 0x500000u + 32);
  EXPECT_EQ(pcs[4], 0x500000u + 40);

  // Unknown bounds: nothing.
  EXPECT_EQ(WalkFramePointers(&stack[32], StackBounds{}, pcs, ring::kMaxStackDepth), 0u);
}

TEST(NameTableTest, DedupTruncationAndPublication) {
  std::vector<ring::NameSlot> slots(16);
  const uint32_t a = InternName(slots.data(), 16, "kernelA", 7);
  const uint32_t b = InternName(slots.data(), 16, "kernelB", 7);
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(InternName(slots.data(), 16, "kernelA", 7), a);
  EXPECT_EQ(slots[a - 1].length, 7u);
  EXPECT_EQ(std::string(slots[a - 1].text, 7), "kernelA");
  EXPECT_EQ(slots[a - 1].ready.load(), 1u);
  const std::string longname(1000, 'x');
  const uint32_t l = InternName(slots.data(), 16, longname.data(), longname.size());
  ASSERT_NE(l, 0u);
  EXPECT_EQ(slots[l - 1].length, ring::kMaxNameLength);
}

}  // namespace
}  // namespace brrr::shim
