// Tests of WindowSchedule: windows of the asked length, one per period and inside it, covering
// the asked share of time; offsets spread over the whole period (no aliasing with a loop whose
// period is the window's); the same seed gives the same windows.
#include "shim/window_schedule.h"

#include <gtest/gtest.h>

#include <vector>

namespace brrr::shim {
namespace {

TEST(WindowScheduleTest, OneWindowOfTheLengthInsideEachPeriod) {
  WindowSchedule s(/*permille=*/100, /*window_ns=*/50, /*seed=*/7, /*origin_ns=*/1000);
  EXPECT_EQ(s.period_ns(), 500u);  // 50 ns is 10 % of 500 ns
  for (uint64_t k = 0; k < 1000; ++k) {
    const WindowSchedule::Window w = s.current();
    EXPECT_EQ(w.end_ns - w.start_ns, 50u);
    EXPECT_GE(w.start_ns, 1000 + 500 * k);
    EXPECT_LE(w.end_ns, 1000 + 500 * (k + 1));
    s.Advance();
  }
}

TEST(WindowScheduleTest, PhasesSpreadOverThePeriod) {
  // A loop whose period is the window's (50 ns): the window's phase modulo 50 must be spread, not
  // stuck; and the offsets within the period must reach both halves of it.
  WindowSchedule s(100, 50, 12345, 0);
  std::vector<int> phase_bins(5, 0), half(2, 0);
  for (int k = 0; k < 5000; ++k) {
    const uint64_t offset = s.current().start_ns - s.period_start_ns();
    ++phase_bins[(s.current().start_ns % 50) / 10];
    ++half[offset < 225 ? 0 : 1];
    s.Advance();
  }
  for (int n : phase_bins) EXPECT_GT(n, 800) << "phases are not uniform";  // 1000 expected each
  EXPECT_GT(half[0], 2200);
  EXPECT_GT(half[1], 2200);
}

TEST(WindowScheduleTest, SameSeedSameWindowsAndFullShareIsContiguous) {
  WindowSchedule a(250, 40, 99, 0), b(250, 40, 99, 0), c(250, 40, 100, 0);
  bool differs = false;
  for (int k = 0; k < 50; ++k) {
    EXPECT_EQ(a.current().start_ns, b.current().start_ns);
    differs |= a.current().start_ns != c.current().start_ns;
    a.Advance();
    b.Advance();
    c.Advance();
  }
  EXPECT_TRUE(differs);
  WindowSchedule full(1000, 40, 1, 0);  // 100 %: windows tile time
  for (uint64_t k = 0; k < 10; ++k) {
    EXPECT_EQ(full.current().start_ns, 40 * k);
    full.Advance();
  }
}

// Turning tracing on took 12 ms (an attach): the window ends a window length after it opened, but
// never after its period; a window opened on time keeps its end.
TEST(WindowScheduleTest, AWindowThatOpenedLateStillLastsAWindowLengthWithinItsPeriod) {
  WindowSchedule s(/*permille=*/100, /*window_ns=*/50'000'000, /*seed=*/7, /*origin_ns=*/1'000);
  const WindowSchedule::Window w = s.current();
  s.OpenedAt(w.start_ns);
  EXPECT_EQ(s.current().end_ns, w.end_ns);
  s.OpenedAt(w.start_ns + 12'000'000);
  EXPECT_EQ(s.current().end_ns, w.end_ns + 12'000'000 > s.period_start_ns() + s.period_ns()
                                    ? s.period_start_ns() + s.period_ns()
                                    : w.end_ns + 12'000'000);
  // Opened so late that a window length would cross into the next period: cut at its end.
  s.OpenedAt(s.period_start_ns() + s.period_ns() - 1'000'000);
  EXPECT_EQ(s.current().end_ns, s.period_start_ns() + s.period_ns());
  s.Advance();
  EXPECT_EQ(s.current().end_ns - s.current().start_ns, 50'000'000u);
}

// Issue 47: a 0.73 s run at 10 % traced one 50 ms window, its error bound resting on one sample.
// The run's first schedule ramps: windows of 6.25, 12.5, 25, then 50 ms, each period at 10 %, so
// three windows lie within the first 0.44 s; past the ramp the schedule is the fixed one.
TEST(WindowScheduleTest, AShortRunGetsSeveralWindowsFromARamp) {
  constexpr uint64_t kMs = 1'000'000;
  WindowSchedule s(/*permille=*/100, /*window_ns=*/50 * kMs, /*seed=*/3, /*origin_ns=*/0,
                   /*ramp=*/true);
  uint64_t windows_before_half_second = 0;
  const uint64_t expected_window[] = {6'250'000, 12'500'000, 25'000'000, 50 * kMs, 50 * kMs};
  for (uint64_t expected : expected_window) {
    const WindowSchedule::Window w = s.current();
    EXPECT_EQ(w.end_ns - w.start_ns, expected);
    EXPECT_EQ(s.period_ns(), expected * 10) << "the share stays 10 %";
    EXPECT_GE(w.start_ns, s.period_start_ns());
    EXPECT_LE(w.end_ns, s.period_start_ns() + s.period_ns());
    windows_before_half_second += w.end_ns <= 440 * kMs;
    s.Advance();
  }
  EXPECT_GE(windows_before_half_second, 3u);
  // Short asked windows ramp from 5 ms at the least; shorter ones do not ramp.
  WindowSchedule ten(100, 10 * kMs, 3, 0, true);
  EXPECT_EQ(ten.current().end_ns - ten.current().start_ns, 5 * kMs);
  ten.Advance();
  EXPECT_EQ(ten.current().end_ns - ten.current().start_ns, 10 * kMs);
  WindowSchedule tiny(100, 2 * kMs, 3, 0, true);
  EXPECT_EQ(tiny.current().end_ns - tiny.current().start_ns, 2 * kMs);
}

}  // namespace
}  // namespace brrr::shim
