// Tests of StackEndedEarly: whole stacks say nothing; short ones say why.
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

}  // namespace
}  // namespace brrr
