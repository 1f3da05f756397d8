// Tests of the settings table's shared parsing rules (settings.h) and of the table itself: the
// words each kind accepts, the limits, and the messages a refused value gets.
#include "shim/settings.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace brrr::settings {
namespace {

std::string Describe(Setting s, ParseError e) {
  char buf[128];
  return DescribeError(SpecOf(s), e, buf, sizeof(buf));
}

TEST(SettingsTest, TableHasUniqueNamesAllStartingWithBrrr) {
  std::set<std::string> names;
  for (const Spec& spec : kSpecs) {
    EXPECT_EQ(std::string(spec.name).rfind("BRRR_", 0), 0u) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " is listed twice";
    EXPECT_NE(std::string(spec.meaning), "") << spec.name;
    if (spec.kind == Kind::kNumber || spec.kind == Kind::kPowerOfTwo) {
      EXPECT_LE(spec.lo, spec.default_number) << spec.name;
      EXPECT_LE(spec.default_number, spec.hi) << spec.name;
    }
  }
}

TEST(SettingsTest, BoolWords) {
  bool v = false;
  EXPECT_EQ(ParseBool("on", &v), ParseError::kOk);
  EXPECT_TRUE(v);
  EXPECT_EQ(ParseBool("false", &v), ParseError::kOk);
  EXPECT_FALSE(v);
  EXPECT_EQ(ParseBool("yes", &v), ParseError::kNotBool);
  EXPECT_EQ(ParseBool("", &v), ParseError::kNotBool);
  EXPECT_EQ(ParseBool("1 ", &v), ParseError::kNotBool);
}

TEST(SettingsTest, NumbersAreWholeAndWithinLimits) {
  uint64_t v = 0;
  const Spec& wait = SpecOf(Setting::kReportWaitMs);  // 0 .. 600000
  EXPECT_EQ(ParseNumber(wait, "0", &v), ParseError::kOk);
  EXPECT_EQ(v, 0u);
  EXPECT_EQ(ParseNumber(wait, "600000", &v), ParseError::kOk);
  EXPECT_EQ(v, 600000u);
  EXPECT_EQ(ParseNumber(wait, "600001", &v), ParseError::kOutOfRange);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1.5", "0x10", "99999999999999999999999"}) {
    EXPECT_EQ(ParseNumber(wait, bad, &v), ParseError::kNotNumber) << bad;
  }
  EXPECT_EQ(v, 600000u);  // untouched by refused values
}

TEST(SettingsTest, PowersOfTwoAreNotRoundedUp) {
  uint64_t v = 0;
  const Spec& ring = SpecOf(Setting::kRingRecords);
  EXPECT_EQ(ParseNumber(ring, "1024", &v), ParseError::kOk);
  EXPECT_EQ(v, 1024u);
  EXPECT_EQ(ParseNumber(ring, "1000", &v), ParseError::kNotPowerOfTwo);
  EXPECT_EQ(ParseNumber(ring, "4", &v), ParseError::kNotPowerOfTwo);  // below the minimum
  EXPECT_EQ(Describe(Setting::kRingRecords, ParseError::kNotPowerOfTwo),
            "not a power of two between 8 and 4194304");
}

TEST(SettingsTest, ChoicesAreExact) {
  uint32_t i = 99;
  const Spec& clock = SpecOf(Setting::kClock);
  EXPECT_EQ(ParseChoice(clock, "tsc", &i), ParseError::kOk);
  EXPECT_EQ(i, 0u);
  EXPECT_EQ(ParseChoice(clock, "monotonic", &i), ParseError::kOk);
  EXPECT_EQ(i, 1u);
  for (const char* bad : {"", "ts", "tscx", "monotonic|", "Monotonic"}) {
    EXPECT_EQ(ParseChoice(clock, bad, &i), ParseError::kNotChoice) << bad;
  }
  EXPECT_EQ(Describe(Setting::kClock, ParseError::kNotChoice), "not one of tsc, monotonic");
}

TEST(SettingsTest, Messages) {
  EXPECT_EQ(Describe(Setting::kStacks, ParseError::kNotBool), "not 1 or 0");
  EXPECT_EQ(Describe(Setting::kFlushMs, ParseError::kNotNumber),
            "not a whole number from 0 to 3600000");
  EXPECT_EQ(Describe(Setting::kFlushMs, ParseError::kOutOfRange), "not between 0 and 3600000");
  char small[8];
  EXPECT_EQ(std::string(DescribeError(SpecOf(Setting::kFlushMs), ParseError::kNotNumber, small,
                                      sizeof(small))),
            "not a w");  // cut, still terminated
}

TEST(SettingsTest, PercentagesInPermille) {
  const Spec& spec = SpecOf(Setting::kSampleDevice);
  uint64_t v = 0;
  EXPECT_EQ(ParsePercent(spec, "10%", &v), ParseError::kOk);
  EXPECT_EQ(v, 100u);
  EXPECT_EQ(ParsePercent(spec, "2.5%", &v), ParseError::kOk);
  EXPECT_EQ(v, 25u);
  EXPECT_EQ(ParsePercent(spec, "100", &v), ParseError::kOk);
  EXPECT_EQ(v, 1000u);
  EXPECT_EQ(ParsePercent(spec, "0.1%", &v), ParseError::kOk);
  EXPECT_EQ(v, 1u);
  for (const char* bad : {"0%", "0.05%", "101%", "10%%", "-5%", "1.25%", "ten", "", "%", "5.%",
                          "99999999999999999999"}) {
    EXPECT_EQ(ParsePercent(spec, bad, &v), ParseError::kNotPercent) << bad;
  }
  EXPECT_EQ(Describe(Setting::kSampleDevice, ParseError::kNotPercent),
            "not a percentage (like 10% or 2.5%) from 0.1% to 100%");
}

TEST(SettingsTest, Defaults) {
  char buf[32];
  EXPECT_STREQ(DescribeDefault(SpecOf(Setting::kLaunchSample), buf, sizeof(buf)), "64");
  EXPECT_STREQ(DescribeDefault(SpecOf(Setting::kStacks), buf, sizeof(buf)), "1");
  EXPECT_STREQ(DescribeDefault(SpecOf(Setting::kClock), buf, sizeof(buf)), "tsc");
  EXPECT_STREQ(DescribeDefault(SpecOf(Setting::kShm), buf, sizeof(buf)), "");
  EXPECT_STREQ(DescribeDefault(SpecOf(Setting::kSampleDevice), buf, sizeof(buf)), "100%");
}

}  // namespace
}  // namespace brrr::settings
