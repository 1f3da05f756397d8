// Tests of the DWARF fallback of hook stacks (UnwindPastFramePointers, unwinder.h): from below a
// chain of frames built without frame pointers, the frame-pointer walk stops short while the
// libunwind walk crosses them to the test's own frame; a frame-pointer walk that is already full
// is kept. Skipped where libunwind.so.8 is not installed (tools/setup.sh installs it).
#include "shim/unwinder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "shim/ring_format.h"
#include "shim/stack_walk.h"

namespace brrr::shim {
namespace {

struct Walks {
  uint64_t pcs[ring::kMaxStackDepth] = {};
  uint32_t fp_depth = 0;
  uint32_t depth = 0;
};

uint64_t g_outer_return = 0;  // where the no-frame-pointer chain returns into the test
volatile int g_after = 0;

// As a hook does: the frame-pointer walk from its own frame, then the DWARF fallback.
__attribute__((noinline)) void HookLike(Walks* w) {
  w->fp_depth = WalkFramePointers(__builtin_frame_address(0), CurrentThreadStackBounds(), w->pcs,
                                  ring::kMaxStackDepth);
  w->depth = UnwindPastFramePointers(w->pcs, w->fp_depth, ring::kMaxStackDepth);
  asm volatile("" ::: "memory");
}

// Release-style frames: no frame pointer, and work after each call (no tail call, no loop).
__attribute__((noinline, optimize("omit-frame-pointer"))) void Chain(int n, Walks* w) {
  if (n == 12) g_outer_return = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  if (n > 0) {
    Chain(n - 1, w);
  } else {
    HookLike(w);
  }
  g_after = g_after + 1;
}

TEST(UnwinderTest, CrossesFramesWithoutFramePointersToTheCaller) {
  if (!LoadUnwinder()) GTEST_SKIP() << "libunwind.so.8 is not installed";
  Walks w;
  Chain(12, &w);
  ASSERT_NE(g_outer_return, 0u);
  // The libunwind walk went through the 13 frames of Chain to this test's frame; the frame-pointer
  // walk (whatever garbage it may have followed) did not get as deep.
  EXPECT_GT(w.depth, w.fp_depth);
  EXPECT_GE(w.depth, 13u);
  EXPECT_NE(std::find(w.pcs, w.pcs + w.depth, g_outer_return), w.pcs + w.depth)
      << "the return address into the test is not in the stack";
}

TEST(UnwinderTest, AFullFramePointerWalkIsKept) {
  if (!LoadUnwinder()) GTEST_SKIP() << "libunwind.so.8 is not installed";
  uint64_t pcs[ring::kMaxStackDepth];
  for (uint32_t i = 0; i < ring::kMaxStackDepth; ++i) pcs[i] = 0x1000 + i;
  EXPECT_EQ(UnwindPastFramePointers(pcs, ring::kMaxStackDepth, ring::kMaxStackDepth),
            ring::kMaxStackDepth);
  EXPECT_EQ(pcs[0], 0x1000u);  // untouched
}

}  // namespace
}  // namespace brrr::shim
