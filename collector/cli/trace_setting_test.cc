// Tests for the trace options: `--trace[=N]` parsing (bad values are command-line errors), the
// BRRR_TRACE environment variable (bad values warn and fall back to the default cap), precedence,
// and `brrr report --chrome-trace OUT` parsing.
#include "collector/cli/trace_setting.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collector/cli/command_line.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "viewer/format/trace.h"

namespace brrr::cli {
namespace {

using ::testing::HasSubstr;

TEST(TraceOptionTest, BareTraceMeansTheDefaultCapAndDoesNotEatTheCommand) {
  auto o = ParseRunOptions({"--trace", "./app", "7"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->trace_cap, std::optional<uint64_t>(4'000'000));
  EXPECT_EQ(o->command, (std::vector<std::string>{"./app", "7"}));
}

TEST(TraceOptionTest, UsageGivesTheDefaultAndLargestCaps) {
  EXPECT_THAT(UsageText(), HasSubstr(absl::StrCat("(default ", kDefaultTraceCap, ", at most ",
                                                  kMaxTraceCap, ")")));
}

TEST(TraceOptionTest, InlineValueSetsTheCap) {
  auto o = ParseRunOptions({"--trace=1000", "--", "./app"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->trace_cap, std::optional<uint64_t>(1000));
  auto most = ParseRunOptions({"--trace=100000000", "./app"});
  ASSERT_TRUE(most.ok()) << most.status();
  EXPECT_EQ(most->trace_cap, std::optional<uint64_t>(100'000'000));
  auto zero = ParseRunOptions({"--trace=0", "./app"});  // as BRRR_TRACE=0: none
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(zero->trace_cap, std::optional<uint64_t>(0));
  auto none = ParseRunOptions({"./app"});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->trace_cap.has_value());
}

TEST(TraceOptionTest, BadValuesAreErrors) {
  for (const char* bad : {"--trace=", "--trace=-5", "--trace=+5", "--trace=abc",
                          "--trace=12k", "--trace=100000001", "--trace=99999999999999999999"}) {
    auto o = ParseRunOptions({bad, "./app"});
    EXPECT_FALSE(o.ok()) << bad;
    EXPECT_THAT(std::string(o.status().message()), HasSubstr("--trace")) << bad;
  }
}

class TraceEnvTest : public ::testing::Test {
 protected:
  std::optional<uint64_t> Choose(const std::optional<uint64_t>& option) {
    return ChooseTraceCap(
        option,
        [this](const char* name) -> const char* {
          auto it = env_.find(name);
          return it == env_.end() ? nullptr : it->second.c_str();
        },
        [this](const std::string& line) { warnings_.push_back(line); });
  }
  std::map<std::string, std::string> env_;
  std::vector<std::string> warnings_;
};

TEST_F(TraceEnvTest, UnsetEmptyOrZeroMeansNoTrace) {
  EXPECT_FALSE(Choose(std::nullopt).has_value());
  env_["BRRR_TRACE"] = "";
  EXPECT_FALSE(Choose(std::nullopt).has_value());
  env_["BRRR_TRACE"] = "0";
  EXPECT_FALSE(Choose(std::nullopt).has_value());
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(TraceEnvTest, ANumberIsTheCap) {
  env_["BRRR_TRACE"] = "2500";
  EXPECT_EQ(Choose(std::nullopt), std::optional<uint64_t>(2500));
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(TraceEnvTest, BadValueWarnsOnceAndUsesTheTablesDefaultOfNoTrace) {
  // Every setting follows one rule (settings.def): a refused value is warned about and replaced
  // by the setting's default, here 0 (no trace).
  for (const char* bad : {"yes", "-1", "100000001", "1e6"}) {
    warnings_.clear();
    env_["BRRR_TRACE"] = bad;
    EXPECT_EQ(Choose(std::nullopt), std::nullopt) << bad;
    ASSERT_EQ(warnings_.size(), 1u) << bad;
    EXPECT_THAT(warnings_[0], HasSubstr(std::string("BRRR_TRACE=") + bad));
    EXPECT_THAT(warnings_[0], HasSubstr("using the default (0)"));
  }
}

TEST_F(TraceEnvTest, ZeroOnTheCommandLineMeansNoTrace) {
  env_["BRRR_TRACE"] = "5";
  EXPECT_EQ(Choose(std::optional<uint64_t>(0)), std::nullopt);
}

TEST_F(TraceEnvTest, TheCommandLineWins) {
  env_["BRRR_TRACE"] = "junk";
  EXPECT_EQ(Choose(std::optional<uint64_t>(7)), std::optional<uint64_t>(7));
  EXPECT_TRUE(warnings_.empty());
}

TEST(ChromeTraceOptionTest, ParsesBothFormsAndRejectsBadCombinations) {
  auto a = ParseReportOptions({"run.brrr", "--chrome-trace", "out.json"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->file, "run.brrr");
  EXPECT_EQ(a->chrome_trace, "out.json");
  auto b = ParseReportOptions({"--chrome-trace=t.json", "run.brrr"});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->chrome_trace, "t.json");
  EXPECT_EQ(b->file, "run.brrr");
  EXPECT_FALSE(ParseReportOptions({"run.brrr", "--chrome-trace"}).ok());
  EXPECT_FALSE(ParseReportOptions({"run.brrr", "--chrome-trace="}).ok());
  EXPECT_FALSE(ParseReportOptions({"run.brrr", "--json", "--chrome-trace", "x.json"}).ok());
}

}  // namespace
}  // namespace brrr::cli
