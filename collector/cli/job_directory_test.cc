// The job directory: private, a held lock is waited for (bounded) and reported as unfinished, a
// lock released without a file is "missing", and only known names are read or removed.
#include "collector/cli/job_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace brrr::cli {
namespace {

using ::testing::ElementsAre;

std::string MakeDir() {
  const std::string base = ::testing::TempDir();
  auto dir = CreateJobDirectory([&](const char* name) -> const char* {
    return std::string(name) == "TMPDIR" ? base.c_str() : nullptr;
  });
  EXPECT_TRUE(dir.ok()) << dir.status();
  return dir.ok() ? *dir : "";
}

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(JobDirectoryTest, PrivateDirectoryUnderTmpdir) {
  const std::string dir = MakeDir();
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(dir.rfind(::testing::TempDir(), 0), 0u);
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  RemoveJobDirectory(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(JobDirectoryTest, HeldLocksAreWaitedForThenReportedUnfinished) {
  const std::string dir = MakeDir();
  Touch(dir + "/12.lock");  // released, with a file
  Touch(dir + "/12.brrr");
  Touch(dir + "/13.lock");  // released, no file: its collector died
  Touch(dir + "/99.brrr");  // a file without a lock (e.g. brrr run's own pattern): still read
  Touch(dir + "/notes.txt");
  Touch(dir + "/-1.brrr");
  const int held = open((dir + "/14.lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  const auto start = std::chrono::steady_clock::now();
  const JobFiles files = CollectJobFiles(dir, std::chrono::milliseconds(100));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  EXPECT_THAT(files.reports, ElementsAre(dir + "/12.brrr", dir + "/99.brrr"));
  EXPECT_THAT(files.unfinished, ElementsAre(14u));
  EXPECT_THAT(files.missing, ElementsAre(13u));
  close(held);
  const JobFiles after = CollectJobFiles(dir, std::chrono::milliseconds(2000));
  EXPECT_TRUE(after.unfinished.empty());
  EXPECT_THAT(after.missing, ElementsAre(13u, 14u));
  RemoveJobDirectory(dir);
  // Unknown names are never removed, so the directory stays.
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/12.brrr"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace brrr::cli
