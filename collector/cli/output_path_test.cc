// Tests of the output path choice and %p / %r / %h expansion.
#include "collector/cli/output_path.h"

#include <gtest/gtest.h>

namespace brrr::cli {
namespace {

TEST(OutputPathTest, OptionThenEnvironmentThenDefault) {
  EXPECT_EQ(ChooseOutputPattern("a.brrr", "b.brrr"), "a.brrr");
  EXPECT_EQ(ChooseOutputPattern("", "b.brrr"), "b.brrr");
  EXPECT_EQ(ChooseOutputPattern("", ""), "brrr-%p.brrr");
  // A directory gets the default name inside it, not a file named like it (issue 47).
  const std::string dir = ::testing::TempDir();
  const std::string slash = dir.back() == '/' ? "" : "/";
  EXPECT_EQ(ChooseOutputPattern(dir, nullptr), dir + slash + "brrr-%p.brrr");
  EXPECT_EQ(ChooseOutputPattern("", "out/"), "out/brrr-%p.brrr");
  EXPECT_EQ(ChooseOutputPattern("", nullptr), "brrr-%p.brrr");
}

TEST(OutputPathTest, ExpandsPidAndPercent) {
  EXPECT_EQ(ExpandOutputPattern("brrr-%p.brrr", 42), "brrr-42.brrr");
  EXPECT_EQ(ExpandOutputPattern("/tmp/%p/%p", 7), "/tmp/7/7");
  EXPECT_EQ(ExpandOutputPattern("100%%-%x-%", 7), "100%-%x-%");
  EXPECT_EQ(ExpandOutputPattern("", 7), "brrr-7.brrr");
}

TEST(OutputPathTest, ExpandsRankAndHost) {
  EXPECT_EQ(ExpandOutputPattern("job/%h-r%r-%p.brrr", 42, 3, "node7"), "job/node7-r3-42.brrr");
  EXPECT_EQ(ExpandOutputPattern("r%r.brrr", 42), "rnorank.brrr");
  EXPECT_EQ(ExpandOutputPattern("%h.brrr", 42, 0, ""), "unknownhost.brrr");
  EXPECT_EQ(ExpandOutputPattern("%h.brrr", 42, 0, "a/b"), "a_b.brrr");
  EXPECT_EQ(ExpandOutputPattern("%%r%r", 1, 0, "h"), "%r0");
}

}  // namespace
}  // namespace brrr::cli
