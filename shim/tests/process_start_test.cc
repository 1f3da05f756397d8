// Tests of the process start time: /proc/PID/stat lines real and garbled, the conversion to
// CLOCK_MONOTONIC, and this test process's own start (before now, after boot).
#include "shim/process_start.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstring>
#include <string>

namespace brrr::shim {
namespace {

bool Parse(const std::string& line, uint64_t* ticks) {
  return ParseStatStartTicks(line.data(), line.size(), ticks);
}

// Fields 3..21 of a real line, then starttime, then the rest.
std::string Line(const std::string& comm, const std::string& start) {
  return "4242 (" + comm + ") S 1 4242 4242 0 -1 4194560 2000 0 0 0 5 3 0 0 20 0 1 0 " + start +
         " 12345678 900 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
}

TEST(ProcessStartTest, ReadsStarttimeAfterTheCommandWhateverItHolds) {
  uint64_t ticks = 0;
  ASSERT_TRUE(Parse(Line("python3", "123456"), &ticks));
  EXPECT_EQ(ticks, 123456u);
  // A command name with spaces and parentheses: fields count from the last ')'.
  ASSERT_TRUE(Parse(Line("a) b (c) 1 2 3", "777"), &ticks));
  EXPECT_EQ(ticks, 777u);
}

TEST(ProcessStartTest, GarbledLinesAreUnknown) {
  uint64_t ticks = 99;
  EXPECT_FALSE(Parse("", &ticks));
  EXPECT_FALSE(Parse("4242 python3 S 1", &ticks));                // no ')'
  EXPECT_FALSE(Parse("4242 (python3) S 1 4242", &ticks));         // cut short
  EXPECT_FALSE(Parse(Line("x", "12a4"), &ticks));                 // not a number
  EXPECT_FALSE(Parse(Line("x", ""), &ticks));                     // empty field
  EXPECT_FALSE(Parse(Line("x", "123456789012345678901"), &ticks));  // past 64 bits
  EXPECT_FALSE(ParseStatStartTicks(nullptr, 10, &ticks));
  EXPECT_EQ(ticks, 99u);
  // Every prefix of a real line: never a read past it, a value only once the field is whole.
  const std::string line = Line("cmd", "4321");
  for (size_t n = 0; n < line.size(); ++n) {
    uint64_t t = 0;
    if (ParseStatStartTicks(line.data(), n, &t)) EXPECT_EQ(t, 4321u) << n;
  }
}

TEST(ProcessStartTest, TicksSinceBootBecomeMonotonicTime) {
  // Started 5 s after boot (500 ticks at 100 Hz), 60 s ago by the boot clock (65 s now), with the
  // monotonic clock at 60 s: it started at its zero, or before it (a suspend): unknown (0).
  EXPECT_EQ(StartMonotonicNs(500, 100, 65'000'000'000, 60'000'000'000), 0u);
  EXPECT_EQ(StartMonotonicNs(500, 100, 100'000'000'000, 90'000'000'000), 0u);
  // Started at 50 s on the boot clock, now 100 s boot and 98 s monotonic: 48 s monotonic.
  EXPECT_EQ(StartMonotonicNs(5'000, 100, 100'000'000'000, 98'000'000'000), 48'000'000'000u);
  // A fraction of a second: 3 ticks at 250 Hz = 12 ms.
  EXPECT_EQ(StartMonotonicNs(3, 250, 1'000'000'000, 2'000'000'000), 2'000'000'000u - 988'000'000u);
  EXPECT_EQ(StartMonotonicNs(5'000, 0, 100'000'000'000, 98'000'000'000), 0u);  // no tick rate
  EXPECT_EQ(StartMonotonicNs(20'000, 100, 100'000'000'000, 98'000'000'000), 0u);  // in the future
  EXPECT_EQ(StartMonotonicNs(UINT64_MAX, 100, 100'000'000'000, 98'000'000'000), 0u);
}

TEST(ProcessStartTest, ThisProcessStartedBeforeNow) {
  const uint64_t start = ReadProcessStartMonotonicNs();
  ASSERT_NE(start, 0u);
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t now = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull +
                       static_cast<uint64_t>(ts.tv_nsec);
  EXPECT_LE(start, now);
  EXPECT_LT(now - start, 3'600'000'000'000ull) << "a test process an hour old";
}

}  // namespace
}  // namespace brrr::shim
