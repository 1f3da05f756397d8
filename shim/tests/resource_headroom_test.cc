// Whether brrr fits under the process's limits: address space (ulimit -v) and processes (ulimit -u),
// each with brrr taking at most half of what is left; no limit never declines; root is not held to
// RLIMIT_NPROC (the kernel does not enforce it for root).
#include "shim/resource_headroom.h"

#include <gtest/gtest.h>

#include <string>

namespace brrr::shim {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(ResourceHeadroomTest, NoLimitNeverDeclines) {
  char why[256];
  EXPECT_TRUE(EnoughHeadroom(HeadroomFacts{}, 76 * kMiB, why, sizeof(why)));
  EXPECT_STREQ(why, "");
}

// The case: `ulimit -v 100000` (97 MiB) with the app at 80 MB: brrr's ~170 MiB does not fit.
TEST(ResourceHeadroomTest, AnAddressSpaceLimitWithoutRoomForBrrrDeclinesAndSaysWhich) {
  HeadroomFacts f;
  f.as_limit = 100'000 * 1024;
  f.as_used = 80 * kMiB;
  char why[256];
  EXPECT_FALSE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
  EXPECT_NE(std::string(why).find("address-space limit (ulimit -v: 97 MiB)"), std::string::npos)
      << why;
  // Room for twice brrr's share: profiled.
  f.as_limit = 80 * kMiB + 2 * (76 * kMiB + kOtherAddressSpaceBytes);
  EXPECT_TRUE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
  f.as_limit -= 2;
  EXPECT_FALSE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
}

TEST(ResourceHeadroomTest, AProcessLimitWithoutRoomForBrrrsTasksDeclines) {
  HeadroomFacts f;
  f.nproc_limit = 6;
  f.nproc_used = 3;
  char why[256];
  EXPECT_FALSE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
  EXPECT_NE(std::string(why).find("process limit (ulimit -u: 6) leaves 3"), std::string::npos)
      << why;
  f.nproc_limit = 3 + 2 * kBrrrTasks;
  EXPECT_TRUE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
  f.nproc_limit = 6;
  f.root = true;  // not enforced for root
  EXPECT_TRUE(EnoughHeadroom(f, 76 * kMiB, why, sizeof(why)));
}

TEST(ResourceHeadroomTest, ThisProcessFactsAreRead) {
  const HeadroomFacts f = ReadHeadroomFacts();
  if (f.as_limit != UINT64_MAX) EXPECT_GT(f.as_used, 0u);
  if (!f.root && f.nproc_limit < kNprocCountedBelow) EXPECT_GE(f.nproc_used, 1u);
}

}  // namespace
}  // namespace brrr::shim
