// Tests of the output path choice and %p expansion.
#include "collector/cli/output_path.h"

#include <gtest/gtest.h>

namespace brrr::cli {
namespace {

TEST(OutputPathTest, OptionThenEnvironmentThenDefault) {
  EXPECT_EQ(ChooseOutputPattern("a.brrr", "b.brrr"), "a.brrr");
  EXPECT_EQ(ChooseOutputPattern("", "b.brrr"), "b.brrr");
  EXPECT_EQ(ChooseOutputPattern("", ""), "brrr-%p.brrr");
  EXPECT_EQ(ChooseOutputPattern("", nullptr), "brrr-%p.brrr");
}

TEST(OutputPathTest, ExpandsPidAndPercent) {
  EXPECT_EQ(ExpandOutputPattern("brrr-%p.brrr", 42), "brrr-42.brrr");
  EXPECT_EQ(ExpandOutputPattern("/tmp/%p/%p", 7), "/tmp/7/7");
  EXPECT_EQ(ExpandOutputPattern("100%%-%x-%", 7), "100%-%x-%");
  EXPECT_EQ(ExpandOutputPattern("", 7), "brrr-7.brrr");
}

}  // namespace
}  // namespace brrr::cli
