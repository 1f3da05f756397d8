// NcclGroup: processes meeting at collectives through the shared file, ranks, timeouts, cleanup.
#include "nccl_group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace simcuda {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kSecond = 1'000'000'000;

std::string UniqueGroup(const char* what) {
  return std::string("test-") + what + "-" + std::to_string(getpid());
}

bool FileExists(const std::string& group) {
  const std::string path = "/dev/shm/simcuda-nccl-" + std::to_string(getuid()) + "-" + group;
  return access(path.c_str(), F_OK) == 0;
}

// Two processes (this one and a child) meet at three collectives: each gets the later start of
// the two, and the file is gone once both left.
TEST(NcclGroupTest, EachRankGetsTheLastArrivalOfEveryCollective) {
  const std::string name = UniqueGroup("meet");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string error;
    auto group = NcclGroup::Join(name, 2, 1, 10 * kSecond, &error);
    if (group == nullptr) _exit(10);
    std::string missing;
    const uint64_t starts[] = {1'000, 5'000, 9'000};
    const uint64_t want[] = {2'000, 5'000, 9'500};
    for (uint64_t k = 0; k < 3; ++k) {
      const std::optional<uint64_t> last = group->Arrive(k, starts[k], &missing);
      if (!last.has_value() || *last != want[k]) _exit(20 + static_cast<int>(k));
    }
    group->Leave();
    _exit(0);
  }
  std::string error;
  auto group = NcclGroup::Join(name, 2, 0, 10 * kSecond, &error);
  ASSERT_NE(group, nullptr) << error;
  EXPECT_EQ(group->rank(), 0u);
  std::string missing;
  EXPECT_EQ(group->Arrive(0, 2'000, &missing), 2'000u);
  EXPECT_EQ(group->Arrive(1, 4'000, &missing), 5'000u);
  EXPECT_EQ(group->Arrive(2, 9'500, &missing), 9'500u);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  group->Leave();
  EXPECT_FALSE(FileExists(name));
}

TEST(NcclGroupTest, AMissingRankTimesOutAndIsNamed) {
  const std::string name = UniqueGroup("alone");
  std::string error;
  auto group = NcclGroup::Join(name, 3, std::nullopt, 50'000'000, &error);
  ASSERT_NE(group, nullptr) << error;
  std::string missing;
  EXPECT_FALSE(group->Arrive(0, 1'000, &missing).has_value());
  EXPECT_EQ(missing, group->rank() == 0 ? "1, 2" : missing);
  group->Leave();
  EXPECT_FALSE(FileExists(name));
}

TEST(NcclGroupTest, ARankHeldByALiveProcessIsRefusedAndFreeOnesAreClaimed) {
  const std::string name = UniqueGroup("taken");
  std::string error;
  auto first = NcclGroup::Join(name, 2, 0, kSecond, &error);
  ASSERT_NE(first, nullptr) << error;
  // This process holds rank 0; asking for it again (as a second process of the same pid would)
  // is refused while the holder lives.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string e;
    if (NcclGroup::Join(name, 2, 0, kSecond, &e) != nullptr) _exit(1);
    if (e.find("rank 0 is taken by pid") == std::string::npos) _exit(2);
    unsetenv("RANK");
    auto claimed = NcclGroup::Join(name, 2, std::nullopt, kSecond, &e);
    if (claimed == nullptr || claimed->rank() != 1) _exit(3);
    claimed->Leave();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  first->Leave();
}

TEST(NcclGroupTest, AFileLeftByDeadProcessesStartsOver) {
  const std::string name = UniqueGroup("stale");
  // A child joins, arrives at collective 0 and dies without leaving.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string e;
    auto group = NcclGroup::Join(name, 2, 1, kSecond, &e);
    std::string missing;
    if (group != nullptr) group->Arrive(0, 7'000, &missing);  // times out: rank 0 never came
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(FileExists(name));
  // Its arrival must not count for this job's collective 0.
  std::string error;
  auto group = NcclGroup::Join(name, 2, 0, 50'000'000, &error);
  ASSERT_NE(group, nullptr) << error;
  std::string missing;
  EXPECT_FALSE(group->Arrive(0, 1'000, &missing).has_value());
  EXPECT_EQ(missing, "1");
  group->Leave();
}

TEST(NcclGroupTest, BadSizesAndRanksAreRefused) {
  std::string error;
  EXPECT_EQ(NcclGroup::Join(UniqueGroup("bad"), 1, std::nullopt, kSecond, &error), nullptr);
  EXPECT_EQ(NcclGroup::Join(UniqueGroup("bad"), 2, 2, kSecond, &error), nullptr);
  EXPECT_THAT(error, HasSubstr("bad group size or rank"));
}

}  // namespace
}  // namespace simcuda
