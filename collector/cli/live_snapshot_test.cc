// Tests of the snapshot period's parsing (--snapshot-every, BRRR_SNAPSHOT_EVERY): units, off,
// bad values rejected with the reason, the option before the variable before the default; and
// brrr ctl's usage errors.
#include "collector/cli/live_snapshot.h"

#include <map>
#include <string>
#include <vector>

#include "collector/cli/command_line.h"
#include "collector/cli/subcommands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::cli {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

TEST(SnapshotEveryTest, UnitsAndOff) {
  EXPECT_EQ(*ParseSnapshotEvery("10s"), milliseconds(10'000));
  EXPECT_EQ(*ParseSnapshotEvery("500ms"), milliseconds(500));
  EXPECT_EQ(*ParseSnapshotEvery("2m"), milliseconds(120'000));
  EXPECT_EQ(*ParseSnapshotEvery("1h"), milliseconds(3'600'000));
  EXPECT_EQ(*ParseSnapshotEvery("7"), milliseconds(7'000));
  EXPECT_EQ(*ParseSnapshotEvery("0"), milliseconds(0));
  EXPECT_EQ(*ParseSnapshotEvery("off"), milliseconds(0));
}

TEST(SnapshotEveryTest, BadValuesAreRejected) {
  for (const char* bad : {"", "s", "ms", "-1s", "1.5s", "10x", "99ms", "abc", "5 s"}) {
    EXPECT_FALSE(ParseSnapshotEvery(bad).ok()) << bad;
  }
  EXPECT_THAT(std::string(ParseSnapshotEvery("99ms").status().message()), HasSubstr("under 100ms"));
}

TEST(SnapshotEveryTest, OptionThenVariableThenDefault) {
  std::map<std::string, std::string> env;
  const auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  std::vector<std::string> warnings;
  const auto warn = [&](const std::string& w) { warnings.push_back(w); };
  EXPECT_EQ(ChooseSnapshotEvery(std::nullopt, get, warn), kDefaultSnapshotEvery);
  env[kSnapshotEveryVariable] = "300ms";
  EXPECT_EQ(ChooseSnapshotEvery(std::nullopt, get, warn), milliseconds(300));
  EXPECT_EQ(ChooseSnapshotEvery(std::string("0"), get, warn), milliseconds(0));
  env[kSnapshotEveryVariable] = "soon";
  EXPECT_EQ(ChooseSnapshotEvery(std::nullopt, get, warn), kDefaultSnapshotEvery);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("BRRR_SNAPSHOT_EVERY"));
}

TEST(SnapshotEveryTest, RunOption) {
  auto ok = ParseRunOptions({"--snapshot-every", "30s", "--", "app"});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->snapshot_every, "30s");
  auto bad = ParseRunOptions({"--snapshot-every=fast", "app"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--snapshot-every"));
}

TEST(CtlTest, UsageErrors) {
  EXPECT_EQ(CtlSubcommand({}), kUsageExitCode);
  EXPECT_EQ(CtlSubcommand({"123"}), kUsageExitCode);
  EXPECT_EQ(CtlSubcommand({"123", "stop"}), kUsageExitCode);
  EXPECT_EQ(CtlSubcommand({"abc", "pause"}), kUsageExitCode);
  EXPECT_EQ(CtlSubcommand({"0", "pause"}), kUsageExitCode);
  // A pid with no segment: not found (1), nothing else touched.
  EXPECT_EQ(CtlSubcommand({"999999999", "pause"}), 1);
}

}  // namespace
}  // namespace brrr::cli
