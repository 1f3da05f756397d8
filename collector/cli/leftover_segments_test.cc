// Which segments count as leftovers: brrr's (its header's magic), the user's, old enough, with
// both the creator (the pid in the name) and the app (the pid in the header) gone; nothing else.
#include "collector/cli/leftover_segments.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "shim/ring_format.h"

namespace brrr::cli {
namespace {

namespace fs = std::filesystem;

pid_t DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

void WriteSegment(const fs::path& path, uint64_t magic, pid_t app, bool collected = true) {
  ring::SegmentHeader h{};
  h.magic = magic;
  h.pid = static_cast<uint32_t>(app);
  h.collector_done.store(collected ? 1 : 0);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&h), sizeof(h));
}

TEST(LeftoverSegmentsTest, OnlyBrrrsOwnOldSegmentsOfGoneProcessesAreLeftovers) {
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("leftover_test_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t dead = DeadPid();
  const pid_t me = getpid();
  WriteSegment(dir / absl::StrCat("brrr-", dead, "-0123abcd"), ring::kMagic, DeadPid());
  WriteSegment(dir / absl::StrCat("brrr-", dead, "-0123abce"), ring::kMagic, 0);  // app unknown
  WriteSegment(dir / absl::StrCat("brrr-", dead, "-0123abcf"), ring::kMagic, me);  // app lives
  WriteSegment(dir / absl::StrCat("brrr-", me, "-0123abd0"), ring::kMagic, DeadPid());
  WriteSegment(dir / absl::StrCat("brrr-", dead, "-nothex"), ring::kMagic, DeadPid());
  WriteSegment(dir / absl::StrCat("brrr-", dead, "-0123abd1"), 0x1234, DeadPid());  // not brrr's
  WriteSegment(dir / "something-else", ring::kMagic, DeadPid());
  std::ofstream(dir / absl::StrCat("brrr-", dead, "-0123abd2")) << "short";
  LeftoverScan scan;
  scan.dir = dir.string();
  scan.uid = geteuid();
  scan.min_age = std::chrono::seconds(0);
  std::vector<std::string> found;
  for (const LeftoverSegment& l : FindLeftoverSegments(scan)) found.push_back(l.path);
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{
                       (dir / absl::StrCat("brrr-", dead, "-0123abcd")).string(),
                       (dir / absl::StrCat("brrr-", dead, "-0123abce")).string()}));
  // The one being collected is kept.
  LeftoverScan keeping = scan;
  keeping.keep = absl::StrCat("/brrr-", dead, "-0123abcd");
  EXPECT_EQ(FindLeftoverSegments(keeping).size(), 1u);
  // Another user's, or too young: none.
  LeftoverScan other = scan;
  other.uid = scan.uid + 1;
  EXPECT_TRUE(FindLeftoverSegments(other).empty());
  LeftoverScan young = scan;
  young.min_age = std::chrono::seconds(3600);
  EXPECT_TRUE(FindLeftoverSegments(young).empty());
  EXPECT_EQ(RemoveLeftoverSegments(scan).removed, 2u);
  EXPECT_FALSE(fs::exists(dir / absl::StrCat("brrr-", dead, "-0123abcd")));
  EXPECT_TRUE(fs::exists(dir / absl::StrCat("brrr-", dead, "-0123abcf")));
  fs::remove_all(dir);
}

// Issue 48: a dead run whose collector died before writing the report is recoverable with the
// `brrr attach` the shim printed, so it is kept (7 days by default) and said, not removed a minute
// later; a collected one goes as before; `brrr clean`'s scan (uncollected_keep 0) takes both.
TEST(LeftoverSegmentsTest, AnUncollectedRunIsKeptForRecoveryAndSaid) {
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("leftover_keep_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t dead = DeadPid(), app = DeadPid();
  const fs::path uncollected = dir / absl::StrCat("brrr-", dead, "-0a");
  const fs::path collected = dir / absl::StrCat("brrr-", dead, "-0b");
  WriteSegment(uncollected, ring::kMagic, app, /*collected=*/false);
  WriteSegment(collected, ring::kMagic, app, /*collected=*/true);
  LeftoverScan scan;
  scan.dir = dir.string();
  scan.uid = geteuid();
  scan.min_age = std::chrono::seconds(0);
  const LeftoverCleanup cleanup = RemoveLeftoverSegments(scan);
  EXPECT_EQ(cleanup.removed, 1u);
  EXPECT_FALSE(fs::exists(collected));
  EXPECT_EQ(cleanup.kept, 1u);
  EXPECT_TRUE(fs::exists(uncollected));
  EXPECT_EQ(cleanup.kept_name, absl::StrCat("/brrr-", dead, "-0a"));
  EXPECT_EQ(cleanup.kept_app, app);
  EXPECT_GT(cleanup.kept_bytes, 0u) << "its blocks in use";
  const std::string said = DescribeCleanup(cleanup);
  EXPECT_THAT(said, ::testing::HasSubstr("removed 1 leftover shared-memory segment ("));
  EXPECT_THAT(said, ::testing::HasSubstr("1 segment of runs whose collector died"));
  EXPECT_THAT(said, ::testing::HasSubstr(
                        absl::StrCat("brrr attach --shm /brrr-", dead, "-0a --pid ", app)));
  EXPECT_THAT(said, ::testing::HasSubstr("until `brrr clean` or 7 days"));
  EXPECT_EQ(DescribeCleanup(LeftoverCleanup{}), "");
  // Past its keep time, or under `brrr clean`, it is removable too.
  LeftoverScan clean = scan;
  clean.uncollected_keep = std::chrono::seconds(0);
  const std::vector<LeftoverSegment> found = FindLeftoverSegments(clean);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].collected);
  EXPECT_TRUE(found[0].removable);
  EXPECT_EQ(RemoveLeftoverSegments(clean).removed, 1u);
  EXPECT_FALSE(fs::exists(uncollected));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brrr::cli
