// Tests query-polling detection on one thread.
#include "collector/analysis/poll_detector.h"

#include "collector/analysis/stall_classifier.h"
#include "gtest/gtest.h"

namespace brrr {
namespace {

constexpr CallKey kQuery = 106;  // any key works; the detector only compares keys
constexpr CallKey kLaunch = 1;

TEST(PollDetectorTest, RepeatedNotReadyUntilDoneIsOneStall) {
  PollDetector d;
  EXPECT_FALSE(d.OnCall(kQuery, true, kResultNotReady, 7, 100, 110));
  EXPECT_FALSE(d.OnCall(kQuery, true, kResultNotReady, 7, 200, 210));
  EXPECT_FALSE(d.OnCall(kQuery, true, kResultNotReady, 7, 300, 310));
  std::optional<PollStall> s = d.OnCall(kQuery, true, 0, 7, 400, 415);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start_ns, 100);
  EXPECT_EQ(s->end_ns, 415);
  EXPECT_EQ(s->queries, 4u);
  EXPECT_EQ(s->stack_id, 7u);
  EXPECT_FALSE(d.active());
}

TEST(PollDetectorTest, SingleNotReadyIsNotPolling) {
  PollDetector d;
  EXPECT_FALSE(d.OnCall(kQuery, true, kResultNotReady, 0, 100, 110));
  EXPECT_FALSE(d.OnCall(kLaunch, false, 0, 0, 120, 130));
  EXPECT_FALSE(d.OnCall(kQuery, true, kResultNotReady, 0, 200, 210));
  EXPECT_FALSE(d.OnCall(kQuery, true, 0, 0, 300, 310));
}

TEST(PollDetectorTest, AnotherCallEndsTheRunAtTheLastQuery) {
  PollDetector d;
  d.OnCall(kQuery, true, kResultNotReady, 0, 100, 110);
  d.OnCall(kQuery, true, kResultNotReady, 0, 150, 160);
  std::optional<PollStall> s = d.OnCall(kLaunch, false, 0, 0, 500, 520);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start_ns, 100);
  EXPECT_EQ(s->end_ns, 160);
  EXPECT_EQ(s->queries, 2u);
}

TEST(PollDetectorTest, FlushEndsAnOpenRun) {
  PollDetector d;
  d.OnCall(kQuery, true, kResultNotReady, 0, 100, 110);
  d.OnCall(kQuery, true, kResultNotReady, 0, 150, 160);
  d.OnCall(kQuery, true, kResultNotReady, 0, 170, 180);
  std::optional<PollStall> s = d.Flush();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->end_ns, 180);
  EXPECT_FALSE(d.Flush());
}

}  // namespace
}  // namespace brrr
