// Tests of StackEndedEarly and StackEndTally: whole stacks say nothing; short ones say why, and
// the run-wide tally counts them by kind.
#include "collector/analysis/stack_end.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

using ::testing::HasSubstr;

TEST(StackEndTest, StacksReachingAThreadsStartAreWhole) {
  EXPECT_EQ(StackEndedEarly({"copy_back (lib.cu:15)", "main (app.cu:44)"}, 30), "");
  EXPECT_EQ(StackEndedEarly({"f (a.cc:1)", "__libc_start_main@@GLIBC_2.34 (libc-start.c:360)"}, 30),
            "");
  EXPECT_EQ(StackEndedEarly({"worker (a.cc:3)", "start_thread (pthread_create.c:442)",
                             "__clone3 (clone3.S:81)"},
                            30),
            "");
  EXPECT_EQ(StackEndedEarly({"Item (m.cc:1)", "log_loss (train.py:48)", "<module> (train.py:84)"}, 30),
            "");
  EXPECT_EQ(StackEndedEarly({}, 30), "");
}

TEST(StackEndTest, ShortStacksSayWhy) {
  EXPECT_THAT(StackEndedEarly({"copy_back(float const*) (release_lib.cu:15)"}, 30),
              HasSubstr("ends at copy_back(float const*): no frame pointer or call-frame"));
  EXPECT_THAT(StackEndedEarly({"f (a.cc:1)", "0x1234 (libvendor.so)"}, 30),
              HasSubstr("ends in libvendor.so, a module without symbols"));
  const std::vector<std::string> deep(30, "recurse (a.cc:9)");
  EXPECT_EQ(StackEndedEarly(deep, 30), "ends at the depth limit (30 frames)");
  // A name that merely contains a root's is not one.
  EXPECT_THAT(StackEndedEarly({"mainloop (a.cc:2)"}, 30), HasSubstr("ends at mainloop"));
}

TEST(StackEndTest, AStackOfCudaDeliveryFramesAloneSaysTheUnwindDidNotReachTheCaller) {
  EXPECT_EQ(ClassifyStackEnd({"cuMemFree_v2 (libcuda.so.1)"}, 30).kind,
            StackEndKind::kCudaFramesOnly);
  EXPECT_THAT(StackEndedEarly({"0x7f00 (libcupti.so.13)"}, 30),
              HasSubstr("holds only frames of libcupti.so.13: the unwinder did not reach"));
  // A library's own frame after the driver's: an ordinary short stack.
  EXPECT_EQ(ClassifyStackEnd({"cuMemFree_v2 (libcuda.so.1)", "pool_free (libvendor.so)"}, 30).kind,
            StackEndKind::kNoUnwindInfo);
  EXPECT_EQ(ClassifyStackEnd({}, 30).kind, StackEndKind::kNoStack);
  EXPECT_EQ(ClassifyStackEnd({}, 30).why, "");
}

TEST(StackEndTest, TallyCountsRowsAndCallsByKindMostRowsFirst) {
  StackEndTally tally(3);
  tally.Add({"f (a.cc:1)", "main (a.cc:9)"}, 10);
  tally.Add({"g (a.cc:2)", "main (a.cc:9)"}, 1);
  tally.Add({"h (a.cc:3)"}, 4);                             // no unwind info
  tally.Add({"a (a.cc:1)", "b (a.cc:2)", "c (a.cc:3)"}, 2);  // depth limit
  tally.Add({"a (a.cc:1)", "0x10 (libx.so)"}, 5);           // no symbols
  tally.Add({"k (a.cc:4)"}, 3);                             // no unwind info
  tally.Add({}, 7);                                         // no stack
  const std::optional<StackEnds> s = tally.Summary();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->stacks, 7u);
  EXPECT_EQ(s->whole, 2u);
  ASSERT_EQ(s->ended_early.size(), 4u);
  EXPECT_EQ(s->ended_early[0].kind, "no_unwind_info");
  EXPECT_EQ(s->ended_early[0].stacks, 2u);
  EXPECT_EQ(s->ended_early[0].calls, 7u);
  uint64_t stacks = 0, calls = 0;
  for (const StackEnds::Ended& e : s->ended_early) stacks += e.stacks, calls += e.calls;
  EXPECT_EQ(stacks, 5u);
  EXPECT_EQ(calls, 4u + 2 + 5 + 3 + 7);
}

TEST(StackEndTest, CallsSeenOnlyInCuptiRecordsAreTheirOwnKind) {
  StackEndTally tally(30);
  tally.Add({"f (a.cc:1)", "main (a.cc:9)"}, 2);
  tally.AddCuptiRecordOnly(1);
  tally.AddCuptiRecordOnly(3);
  tally.Add({}, 4);  // a hooked call whose stack was not stored
  const std::optional<StackEnds> s = tally.Summary();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->stacks, 4u);
  EXPECT_EQ(s->whole, 1u);
  ASSERT_EQ(s->ended_early.size(), 2u);
  EXPECT_EQ(s->ended_early[0].kind, "cupti_record_only");
  EXPECT_EQ(s->ended_early[0].stacks, 2u);
  EXPECT_EQ(s->ended_early[0].calls, 4u);
  EXPECT_EQ(s->ended_early[1].kind, "no_stack");
  EXPECT_EQ(StackEndName(StackEndKind::kCuptiRecordOnly), std::string("cupti_record_only"));
}

TEST(StackEndTest, TallyWithoutAnyStackIsAbsent) {
  StackEndTally tally(30);
  EXPECT_FALSE(tally.Summary().has_value());
  tally.Add({}, 5);
  tally.Add({}, 1);
  EXPECT_FALSE(tally.Summary().has_value()) << "stacks off: nothing to say about their ends";
}

}  // namespace
}  // namespace brrr
