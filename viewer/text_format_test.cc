// Tests for text_format.h: durations, counts, percentages, terminal safety, width fitting.
// Must never: derive expected values from the code under test.
#include "viewer/text_format.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace brrr {
namespace {

TEST(FormatDurationTest, PicksTheUnitAndThreeSignificantDigits) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(999), "999 ns");
  EXPECT_EQ(FormatDuration(1'000), "1.00 us");
  EXPECT_EQ(FormatDuration(12'345), "12.3 us");
  EXPECT_EQ(FormatDuration(123'456), "123 us");
  EXPECT_EQ(FormatDuration(999'499), "999 us");
  EXPECT_EQ(FormatDuration(999'500), "1.00 ms");
  EXPECT_EQ(FormatDuration(1'500'000), "1.50 ms");
  EXPECT_EQ(FormatDuration(2'000'000'000), "2.00 s");
  EXPECT_EQ(FormatDuration(1'234'000'000'000), "1234 s");
  EXPECT_EQ(FormatDuration(-12'345), "-12.3 us");
}

TEST(FormatDurationTest, ExtremesDoNotOverflow) {
  EXPECT_EQ(FormatDuration(std::numeric_limits<int64_t>::min()).substr(0, 1), "-");
  EXPECT_NE(FormatDuration(std::numeric_limits<int64_t>::max()).find(" s"), std::string::npos);
}

TEST(FormatCountTest, GroupsThousands) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(FormatPercentTest, OneDecimalAndDashForNoWhole) {
  EXPECT_EQ(FormatPercent(1, 3), "33.3%");
  EXPECT_EQ(FormatPercent(3, 3), "100.0%");
  EXPECT_EQ(FormatPercent(1, 0), "-");
}

TEST(TerminalSafeTest, ReplacesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(TerminalSafe("a\x1b[31mb"), "a?[31mb");
  EXPECT_EQ(TerminalSafe("x\ty\nz"), "x y z");
  EXPECT_EQ(TerminalSafe("\x7f\xc2\x9b"), "??");  // DEL and the C1 CSI
  EXPECT_EQ(TerminalSafe("bad\xff\xc3"), "bad??");
  EXPECT_EQ(TerminalSafe("\xc3\xa9t\xc3\xa9 \xe2\x9c\x93"), "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93");
}

TEST(FitWidthTest, ElidesEndOrMiddleByCodePoints) {
  EXPECT_EQ(FitWidth("short", 10, Elide::kEnd), "short");
  EXPECT_EQ(FitWidth("abcdefghij", 7, Elide::kEnd), "abcd...");
  EXPECT_EQ(FitWidth("abcdefghij", 7, Elide::kMiddle), "ab...ij");
  EXPECT_EQ(FitWidth("abcdefghij", 4, Elide::kMiddle), "a...");
  EXPECT_EQ(FitWidth("abcdefghij", 2, Elide::kEnd), "..");
  // Four two-byte code points, cut to 3 + "..." = never half a code point.
  EXPECT_EQ(FitWidth("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, Elide::kEnd), "\xc3\xa9...");
  EXPECT_EQ(DisplayWidth("\xc3\xa9t\xc3\xa9"), 3u);
}

// The demo's kernel showed as "(anonymous namespace)::...like(float*, int, int)": the function's
// own name is what a reader looks for.
TEST(FitWidthTest, ASymbolKeepsItsFunctionsNameLongest) {
  const std::string demo = "(anonymous namespace)::big_matmul_like(float*, int, int)";
  EXPECT_EQ(FitWidth(demo, 60, Elide::kSymbol), demo);
  EXPECT_EQ(FitWidth(demo, 45, Elide::kSymbol), "...::big_matmul_like(float*, int, int)");
  EXPECT_EQ(FitWidth(demo, 25, Elide::kSymbol), "big_matmul_like(...)");
  EXPECT_EQ(FitWidth(demo, 10, Elide::kSymbol), "big_mat...");
  // Scopes inside template arguments are not the function's.
  const std::string templated = "at::native::vectorized_kernel<4, at::Add<float>>(int, float*)";
  EXPECT_EQ(FitWidth(templated, 60, Elide::kSymbol),
            "...::vectorized_kernel<4, at::Add<float>>(int, float*)");
  EXPECT_EQ(FitWidth(templated, 50, Elide::kSymbol), "vectorized_kernel<4, at::Add<float>>(...)");
  // A name that is not a C++ function's (an NVTX-ish label, unbalanced brackets) still fits.
  EXPECT_LE(DisplayWidth(FitWidth("a::b<c(d::e", 6, Elide::kSymbol)), 6u);
  EXPECT_LE(DisplayWidth(FitWidth(std::string(200, ':'), 12, Elide::kSymbol)), 12u);
}

TEST(PadTest, PadsByDisplayWidthAndNeverTruncates) {
  EXPECT_EQ(PadRight("\xc3\xa9", 3), "\xc3\xa9  ");
  EXPECT_EQ(PadLeft("ab", 4), "  ab");
  EXPECT_EQ(PadLeft("abcdef", 4), "abcdef");
}

}  // namespace
}  // namespace brrr
